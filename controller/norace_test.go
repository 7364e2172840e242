//go:build !race

package controller_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/controller"
	"github.com/rocketmq-go/rmq/controller/client"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
)

// TestNoRaceControllerLeaderFailoverTime measures, with hashicorp/raft's
// default timeouts (the documented defaults), how long a 3-node controller
// group takes from the leader's shutdown until a client's next write is
// answered by the new leader. It logs the times and fails only past 10 s.
func TestNoRaceControllerLeaderFailoverTime(t *testing.T) {
	defaults := func(c *controller.Config) {
		c.RaftHeartbeatTimeout, c.RaftElectionTimeout, c.RaftLeaderLeaseTimeout = 0, 0, 0
	}
	var took []time.Duration
	for i := 0; i < 3; i++ {
		cl := testutil.StartControllers(t, 3, defaults)
		leader := cl.Leader(t)
		rc := remoting.NewClient(nil, nil)
		cc := client.New(rc, cl.Addrs, nil)
		if _, err := cc.GetNextBrokerID(t.Context(), "c", "b"); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := leader.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := cc.GetNextBrokerID(t.Context(), "c", "b"); err == nil {
				break
			}
			if time.Since(start) > 10*time.Second {
				t.Fatal("no new leader within 10 s")
			}
			time.Sleep(20 * time.Millisecond)
		}
		took = append(took, time.Since(start))
		_ = rc.Shutdown(context.Background())
	}
	slices.Sort(took)
	t.Logf("controller leader failover (leader shutdown → first answered request), 3 runs: %v (median %v)", took, took[1])
}

// TestNoRaceControllerMasterElectionTime measures, with the default scan
// intervals (5 s), how long the controller takes from a master broker's
// death (its process gone: heartbeats stop and its connections close) until
// a SyncStateSet member is master. It logs the times and fails past 10 s.
func TestNoRaceControllerMasterElectionTime(t *testing.T) {
	defaults := func(c *controller.Config) {
		c.ScanNotActiveBrokerInterval, c.ScanInactiveMasterInterval = 5000, 5000
	}
	var took []time.Duration
	for i := 0; i < 3; i++ {
		cl := testutil.StartControllers(t, 1, defaults)
		leader := cl.Leader(t)
		var epoch atomic.Int32
		b1, b2 := startFakeBroker(t, cl), startFakeBroker(t, cl)
		b1.register(t)
		b2.register(t)
		b1.heartbeatLoop(&epoch)
		b2.heartbeatLoop(&epoch)
		testutil.Eventually(t, 5*time.Second, func() error {
			if !leader.Heartbeats().IsActive("DefaultCluster", "broker-a", 1) || !leader.Heartbeats().IsActive("DefaultCluster", "broker-a", 2) {
				return errors.New("heartbeats not seen")
			}
			return nil
		})
		if _, err := b1.cc.ElectMaster(t.Context(), "DefaultCluster", "broker-a", 1, false); err != nil {
			t.Fatal(err)
		}
		if _, err := b1.cc.AlterSyncStateSet(t.Context(), "broker-a", 1, 1, []int64{1, 2}, 1); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		b1.kill()
		for {
			_, st, _ := groupOf(leader, "broker-a")
			if st.MasterBrokerID != nil && *st.MasterBrokerID == 2 {
				break
			}
			if time.Since(start) > 10*time.Second {
				t.Fatal("no new master within 10 s")
			}
			time.Sleep(5 * time.Millisecond)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	t.Logf("master election after a broker's death (connections closed), 3 runs: %v (median %v)", took, took[1])
}
