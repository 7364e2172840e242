package ha

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/wait"
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
		g.notifyTransferSome()
	}
	ack.Store(n / 2 * 100)
	g.notifyTransferSome()
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

// TestHASyncMasterAcksReadWhileAnswering: the sends a slave's report
// releases are answered off the connection's reader, so the next report is
// read (and acknowledges more) while an answer is still being written; the
// answers still come exactly once each, in the order the sends waited.
func TestHASyncMasterAcksReadWhileAnswering(t *testing.T) {
	master := startNode(t, "", store.SyncMaster)
	// Stored though unanswered (no slave yet): the master's max offset then
	// covers the reports below. The waits are registered directly, as what
	// matters here is who answers them.
	putN(t, master.st, "TopicAnswer", 0, 3, 100)
	end := master.st.MaxPhyOffset()
	c := rawSlave(t, master.haAddr())
	if _, err := c.Write(AppendReport(nil, 0)); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if master.ha.ConnectionCount() == 0 {
			return errors.New("slave not connected")
		}
		return nil
	})
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the node stops, should the test fail early
	var mu sync.Mutex
	var order []int
	calls := make(chan int, 8)
	record := func(i int, block bool) func(bool) {
		return func(ok bool) {
			if !ok {
				t.Errorf("wait %d failed", i)
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			calls <- i
			if block {
				<-release // a slow answer: the client's socket is full
			}
		}
	}
	master.ha.WaitReplicated(10, time.Minute, record(0, true))
	master.ha.WaitReplicated(20, time.Minute, record(1, false))
	master.ha.WaitReplicated(end, time.Minute, record(2, false))
	if _, err := c.Write(AppendReport(nil, 10)); err != nil {
		t.Fatal(err)
	}
	if i := <-calls; i != 0 {
		t.Fatalf("first answer for wait %d", i)
	}
	// Wait 0's answer is stuck; the reader must still take the next report.
	if _, err := c.Write(AppendReport(nil, end)); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if got := master.ha.Push2SlaveMaxOffset(); got != end {
			return fmt.Errorf("push2SlaveMaxOffset %d while an answer is written, want %d", got, end)
		}
		return nil
	})
	unblock()
	for range 2 {
		<-calls
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(order, []int{0, 1, 2}) {
		t.Fatalf("answers in order %v, want [0 1 2] once each", order)
	}
	select {
	case i := <-calls:
		t.Fatalf("wait %d answered twice", i)
	default:
	}
}

// TestHAWaitReplicatedAfterShutdownAnswered: a SYNC_MASTER wait that passed
// WaitReplicated's shutdown check but reached the group services only
// after Shutdown had failed their lists is still answered, with false
// (before, nothing was left to answer it and the send hung).
func TestHAWaitReplicatedAfterShutdownAnswered(t *testing.T) {
	m := startNode(t, "", store.SyncMaster)
	m.stop()
	for name, g := range map[string]*GroupTransferService{"group": m.ha.group, "allAck": m.ha.ctl.allAck} {
		got := make(chan bool, 1)
		// The step WaitReplicated takes after its shutdown check.
		g.wait(1<<40, time.Hour, func(ok bool) { got <- ok })
		select {
		case ok := <-got:
			if ok {
				t.Fatalf("%s: wait after shutdown succeeded", name)
			}
		case <-time.After(wait.Scale(2 * time.Second)):
			t.Fatalf("%s: wait after shutdown never answered (%d pending)", name, g.pending())
		}
	}
}
