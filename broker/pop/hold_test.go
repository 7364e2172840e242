package pop

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func heldWaiter(topic, group string, queueID int32, woken *atomic.Int64) *Waiter {
	return &Waiter{Topic: topic, Group: group, QueueID: queueID, Expire: time.Now().Add(time.Hour).UnixMilli(),
		Wakeup: func() { woken.Add(1) }}
}

// TestPopHoldWakesOnlyItsWaiters: a message in a topic wakes that topic's
// pops of its queue or of any queue; one in a group's pop retry topic (V1
// or V2) wakes that group's pops of the original topic only; WakeGroup
// wakes one group's pops; the counts follow.
func TestPopHoldWakesOnlyItsWaiters(t *testing.T) {
	h := NewHold(1024, 100000)
	t.Cleanup(func() { h.Stop() })
	var a0, aAny, a1, b0, other atomic.Int64
	now := time.Now().UnixMilli()
	for _, w := range []*Waiter{
		heldWaiter("T", "ga", 0, &a0), heldWaiter("T", "ga", -1, &aAny), heldWaiter("T", "ga", 1, &a1),
		heldWaiter("T", "gb", 0, &b0), heldWaiter("U", "ga", 0, &other),
	} {
		if r := h.Poll(w, now); r != PollingSuc {
			t.Fatalf("poll %+v: %v", w, r)
		}
	}
	if h.Len() != 5 || h.Count("T", "ga", 0) != 1 || h.Count("T", "ga", -1) != 1 {
		t.Fatalf("held %d, counts %d %d", h.Len(), h.Count("T", "ga", 0), h.Count("T", "ga", -1))
	}
	if n := h.Arriving(RetryTopicV2("T", "ga"), 0); n != 3 || a0.Load()+aAny.Load()+a1.Load() != 3 || b0.Load() != 0 || other.Load() != 0 {
		t.Fatalf("retry V2 arrival woke %d", n)
	}
	if n := h.Arriving("T", 0); n != 1 || b0.Load() != 1 {
		t.Fatalf("topic arrival woke %d", n)
	}
	if h.Len() != 1 || h.Count("T", "ga", 0) != 0 {
		t.Fatalf("held %d after the wakes", h.Len())
	}
	var c0 atomic.Int64
	h.Poll(heldWaiter("T", "gc", 2, &c0), now)
	if n := h.WakeGroup("T", "ga"); n != 0 {
		t.Fatalf("WakeGroup of a group without pops of T woke %d", n)
	}
	if n := h.Arriving(RetryTopicV1("U", "ga"), 0); n != 1 || other.Load() != 1 {
		t.Fatalf("retry V1 arrival woke %d", n)
	}
	if n := h.WakeGroup("T", "gc"); n != 1 || c0.Load() != 1 || h.Len() != 0 {
		t.Fatalf("WakeGroup woke %d, held %d", n, h.Len())
	}
}

// BenchmarkPopHoldRetryArrival: one arrival in a pop retry topic while
// many pops of other topics and groups are held.
func BenchmarkPopHoldRetryArrival(b *testing.B) {
	for _, held := range []int{100, 10_000} {
		b.Run(strconv.Itoa(held), func(b *testing.B) {
			h := NewHold(1024, 1_000_000)
			b.Cleanup(func() { h.Stop() })
			var woken atomic.Int64
			now := time.Now().UnixMilli()
			for i := range held {
				h.Poll(heldWaiter("T"+strconv.Itoa(i%100), "g"+strconv.Itoa(i), -1, &woken), now)
			}
			rt := RetryTopicV1("T0", "nobody")
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				h.Arriving(rt, 0)
			}
		})
	}
}

// A pop parked before a message's Arriving begins is woken by it, even
// though Arriving returns at once while nothing is held: race Poll and
// Arriving many times and check every round where Poll had returned first.
func TestPopHoldPollRacingArrivalIsWoken(t *testing.T) {
	t.Parallel()
	h := NewHold(1024, 100000)
	t.Cleanup(func() { h.Stop() })
	rounds, ordered := 3000, 0
	for i := range rounds {
		var woken atomic.Int64
		var polled atomic.Bool
		w := heldWaiter("T", "g", 0, &woken)
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			if r := h.Poll(w, time.Now().UnixMilli()); r != PollingSuc {
				t.Errorf("round %d: poll %v", i, r)
			}
			polled.Store(true)
		}()
		sawPolled := false
		go func() {
			defer wg.Done()
			<-start
			for range i % 7 {
				runtime.Gosched()
			}
			sawPolled = polled.Load()
			h.Arriving("T", 0)
		}()
		close(start)
		wg.Wait()
		if sawPolled {
			ordered++
			if woken.Load() != 1 {
				t.Fatalf("round %d: pop parked before the arrival was not woken (held %d)", i, h.Len())
			}
		}
		if woken.Load() == 0 { // the arrival came first: the next one wakes it
			h.Arriving("T", 0)
		}
		if woken.Load() != 1 || h.Len() != 0 || h.held.Load() != 0 {
			t.Fatalf("round %d: woken %d, held %d (count %d), want 1, 0, 0", i, woken.Load(), h.Len(), h.held.Load())
		}
	}
	if ordered == 0 {
		t.Fatalf("no round had Poll return before Arriving began; the race was not exercised")
	}
	t.Logf("%d of %d rounds had Poll first", ordered, rounds)
}

// The count Arriving reads follows the table when pops expire and at Stop.
func TestPopHoldCountFollowsExpiryAndStop(t *testing.T) {
	t.Parallel()
	h := NewHold(1024, 100000)
	var woken atomic.Int64
	now := time.Now().UnixMilli()
	short := heldWaiter("T", "g", 0, &woken)
	short.Expire = now + 20
	h.Poll(short, now)
	h.Poll(heldWaiter("T", "g", 1, &woken), now)
	if h.held.Load() != 2 {
		t.Fatalf("count %d after two polls, want 2", h.held.Load())
	}
	deadline := time.Now().Add(10 * time.Second)
	for woken.Load() != 1 || h.held.Load() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("expired pop: woken %d, count %d, want 1, 1", woken.Load(), h.held.Load())
		}
		time.Sleep(time.Millisecond)
	}
	if n := h.Arriving("T", 1); n != 1 || h.held.Load() != 0 {
		t.Fatalf("arrival woke %d, count %d, want 1, 0", n, h.held.Load())
	}
	h.Poll(heldWaiter("T", "g", 1, &woken), now)
	h.Stop()
	if h.held.Load() != 0 || h.Len() != 0 {
		t.Fatalf("after stop: count %d, held %d", h.held.Load(), h.Len())
	}
}

// BenchmarkPopHoldArrivingNoneHeld is the dispatcher's per-message call
// while no pop is held.
func BenchmarkPopHoldArrivingNoneHeld(b *testing.B) {
	h := NewHold(1024, 100000)
	b.Cleanup(func() { h.Stop() })
	b.ReportAllocs()
	for b.Loop() {
		h.Arriving("BenchTopic", 3)
	}
}
