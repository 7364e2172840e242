package longpoll

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// outcome counts how a request ended: woken (answered) or dropped (its
// connection told); each must end exactly one way.
type outcome struct{ woken, dropped atomic.Int32 }

func (o *outcome) request(topic string, off, timeout int64, f tagFilter) *Request {
	return &Request{Topic: topic, QueueID: 1, Offset: off, SuspendTimestamp: 1000, TimeoutMillis: timeout,
		Filter: f, Wakeup: func() { o.woken.Add(1) }, Dropped: func() { o.dropped.Add(1) }}
}

func (o *outcome) check(t *testing.T, name string, woken, dropped int32) {
	t.Helper()
	if w, d := o.woken.Load(), o.dropped.Load(); w != woken || d != dropped {
		t.Errorf("%s: woken %d dropped %d, want %d %d", name, w, d, woken, dropped)
	}
}

func checkEmpty(t *testing.T, s *Service) {
	t.Helper()
	if n := s.Len(); n != 0 || s.held.Load() != 0 || s.propHeld.Load() != 0 {
		t.Fatalf("after stop: held %d (count %d, property filters %d), want 0 0 0", n, s.held.Load(), s.propHeld.Load())
	}
}

// A Stop that runs while an arrival's notify has taken the queue's requests
// out (and not yet put back the ones it keeps) must not leave them held for
// ever: the ready one is still answered, the kept one is dropped, and the
// counters the store reads are zero.
func TestLongPollStopDuringNotifyDropsKeptRequests(t *testing.T) {
	t.Parallel()
	s, _, _ := newTestService(t)
	taken, release := make(chan struct{}), make(chan struct{})
	s.afterTake = func() { close(taken); <-release }
	var ready, kept, other outcome
	s.Suspend(ready.request("T", 0, 15000, tagFilter{code: 1, prop: "yes"}))
	s.Suspend(kept.request("T", 5, 15000, tagFilter{code: 1, prop: "yes"}))
	s.Suspend(other.request("U", 0, 15000, tagFilter{code: 1, prop: "yes"}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Arriving("T", 1, 1, 1, 0, nil, map[string]string{"k": "yes"})
	}()
	<-taken
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(release)
	<-done
	ready.check(t, "ready", 1, 0)
	kept.check(t, "kept", 0, 1)
	other.check(t, "other queue", 0, 1)
	checkEmpty(t, s)
	if s.WantsArrivingProperties() {
		t.Fatal("still wants arriving properties after stop")
	}
	var late outcome
	s.Suspend(late.request("T", 0, 15000, tagFilter{code: 1}))
	late.check(t, "suspended after stop", 0, 1)
	checkEmpty(t, s)
}

// Race Stop against arrivals and periodic checks many times: every request
// ends exactly once (woken or dropped) and nothing stays counted.
func TestLongPollStopRacingArrivalsLeavesNothingHeld(t *testing.T) {
	t.Parallel()
	const rounds, perRound = 300, 8
	for round := range rounds {
		s, q, _ := newTestService(t)
		outs := make([]outcome, perRound)
		for i := range outs {
			// Even offsets become ready at the first arrival; odd ones never.
			s.Suspend(outs[i].request("T", int64(i%2)*1000, 1<<40, tagFilter{code: 1, prop: "yes"}))
		}
		q.set("T", 1)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for g := range 3 {
			wg.Go(func() {
				<-start
				for range 1 + round%5 {
					if g == 2 {
						s.Check()
					} else {
						s.Arriving("T", 1, 1, 1, 0, nil, map[string]string{"k": "yes"})
					}
				}
			})
		}
		wg.Go(func() {
			<-start
			if err := s.Stop(context.Background()); err != nil {
				t.Error(err)
			}
		})
		close(start)
		wg.Wait()
		for i := range outs {
			if w, d := outs[i].woken.Load(), outs[i].dropped.Load(); w+d != 1 || (i%2 == 1 && w != 0) {
				t.Fatalf("round %d request %d: woken %d dropped %d, want exactly one ending (never woken: odd)", round, i, w, d)
			}
		}
		checkEmpty(t, s)
	}
}
