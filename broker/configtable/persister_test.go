package configtable_test

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/configtable"
)

// fakeTable counts writes and records the version each write saw; a write
// can be held until released.
type fakeTable struct {
	version atomic.Int64 // bumped by every change
	writes  atomic.Int64
	written atomic.Int64  // version seen by the last write
	gate    chan struct{} // when non-nil, each write waits for a token
	fail    atomic.Bool
}

func (f *fakeTable) write() error {
	if f.gate != nil {
		<-f.gate
	}
	f.writes.Add(1)
	if f.fail.Load() {
		return errors.New("disk on fire")
	}
	f.written.Store(f.version.Load())
	return nil
}

func (f *fakeTable) change(p *configtable.Persister) {
	f.version.Add(1)
	p.Request()
}

func TestConfigTablePersisterSynchronousWhenNotRunning(t *testing.T) {
	t.Parallel()
	f := &fakeTable{}
	p := configtable.NewPersister(f.write, time.Hour, zaptest.NewLogger(t))
	f.change(p)
	if f.writes.Load() != 1 || f.written.Load() != 1 {
		t.Fatalf("before Start: writes %d, written version %d", f.writes.Load(), f.written.Load())
	}
	p.Start()
	p.Stop()
	f.change(p)
	if f.writes.Load() != 2 || f.written.Load() != 2 {
		t.Fatalf("after Stop: writes %d, written version %d", f.writes.Load(), f.written.Load())
	}
	if err := p.WaitPersisted(); err != nil {
		t.Fatal(err)
	}
}

// TestConfigTablePersisterGroupCommit: callers that change the table
// while a write runs share the next write; each returns only once a write
// that saw its change has finished.
func TestConfigTablePersisterGroupCommit(t *testing.T) {
	t.Parallel()
	f := &fakeTable{gate: make(chan struct{})}
	p := configtable.NewPersister(f.write, time.Hour, zaptest.NewLogger(t))
	p.Start()
	defer p.Stop()
	first := make(chan error, 1)
	f.change(p)
	go func() { first <- p.WaitPersisted() }()
	// The first write is running or about to (it is held at the gate);
	// 50 callers change the table meanwhile and wait.
	const callers = 50
	var wg sync.WaitGroup
	var changed, bad atomic.Int64
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.change(p)
			mine := f.version.Load()
			changed.Add(1)
			if err := p.WaitPersisted(); err != nil || f.written.Load() < mine {
				bad.Add(1)
			}
		}()
	}
	for changed.Load() < callers {
		runtime.Gosched()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		select {
		case <-done:
			if err := <-first; err != nil {
				t.Fatal(err)
			}
			if bad.Load() != 0 {
				t.Fatalf("%d callers returned before their change was written", bad.Load())
			}
			if w := f.writes.Load(); w < 1 || w > 2 {
				t.Fatalf("%d writes for 1 + %d callers, want 1..2 (group commit)", w, callers)
			}
			close(f.gate)
			return
		case f.gate <- struct{}{}:
		}
	}
}

// TestConfigTablePersisterCoalescesBackground: changes nobody waits for
// are written together, and Stop writes what is pending.
func TestConfigTablePersisterCoalescesBackground(t *testing.T) {
	t.Parallel()
	f := &fakeTable{}
	p := configtable.NewPersister(f.write, time.Hour, zaptest.NewLogger(t))
	p.Start()
	for range 200 {
		f.change(p)
	}
	p.Stop()
	if w := f.writes.Load(); w < 1 || w > 2 || f.written.Load() != 200 {
		t.Fatalf("writes %d (want 1..2), last write saw version %d of 200", w, f.written.Load())
	}
}

// TestConfigTablePersisterReportsFailure: a waiter gets the error of the
// write that should have covered its change; the next change is written.
func TestConfigTablePersisterReportsFailure(t *testing.T) {
	t.Parallel()
	f := &fakeTable{}
	p := configtable.NewPersister(f.write, time.Hour, zaptest.NewLogger(t))
	p.Start()
	defer p.Stop()
	f.fail.Store(true)
	f.change(p)
	if err := p.WaitPersisted(); err == nil {
		t.Fatal("WaitPersisted after a failed write: nil error")
	}
	f.fail.Store(false)
	f.change(p)
	if err := p.WaitPersisted(); err != nil || f.written.Load() != 2 {
		t.Fatalf("after recovery: %v, written version %d", err, f.written.Load())
	}
}
