package controller_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/controller"
	"github.com/rocketmq-go/rmq/controller/client"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
)

// TestControllerRestartKeepsState: a single controller stopped and started
// again on the same controllerStorePath recovers the replicated state, by
// replaying its Raft log (BoltDB) or from a snapshot that compacted the log.
func TestControllerRestartKeepsState(t *testing.T) {
	t.Run("log", func(t *testing.T) { testControllerRestart(t, false) })
	t.Run("snapshot", func(t *testing.T) { testControllerRestart(t, true) })
}

func testControllerRestart(t *testing.T, snapshot bool) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	dir := t.TempDir()
	newCfg := func(l net.Listener) *controller.Config {
		cfg := controller.NewConfig()
		cfg.ControllerDLegerGroup = "group1"
		cfg.ControllerDLegerPeers = "n0-" + addr
		cfg.ControllerDLegerSelfId = "n0"
		cfg.ControllerStorePath = dir
		cfg.Listener = l
		cfg.RaftHeartbeatTimeout, cfg.RaftElectionTimeout, cfg.RaftLeaderLeaseTimeout = 300*time.Millisecond, 300*time.Millisecond, 150*time.Millisecond
		cfg.RaftTrailingLogs = 1
		return cfg
	}
	start := func(cfg *controller.Config) *controller.Controller {
		t.Helper()
		c, err := controller.New(cfg, zaptest.NewLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
		return c
	}
	rc := remoting.NewClient(nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	cc := client.New(rc, []string{addr}, nil)

	c := start(newCfg(ln))
	testutil.Eventually(t, 20*time.Second, func() error {
		if !c.IsLeader() {
			return fmt.Errorf("not leader yet")
		}
		return nil
	})
	for i, a := range []string{"127.0.0.1:30911", "127.0.0.1:30921"} {
		if err := cc.ApplyBrokerID(t.Context(), "DefaultCluster", "broker-a", int64(i+1), a+";1"); err != nil {
			t.Fatal(err)
		}
	}
	if snapshot {
		if err := c.Snapshot(); err != nil {
			t.Fatal(err)
		}
		if n, _ := filepath.Glob(filepath.Join(dir, "n0", "snapshots", "*", "state.bin")); len(n) != 1 {
			t.Fatalf("snapshots: %v", n)
		}
	}
	if err := c.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}

	var ln2 net.Listener
	testutil.Eventually(t, 10*time.Second, func() error {
		var err error
		ln2, err = net.Listen("tcp", addr)
		return err
	})
	c2 := start(newCfg(ln2))
	testutil.Eventually(t, 20*time.Second, func() error {
		next, err := cc.GetNextBrokerID(t.Context(), "DefaultCluster", "broker-a")
		if err != nil {
			return err
		}
		if next != 3 {
			return fmt.Errorf("next id after restart = %d, want 3", next)
		}
		return nil
	})
	rep, _, ok := groupOf(c2, "broker-a")
	if !ok || rep.Address(2) != "127.0.0.1:30921" {
		t.Fatalf("replicas after restart: %+v", rep)
	}
}

func groupOf(c *controller.Controller, name string) (controller.BrokerReplicaInfo, controller.SyncStateInfo, bool) {
	var (
		r  controller.BrokerReplicaInfo
		s  controller.SyncStateInfo
		ok bool
	)
	c.FSM().Read(func(m *controller.ReplicasInfoManager) { r, s, ok = m.Group(name) })
	return r, s, ok
}
