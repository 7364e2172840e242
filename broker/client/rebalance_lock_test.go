package client

import (
	"reflect"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/body"
)

func mqs(ids ...int32) []body.MessageQueue {
	var out []body.MessageQueue
	for _, id := range ids {
		out = append(out, body.MessageQueue{BrokerName: "broker-a", QueueID: id, Topic: "TopicTest"})
	}
	return out
}

func TestRebalanceLockBatch(t *testing.T) {
	clk := newFakeClock()
	lm := NewRebalanceLockManager(0, Options{Logger: zaptest.NewLogger(t), Now: clk.Now})
	if got := lm.TryLockBatch("cg", mqs(0, 1, 2), "c1"); !reflect.DeepEqual(got, mqs(0, 1, 2)) {
		t.Fatalf("c1 locked %v", got)
	}
	if got := lm.TryLockBatch("cg", mqs(1, 2, 3), "c2"); !reflect.DeepEqual(got, mqs(3)) {
		t.Fatalf("c2 locked %v", got)
	}
	if got := lm.TryLockBatch("other", mqs(1), "c2"); !reflect.DeepEqual(got, mqs(1)) {
		t.Fatal("locks are per group")
	}
	if !lm.IsLocked("cg", mqs(0)[0], "c1") || lm.IsLocked("cg", mqs(0)[0], "c2") {
		t.Fatal("IsLocked")
	}
	if !lm.TryLock("cg", mqs(0)[0], "c1") || lm.TryLock("cg", mqs(3)[0], "c1") {
		t.Fatal("TryLock")
	}

	lm.UnlockBatch("cg", mqs(1, 3), "c1") // q3 belongs to c2: stays
	if got := lm.TryLockBatch("cg", mqs(1, 3), "c2"); !reflect.DeepEqual(got, mqs(1, 3)) {
		t.Fatalf("after unlock c2 locked %v", got)
	}
	lm.UnlockBatch("nogroup", mqs(1), "c1")
}

// TestRebalanceLockExpiry: a lease lives 60 s from its last renewal; after
// that another client takes it over.
func TestRebalanceLockExpiry(t *testing.T) {
	clk := newFakeClock()
	lm := NewRebalanceLockManager(0, Options{Logger: zaptest.NewLogger(t), Now: clk.Now})
	lm.TryLockBatch("cg", mqs(0, 1), "c1")
	clk.Advance(30 * time.Second)
	lm.TryLockBatch("cg", mqs(0), "c1") // renew q0 only
	clk.Advance(30 * time.Second)
	if got := lm.TryLockBatch("cg", mqs(0, 1), "c2"); len(got) != 0 {
		t.Fatalf("exactly 60 s is still locked, c2 got %v", got)
	}
	clk.Advance(time.Millisecond)
	if got := lm.TryLockBatch("cg", mqs(0, 1), "c2"); !reflect.DeepEqual(got, mqs(1)) {
		t.Fatalf("c2 must take over only the expired q1, got %v", got)
	}
	if lm.IsLocked("cg", mqs(1)[0], "c1") {
		t.Fatal("c1 lost q1")
	}
	clk.Advance(61 * time.Second)
	if lm.IsLocked("cg", mqs(0)[0], "c1") {
		t.Fatal("an expired lease is not locked, even for its holder")
	}
	if got := lm.TryLockBatch("cg", mqs(0), "c1"); !reflect.DeepEqual(got, mqs(0)) {
		t.Fatal("the old holder can lock its expired queue again")
	}

	short := NewRebalanceLockManager(5*time.Second, Options{Now: clk.Now})
	short.TryLockBatch("cg", mqs(0), "c1")
	clk.Advance(5*time.Second + time.Millisecond)
	if got := short.TryLockBatch("cg", mqs(0), "c2"); len(got) != 1 {
		t.Fatal("configured max live time")
	}
}
