//go:build !race

package pop

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// TestNoRacePopHoldRetryArrivalIgnoresOtherWaiters: an arrival in a pop
// retry topic costs the same however many pops of other topics and groups
// are held (the dispatcher calls Arriving for every message): 1,000
// arrivals among 20,000 unrelated held pops take well under 100 ms
// (indexed: about 30 µs; a scan of every held pop: seconds).
func TestNoRacePopHoldRetryArrivalIgnoresOtherWaiters(t *testing.T) {
	h := NewHold(1024, 1_000_000)
	t.Cleanup(func() { h.Stop() })
	var woken atomic.Int64
	now := time.Now().UnixMilli()
	for i := range 20_000 {
		h.Poll(heldWaiter("T"+strconv.Itoa(i%100), "g"+strconv.Itoa(i), -1, &woken), now)
	}
	rt := RetryTopicV1("T0", "nobody")
	begin := time.Now()
	for range 1000 {
		h.Arriving(rt, 0)
	}
	if took := time.Since(begin); took > 100*time.Millisecond {
		t.Fatalf("1,000 retry arrivals among 20,000 held pops took %v", took)
	}
	if woken.Load() != 0 {
		t.Fatalf("woke %d unrelated pops", woken.Load())
	}
}
