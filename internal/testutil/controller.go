package testutil

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/controller"
)

// ControllerOption adjusts a controller's configuration before start.
type ControllerOption = func(*controller.Config)

// ControllerCluster is a set of in-process controllers forming one Raft
// group on 127.0.0.1 ports chosen by the kernel.
type ControllerCluster struct {
	Nodes []*controller.Controller
	// Addrs are the nodes' addresses, as a broker's controllerAddr lists them.
	Addrs []string
	// Peers is the controllerDLegerPeers value.
	Peers string
}

// ControllerAddr is the value of a broker's controllerAddr key.
func (c *ControllerCluster) ControllerAddr() string { return strings.Join(c.Addrs, ";") }

// Leader waits until exactly one running node serves as leader and returns it.
func (c *ControllerCluster) Leader(t testing.TB) *controller.Controller {
	t.Helper()
	var leader *controller.Controller
	Eventually(t, 20*time.Second, func() error {
		leader = nil
		for _, n := range c.Nodes {
			if n.IsLeader() {
				if leader != nil {
					return fmt.Errorf("two leaders: %s and %s", leader.SelfID(), n.SelfID())
				}
				leader = n
			}
		}
		if leader == nil {
			return fmt.Errorf("no controller leader yet")
		}
		return nil
	})
	return leader
}

// StartControllers starts n controllers (ids n0, n1, ...) with their Raft
// state in t.TempDir(), fast Raft timeouts (300 ms) and 200 ms scans, and
// shuts them down when the test ends. Listeners are bound before the peers
// string is built, so the addresses are fixed without a port race.
func StartControllers(t testing.TB, n int, opts ...ControllerOption) *ControllerCluster {
	t.Helper()
	cl := &ControllerCluster{}
	lns := make([]net.Listener, n)
	var peers []string
	for i := range lns {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns[i] = ln
		cl.Addrs = append(cl.Addrs, ln.Addr().String())
		peers = append(peers, fmt.Sprintf("n%d-%s", i, ln.Addr()))
	}
	cl.Peers = strings.Join(peers, ";")
	dir := t.TempDir()
	for i, ln := range lns {
		cfg := controller.NewConfig()
		cfg.ControllerDLegerGroup = "group1"
		cfg.ControllerDLegerPeers = cl.Peers
		cfg.ControllerDLegerSelfId = fmt.Sprintf("n%d", i)
		cfg.ControllerStorePath = dir
		cfg.ConfigStorePath = filepath.Join(dir, cfg.ControllerDLegerSelfId+".properties")
		cfg.Listener = ln
		cfg.ScanNotActiveBrokerInterval = 200
		cfg.ScanInactiveMasterInterval = 200
		cfg.RaftHeartbeatTimeout = 300 * time.Millisecond
		cfg.RaftElectionTimeout = 300 * time.Millisecond
		cfg.RaftLeaderLeaseTimeout = 150 * time.Millisecond
		for _, o := range opts {
			o(cfg)
		}
		c, err := controller.New(cfg, zaptest.NewLogger(t).Named(cfg.ControllerDLegerSelfId))
		if err != nil {
			t.Fatalf("controller.New: %v", err)
		}
		if err := c.Start(); err != nil {
			t.Fatalf("controller.Start: %v", err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
			defer cancel()
			if err := c.Shutdown(ctx); err != nil {
				t.Errorf("controller.Shutdown: %v", err)
				if errors.Is(err, context.DeadlineExceeded) {
					logGoroutines(t)
				}
			}
		})
		cl.Nodes = append(cl.Nodes, c)
	}
	return cl
}

// logGoroutines logs every goroutine's stack, to show what a shutdown that
// timed out still waits for.
func logGoroutines(t testing.TB) {
	var b strings.Builder
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	t.Logf("goroutines:\n%s", b.String())
}
