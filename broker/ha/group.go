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

// completion is one wait taken off the list, to be answered outside mu.
type completion struct {
	done func(ok bool)
	ok   bool
}

// GroupTransferService holds the pending SYNC_MASTER waits. Its own
// goroutine (run) answers them: an acknowledgement only raises the offset
// and signals the goroutine, so the connection's reader goes straight back
// to reading the next report while the sends the last one covered are
// answered (Java's GroupTransferService thread likewise runs apart from
// the HA reader). One pass answers everything acknowledged since the
// previous pass, in arrival order, and fails what passed its deadline.
// Each done is called exactly once, outside mu.
type GroupTransferService struct {
	ack func() int64 // current acknowledged offset (push2SlaveMaxOffset)

	mu      sync.Mutex
	waiters []replicaWait // in arrival order (offsets and deadlines nearly sorted)
	spare   []replicaWait // the other backing array for the next sweep
	expiry  time.Time     // deadline run's timer is armed for; zero = none
	closed  bool          // set by close: run is gone, so wait answers false at once

	batch []completion // owned by run: the waits one sweep answers

	wake  chan struct{} // buffered(1): a wait's deadline precedes expiry (re-arm the timer)
	acked chan struct{} // buffered(1): the acknowledged offset moved
}

func newGroupTransferService(ack func() int64) *GroupTransferService {
	return &GroupTransferService{ack: ack, wake: make(chan struct{}, 1), acked: make(chan struct{}, 1)}
}

// wait registers a wait for offset; done(true) at once if it is already
// acknowledged, done(false) at once if the service is closed.
func (g *GroupTransferService) wait(offset int64, timeout time.Duration, done func(bool)) {
	if g.ack() >= offset {
		done(true)
		return
	}
	deadline := time.Now().Add(timeout)
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		done(false)
		return
	}
	g.waiters = append(g.waiters, replicaWait{offset: offset, deadline: deadline, done: done})
	rearm := g.expiry.IsZero() || deadline.Before(g.expiry)
	if rearm {
		g.expiry = deadline // run sets the true earliest deadline when it wakes
	}
	g.mu.Unlock()
	if rearm {
		signal(g.wake)
	}
	// An acknowledgement that raced with the append is not lost.
	if g.ack() >= offset {
		g.notifyTransferSome()
	}
}

// notifyTransferSome tells run that the acknowledged offset moved; run
// answers every wait it covers. It never blocks.
func (g *GroupTransferService) notifyTransferSome() { signal(g.acked) }

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// sweep takes every wait that is acknowledged (ok) or, unless now is zero,
// past its deadline (failed) off the list into g.batch, keeping arrival
// order, and returns the earliest remaining deadline (zero when none).
func (g *GroupTransferService) sweep(now time.Time) time.Time {
	ack := g.ack()
	var next time.Time
	g.mu.Lock()
	kept := g.spare[:0]
	for _, w := range g.waiters {
		switch {
		case w.offset <= ack:
			g.batch = append(g.batch, completion{done: w.done, ok: true})
		case !now.IsZero() && !w.deadline.After(now):
			g.batch = append(g.batch, completion{done: w.done})
		default:
			kept = append(kept, w)
			if next.IsZero() || w.deadline.Before(next) {
				next = w.deadline
			}
		}
	}
	clear(g.waiters)
	g.spare, g.waiters = g.waiters[:0], kept
	g.expiry = next
	g.mu.Unlock()
	return next
}

// answer calls the done of every wait in g.batch and empties it.
func (g *GroupTransferService) answer() {
	for _, c := range g.batch {
		c.done(c.ok)
	}
	clear(g.batch)
	g.batch = g.batch[:0]
}

// failAll fails every pending wait (role change; run keeps answering the
// waits that come later).
func (g *GroupTransferService) failAll() {
	g.mu.Lock()
	g.failAllLocked()
}

// close fails every pending wait and every later one (shutdown: run is
// stopping, so a wait that raced past the caller's shutdown check would
// otherwise never be answered).
func (g *GroupTransferService) close() {
	g.mu.Lock()
	g.closed = true
	g.failAllLocked()
}

// failAllLocked empties the list, unlocks mu and fails what it took.
func (g *GroupTransferService) failAllLocked() {
	ws := g.waiters
	g.waiters = nil
	g.expiry = time.Time{}
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

// run returns the service's loop: it answers acknowledged waits when
// signalled, fails expired ones at the earliest deadline, and stops when
// stop closes (answering what is acknowledged by then; close fails the
// rest).
func (g *GroupTransferService) run(stop <-chan struct{}) func() {
	return func() {
		t := time.NewTimer(time.Hour)
		defer t.Stop()
		for {
			next := g.sweep(time.Now())
			g.answer()
			d := time.Hour
			if !next.IsZero() {
				d = max(time.Until(next), time.Millisecond)
			}
			t.Reset(d)
			select {
			case <-stop:
				g.sweep(time.Time{})
				g.answer()
				return
			case <-g.acked:
			case <-g.wake:
			case <-t.C:
			}
		}
	}
}
