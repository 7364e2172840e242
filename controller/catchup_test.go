package controller_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/controller"
	"github.com/rocketmq-go/rmq/controller/client"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
)

// TestControllerFollowerCatchesUpFromSnapshot: a follower is down while the
// group changes and the leader compacts its log behind a snapshot; back up,
// the follower receives the snapshot (InstallSnapshot) and holds the same
// state as the leader.
func TestControllerFollowerCatchesUpFromSnapshot(t *testing.T) {
	var lns []net.Listener
	var peers []string
	for i := 0; i < 3; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		peers = append(peers, fmt.Sprintf("n%d-%s", i, ln.Addr()))
	}
	dir := t.TempDir()
	start := func(i int, ln net.Listener) *controller.Controller {
		t.Helper()
		cfg := controller.NewConfig()
		cfg.ControllerDLegerGroup = "group1"
		cfg.ControllerDLegerPeers = strings.Join(peers, ";")
		cfg.ControllerDLegerSelfId = fmt.Sprintf("n%d", i)
		cfg.ControllerStorePath = dir
		cfg.Listener = ln
		cfg.RaftHeartbeatTimeout, cfg.RaftElectionTimeout, cfg.RaftLeaderLeaseTimeout = 300*time.Millisecond, 300*time.Millisecond, 150*time.Millisecond
		cfg.RaftTrailingLogs = 1
		c, err := controller.New(cfg, zaptest.NewLogger(t).Named(cfg.ControllerDLegerSelfId))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
		return c
	}
	cl := &testutil.ControllerCluster{}
	for i, ln := range lns {
		cl.Nodes = append(cl.Nodes, start(i, ln))
		cl.Addrs = append(cl.Addrs, ln.Addr().String())
	}
	leader := cl.Leader(t)
	var follower int
	for i, n := range cl.Nodes {
		if n != leader {
			follower = i
			break
		}
	}
	if err := cl.Nodes[follower].Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}

	rc := remoting.NewClient(nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	cc := client.New(rc, cl.Addrs, nil)
	for id := int64(1); id <= 3; id++ {
		if err := cc.ApplyBrokerID(t.Context(), "DefaultCluster", "broker-a", id, fmt.Sprintf("127.0.0.1:%d;1", 30900+id)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cc.ElectMaster(t.Context(), "DefaultCluster", "broker-a", 2, false); err != nil {
		t.Fatal(err)
	}
	if err := leader.Snapshot(); err != nil {
		t.Fatal(err)
	}

	var ln net.Listener
	testutil.Eventually(t, 10*time.Second, func() error {
		var err error
		ln, err = net.Listen("tcp", cl.Addrs[follower])
		return err
	})
	back := start(follower, ln)
	want, _, _ := groupOf(leader, "broker-a")
	testutil.Eventually(t, 20*time.Second, func() error {
		rep, st, ok := groupOf(back, "broker-a")
		if !ok || len(rep.Brokers) != 3 || st.MasterBrokerID == nil || *st.MasterBrokerID != 2 || rep.NextAssignBrokerID != want.NextAssignBrokerID {
			return fmt.Errorf("follower state %+v %+v", rep, st)
		}
		return nil
	})
}
