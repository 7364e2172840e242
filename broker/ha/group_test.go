package ha

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestHAGroupTransferCompletesOnce: concurrent waits at many offsets are
// each completed exactly once — true for those an acknowledgement covers,
// false for the rest once their deadline passes.
func TestHAGroupTransferCompletesOnce(t *testing.T) {
	var ack atomic.Int64
	g := newGroupTransferService(ack.Load)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { g.run(stop)(); close(done) }()
	defer func() { close(stop); <-done }()

	const n = 200
	var calls [n]atomic.Int32
	var oks [n]atomic.Bool
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func(i int) {
			timeout := time.Hour
			if i >= n/2 {
				timeout = 50 * time.Millisecond
			}
			g.wait(int64(i+1)*100, timeout, func(ok bool) {
				calls[i].Add(1)
				oks[i].Store(ok)
				wg.Done()
			})
		}(i)
	}
	// Acknowledge the first half in steps, out of order with the waits.
	for off := int64(0); off <= n/2*100; off += 700 {
		ack.Store(off)
		g.notifyTransferSome(off)
	}
	ack.Store(n / 2 * 100)
	g.notifyTransferSome(n / 2 * 100)
	wg.Wait()
	for i := 0; i < n; i++ {
		if c := calls[i].Load(); c != 1 {
			t.Fatalf("wait %d completed %d times", i, c)
		}
		if want := i < n/2; oks[i].Load() != want {
			t.Fatalf("wait %d (offset %d) ok=%v, want %v", i, (i+1)*100, oks[i].Load(), want)
		}
	}
	if p := g.pending(); p != 0 {
		t.Fatalf("%d waits left", p)
	}
}

// TestHAGroupTransferFailAll: shutdown fails every pending wait, and a wait
// already covered completes at once.
func TestHAGroupTransferFailAll(t *testing.T) {
	var ack atomic.Int64
	ack.Store(500)
	g := newGroupTransferService(ack.Load)
	got := make(chan bool, 3)
	g.wait(400, time.Hour, func(ok bool) { got <- ok })
	if ok := <-got; !ok {
		t.Fatal("covered wait failed")
	}
	g.wait(600, time.Hour, func(ok bool) { got <- ok })
	g.wait(700, time.Hour, func(ok bool) { got <- ok })
	g.failAll()
	if a, b := <-got, <-got; a || b {
		t.Fatal("pending waits not failed at shutdown")
	}
}
