//go:build !race

package integration

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
)

// TestNoRaceHAFailoverGoConsumer: a running Go push consumer keeps
// consuming from the slave while the master is down, and after the master
// comes back (same ports, same store) consumption continues with no loss
// and no re-consumption; a consumer of the same group started afterwards
// gets only new messages. It waits for the Go client's 30 s route refresh
// twice, hence !race.
func TestNoRaceHAFailoverGoConsumer(t *testing.T) {
	e := newHAEnv(t, store.AsyncMaster)
	group := uniqueName("hafo")
	r := newReceived()
	c := e.startConsumer(group, r)
	e.sendBatch(0, 40)
	haWaitBodies(t, e, r, 0, 40, 30*time.Second)
	testutil.Eventually(t, 20*time.Second, func() error {
		if n := sumOffsets(e.master.Offsets().QueryOffsets(group, e.topic)); n != 40 {
			return fmt.Errorf("master holds committed offsets summing to %d, want 40", n)
		}
		return nil
	})

	c.Suspend()
	e.sendBatch(40, 40)
	haWaitReplicated(t, e.master.Store(), e.slave.Store(), e.topic)
	haShutdown(t, e.master)
	c.Resume()
	haWaitBodies(t, e, r, 40, 40, 60*time.Second) // from the slave

	e.startMaster()
	for i := 80; i < 120; i++ {
		testutil.Eventually(t, 60*time.Second, func() error {
			res, err := e.sendOne(i, 256)
			if err != nil || res.Status != primitive.SendOK {
				return fmt.Errorf("send %d: %v %v", i, res, err)
			}
			return nil
		})
	}
	haWaitBodies(t, e, r, 80, 40, 60*time.Second)
	if dup := r.duplicates(); dup != 0 {
		t.Errorf("%d messages consumed more than once across the failover", dup)
	}

	// haWaitBodies returns while the last callback may still be running, and
	// the client advances its offset only after it returns: wait until the
	// master holds every offset, so the restart below starts past them.
	testutil.Eventually(t, 20*time.Second, func() error {
		if n := sumOffsets(e.master.Offsets().QueryOffsets(group, e.topic)); n != 120 {
			return fmt.Errorf("master holds committed offsets summing to %d, want 120", n)
		}
		return nil
	})
	if err := c.Shutdown(); err != nil { // persists its offsets to the master
		t.Fatal(err)
	}
	r2 := newReceived()
	e.startConsumer(group, r2)
	e.sendBatch(120, 8)
	haWaitBodies(t, e, r2, 120, 8, 60*time.Second)
	for i := 0; i < 120; i++ {
		if r2.has(string(e.msg(i, 256).Body)) {
			t.Fatalf("restarted consumer re-consumed message %d", i)
		}
	}
}

func sumOffsets(m map[int32]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}
