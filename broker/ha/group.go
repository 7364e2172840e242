package ha

// GroupTransferService mirrors Java's HAService.GroupTransferService: a
// SYNC_MASTER send completes only when a slave acknowledged an offset that
// covers it, or fails after syncFlushTimeout.

import (
	"sync"
	"time"
)

type replicaWait struct {
	offset   int64
	deadline time.Time
	done     func(ok bool)
}

// GroupTransferService holds the pending SYNC_MASTER waits. Completion runs
// on the goroutine that reads the slave's acknowledgement; expiry on the
// service's own goroutine. Each done is called exactly once, outside mu.
type GroupTransferService struct {
	ack func() int64 // current push2SlaveMaxOffset

	mu      sync.Mutex
	waiters []replicaWait // in arrival order (offsets and deadlines nearly sorted)

	wake chan struct{} // buffered(1): a wait was added (re-arm the expiry timer)
}

func newGroupTransferService(ack func() int64) *GroupTransferService {
	return &GroupTransferService{ack: ack, wake: make(chan struct{}, 1)}
}

// wait registers a wait for offset; done(true) at once if it is already
// acknowledged.
func (g *GroupTransferService) wait(offset int64, timeout time.Duration, done func(bool)) {
	if g.ack() >= offset {
		done(true)
		return
	}
	g.mu.Lock()
	g.waiters = append(g.waiters, replicaWait{offset: offset, deadline: time.Now().Add(timeout), done: done})
	g.mu.Unlock()
	select {
	case g.wake <- struct{}{}:
	default:
	}
	// An acknowledgement that raced with the append is not lost.
	if a := g.ack(); a >= offset {
		g.notifyTransferSome(a)
	}
}

// notifyTransferSome completes every wait at or below ack.
func (g *GroupTransferService) notifyTransferSome(ack int64) {
	var ready []func(bool)
	g.mu.Lock()
	kept := g.waiters[:0]
	for _, w := range g.waiters {
		if w.offset <= ack {
			ready = append(ready, w.done)
		} else {
			kept = append(kept, w)
		}
	}
	clear(g.waiters[len(kept):])
	g.waiters = kept
	g.mu.Unlock()
	for _, d := range ready {
		d(true)
	}
}

// expire fails every wait whose deadline passed and returns the earliest
// remaining deadline (zero when none).
func (g *GroupTransferService) expire(now time.Time) time.Time {
	var failed []func(bool)
	var next time.Time
	g.mu.Lock()
	kept := g.waiters[:0]
	for _, w := range g.waiters {
		if !w.deadline.After(now) {
			failed = append(failed, w.done)
			continue
		}
		kept = append(kept, w)
		if next.IsZero() || w.deadline.Before(next) {
			next = w.deadline
		}
	}
	clear(g.waiters[len(kept):])
	g.waiters = kept
	g.mu.Unlock()
	for _, d := range failed {
		d(false)
	}
	return next
}

// failAll fails every pending wait (shutdown).
func (g *GroupTransferService) failAll() {
	g.mu.Lock()
	ws := g.waiters
	g.waiters = nil
	g.mu.Unlock()
	for _, w := range ws {
		w.done(false)
	}
}

// pending is the number of waits not completed yet.
func (g *GroupTransferService) pending() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.waiters)
}

// run returns the expiry loop: it sleeps until the earliest deadline, or
// until a wait is added, and stops when stop closes.
func (g *GroupTransferService) run(stop <-chan struct{}) func() {
	return func() {
		t := time.NewTimer(time.Hour)
		defer t.Stop()
		for {
			next := g.expire(time.Now())
			d := time.Hour
			if !next.IsZero() {
				d = max(time.Until(next), time.Millisecond)
			}
			t.Reset(d)
			select {
			case <-stop:
				return
			case <-g.wake:
			case <-t.C:
			}
		}
	}
}
