package pop

import (
	"strconv"
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
