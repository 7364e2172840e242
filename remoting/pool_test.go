package remoting

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/wait"
)

// TestRemotingPoolQueueAllocatedOnDemand: a pool's queue takes memory for
// the tasks it holds, not for its capacity. The broker's default pools
// have capacities up to 1,000,000; allocated up front they were 20 MB of
// pointer slots every garbage collection scanned (issue #11).
func TestRemotingPoolQueueAllocatedOnDemand(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p := NewPool("big", 1, 1_000_000)
	runtime.ReadMemStats(&after)
	defer func() { _ = p.Stop(t.Context()) }()
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("NewPool with capacity 1,000,000 allocated %d bytes", grew)
	}
	// Still bounded, and everything queued runs once, in order.
	release := make(chan struct{})
	started := make(chan struct{})
	p2 := NewPool("small", 1, 100)
	if !p2.Submit(func() { close(started); <-release }) {
		t.Fatal("first submit refused")
	}
	<-started
	var got []int
	for i := range 100 {
		if !p2.Submit(func() { got = append(got, i) }) {
			t.Fatalf("submit %d refused", i)
		}
	}
	if p2.Submit(func() {}) || p2.QueueLen() != 100 {
		t.Fatalf("101st queued task accepted or queue length %d", p2.QueueLen())
	}
	close(release)
	if err := p2.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("task %d ran as %d: %v", i, v, got)
		}
	}
	if len(got) != 100 {
		t.Fatalf("%d of 100 queued tasks ran before Stop returned", len(got))
	}
}

// TestRemotingPoolZeroCapacityHandsToIdleWorker: with no queue, a task is
// accepted only when a worker is free to take it (a channel send to a
// waiting receiver), and refused while every worker is busy.
func TestRemotingPoolZeroCapacityHandsToIdleWorker(t *testing.T) {
	p := NewPool("zero", 1, 0)
	defer func() { _ = p.Stop(t.Context()) }()
	release := make(chan struct{})
	wait.Eventually(t, 5*time.Second, func() error {
		if p.Submit(func() { <-release }) {
			return nil
		}
		return errString("worker never idle")
	})
	if p.Submit(func() {}) {
		t.Fatal("submit accepted while the only worker is busy and there is no queue")
	}
	close(release)
	ran := make(chan struct{})
	wait.Eventually(t, 5*time.Second, func() error {
		if p.Submit(func() { close(ran) }) {
			return nil
		}
		return errString("worker not idle again")
	})
	<-ran
}

type errString string

func (e errString) Error() string { return string(e) }

// TestRemotingPoolConcurrentSubmitters: accepted tasks run exactly once,
// no more run at once than there
// are workers, under concurrent submitters (run with -race).
func TestRemotingPoolConcurrentSubmitters(t *testing.T) {
	const workers, capacity, submitters, each = 4, 64, 8, 2000
	p := NewPool("stress", workers, capacity)
	var ran, accepted atomic.Int64
	var running atomic.Int64
	var wg sync.WaitGroup
	for range submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if p.Submit(func() {
					if running.Add(1) > workers {
						t.Error("more tasks running than workers")
					}
					ran.Add(1)
					running.Add(-1)
				}) {
					accepted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ran.Load() != accepted.Load() || accepted.Load() == 0 {
		t.Fatalf("accepted %d, ran %d", accepted.Load(), ran.Load())
	}
	if p.Submit(func() {}) {
		t.Fatal("submit after Stop accepted")
	}
}

// TestRemotingEndpointEventQueueAllocatedOnDemand: the channel-event queue
// (bounded at Java's 10,000) takes memory for the events it holds only.
func TestRemotingEndpointEventQueueAllocatedOnDemand(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ep := newEndpoint(zap.NewNop(), 0, 0)
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<10 {
		t.Fatalf("newEndpoint allocated %d bytes", grew)
	}
	_ = ep
}
