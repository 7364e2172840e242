package controller

import (
	"bytes"
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/wait"
)

// TestControllerShutdownWhileCommitDropped: Shutdown returns while the
// scheduler waits on a committed entry that Raft then drops. The entry
// (E2) is queued for Raft's FSM goroutine behind one (E1) that the FSM is
// still applying when Raft shuts down; hashicorp/raft's FSM loop then picks
// the queued batch or its shutdown at random and, in the second case,
// never answers E2's future. Each round hits that case with probability
// 1/2; six rounds miss it with probability 1/64.
func TestControllerShutdownWhileCommitDropped(t *testing.T) {
	for round := 0; round < 6; round++ {
		shutdownWithQueuedCommit(t)
		if t.Failed() {
			t.Fatalf("round %d", round)
		}
	}
}

func shutdownWithQueuedCommit(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := NewConfig()
	cfg.ControllerDLegerPeers = "n0-" + ln.Addr().String()
	cfg.ControllerDLegerSelfId = "n0"
	cfg.ControllerStorePath = dir
	cfg.ConfigStorePath = filepath.Join(dir, "controller.properties")
	cfg.Listener = ln
	cfg.RaftHeartbeatTimeout, cfg.RaftElectionTimeout, cfg.RaftLeaderLeaseTimeout = 300*time.Millisecond, 300*time.Millisecond, 150*time.Millisecond
	c, err := New(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{})
	c.fsm.applyHook = func(l *raft.Log) {
		if !bytes.Contains(l.Data, []byte(`"gate"`)) {
			return
		}
		close(entered)
		// Hold E1 until Raft has shut down, so that E2 is still queued.
		<-c.stopCh
		for c.raft.State() != raft.Shutdown {
			time.Sleep(time.Millisecond)
		}
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 10*time.Second, func() error {
		if !c.IsLeader() {
			return errNotYet
		}
		return nil
	})
	e1, _ := EncodeEvents([]Event{{Type: EventApplyBrokerID, ClusterName: "c", BrokerName: "gate", BrokerID: 1}})
	f1 := c.raft.Apply(e1, time.Second) // answered once the hook returns
	<-entered
	e2 := make(chan *Result, 1)
	go func() {
		e2 <- c.submit("e2", func(*ReplicasInfoManager) *Result {
			return &Result{Events: []Event{{Type: EventApplyBrokerID, ClusterName: "c", BrokerName: "e2", BrokerID: 1}}}
		})
	}()
	wait.Eventually(t, 10*time.Second, func() error {
		if c.raft.Stats()["fsm_pending"] != "1" {
			return errNotYet
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait.Scale(2*time.Second))
	defer cancel()
	if err := c.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	_ = f1.Error()
	select {
	case r := <-e2:
		t.Logf("e2 answered code %d %s", r.Code, r.Remark)
	case <-time.After(wait.Scale(2 * time.Second)):
		t.Errorf("the request waiting on E2 was not answered")
	}
}

var errNotYet = errors.New("not yet")
