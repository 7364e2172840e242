package configtable

// Coalesced persistence of a table file. Java rewrites topics.json or
// subscriptionGroup.json synchronously inside every update, so creating n
// topics writes n files of up to n entries: quadratic. A Persister writes
// on its own goroutine instead, one file for all the changes requested
// since the previous write.

import (
	"sync"
	"time"

	"go.uber.org/zap"
)

// PersistInterval is the least time between two writes nobody waits for
// (changes made while serving sends, pulls, heartbeats or a slave's sync).
// A caller of WaitPersisted skips it: group commit alone bounds the writes
// then.
const PersistInterval = 100 * time.Millisecond

// Persister writes a file through write, coalescing requests.
//
// Request marks the table changed and returns at once; WaitPersisted blocks
// until a write that began after every earlier Request has finished (group
// commit: one write answers every caller that waited meanwhile). Before
// Start and after Stop, Request writes synchronously on the caller's
// goroutine, as Java does.
type Persister struct {
	write    func() error
	interval time.Duration
	lg       *zap.Logger

	wake  chan struct{} // buffered(1): a write is requested
	hurry chan struct{} // buffered(1): a caller waits; skip the coalescing delay
	stop  chan struct{} // closed by Stop: final write, then exit
	done  chan struct{} // closed when the goroutine has returned

	mu        sync.Mutex
	running   bool         // the goroutine accepts requests
	stopped   bool         // Stop was called
	requested uint64       // generation of the newest change
	written   uint64       // generation covered by the last successful write
	failed    uint64       // generation covered by the last failed write
	lastErr   error        // error of that failed write
	urgent    bool         // a callback waits for the next write
	waiting   []afterWrite // callbacks of AfterPersisted, by generation
}

// afterWrite is a callback waiting for a write covering generation gen.
type afterWrite struct {
	gen uint64
	fn  func(error)
}

// NewPersister returns a stopped persister writing with write at most once
// per interval unless someone waits. write must be safe to call from any
// goroutine (the table's Persist). lg names the file in its logs.
func NewPersister(write func() error, interval time.Duration, lg *zap.Logger) *Persister {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Persister{write: write, interval: interval, lg: lg, wake: make(chan struct{}, 1),
		hurry: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// Start spawns the writer goroutine; it does nothing after Stop or when
// already started.
func (p *Persister) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running || p.stopped {
		return
	}
	p.running = true
	go p.loop()
}

// Stop writes what is still pending, stops the goroutine and waits for it.
// Later requests write synchronously. Idempotent.
func (p *Persister) Stop() {
	p.mu.Lock()
	wasRunning := p.running
	p.running = false
	if !p.stopped {
		p.stopped = true
		close(p.stop)
	}
	p.mu.Unlock()
	if wasRunning {
		<-p.done
	}
}

// Request records a change of the table to be written.
func (p *Persister) Request() {
	p.mu.Lock()
	p.requested++
	if !p.running {
		p.mu.Unlock()
		_ = p.writeNow() // logged there
		return
	}
	p.mu.Unlock()
	signal(p.wake)
}

// WaitPersisted blocks until every change requested so far is on disk and
// returns the error of the write that should have covered it.
func (p *Persister) WaitPersisted() error {
	ch := make(chan error, 1)
	p.AfterPersisted(func(err error) { ch <- err })
	return <-ch
}

// AfterPersisted calls fn once every change requested so far is on disk,
// with the error of the write that should have covered it: at once (on
// the caller's goroutine) when nothing is pending, else on the persister's
// goroutine after that write, so fn must not block (a processor's
// ctx.Respond). The write skips the coalescing delay.
func (p *Persister) AfterPersisted(fn func(error)) {
	p.mu.Lock()
	g := p.requested
	switch {
	case p.written >= g:
		p.mu.Unlock()
		fn(nil)
		return
	case p.failed >= g || !p.running:
		// Not running: Request wrote synchronously and this is its result.
		err := p.lastErr
		p.mu.Unlock()
		fn(err)
		return
	}
	p.waiting = append(p.waiting, afterWrite{gen: g, fn: fn})
	p.urgent = true
	p.mu.Unlock()
	signal(p.wake)
	signal(p.hurry)
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// loop owns the writes while running. After a write it waits interval
// (after a failure at least retryDelay, then retries) before the next one
// unless a caller waits (urgent).
func (p *Persister) loop() {
	defer close(p.done)
	var last time.Time
	gap := p.interval
	for {
		select {
		case <-p.stop:
			_ = p.writeNow()
			return
		case <-p.wake:
		}
		if d := time.Until(last.Add(gap)); d > 0 && !p.isUrgent() {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-p.hurry:
			case <-p.stop:
				t.Stop()
				_ = p.writeNow()
				return
			}
			t.Stop()
		}
		gap = p.interval
		if err := p.writeNow(); err != nil {
			gap = max(gap, retryDelay)
			signal(p.wake)
		}
		last = time.Now()
	}
}

// retryDelay is the least pause before retrying a failed write nobody
// waits for.
const retryDelay = time.Second

func (p *Persister) isUrgent() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.urgent
}

// writeNow writes the table if a change is pending, wakes the waiters and
// returns the write's error.
func (p *Persister) writeNow() error {
	p.mu.Lock()
	g := p.requested
	if g == p.written {
		p.mu.Unlock()
		return nil
	}
	p.urgent = false
	p.mu.Unlock()
	err := p.write()
	p.mu.Lock()
	if err == nil {
		p.written = max(p.written, g)
	} else {
		p.failed, p.lastErr = max(p.failed, g), err
	}
	var due []afterWrite
	keep := p.waiting[:0]
	for _, w := range p.waiting {
		if w.gen <= g {
			due = append(due, w)
		} else {
			keep = append(keep, w)
		}
	}
	clear(p.waiting[len(keep):])
	p.waiting = keep
	p.mu.Unlock()
	if err != nil {
		p.lg.Error("persist failed", zap.Error(err))
	}
	for _, w := range due {
		w.fn(err)
	}
	return err
}
