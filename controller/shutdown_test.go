package controller_test

import (
	"context"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
)

// TestControllerShutdownNotLeader: a stopped node no longer reports itself
// leader, so a caller looking for the leader (ControllerCluster.Leader,
// GET_METADATA_INFO) finds the node the survivors elect, not the dead one.
func TestControllerShutdownNotLeader(t *testing.T) {
	cl := testutil.StartControllers(t, 3)
	old := cl.Leader(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := old.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if old.IsLeader() {
		t.Fatalf("stopped node %s still reports itself leader", old.SelfID())
	}
	if next := cl.Leader(t); next == old {
		t.Fatalf("Leader returned the stopped node %s", old.SelfID())
	}
}
