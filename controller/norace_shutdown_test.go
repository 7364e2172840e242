//go:build !race

package controller_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// TestNoRaceControllerShutdownDuringNotify: an election's
// NOTIFY_BROKER_ROLE_CHANGED to a broker whose host does not answer (the
// connect hangs until connectTimeoutMillis, 3 s) does not hold up the
// controller's Shutdown, which returns within 1 s.
func TestNoRaceControllerShutdownDuringNotify(t *testing.T) {
	cl := testutil.StartControllers(t, 1)
	leader := cl.Leader(t)
	b := startFakeBroker(t, cl)
	b.addr = unreachableAddr(t)
	b.register(t)
	var epoch atomic.Int32
	b.heartbeatLoop(&epoch)
	testutil.Eventually(t, 5*time.Second, func() error {
		if !leader.Heartbeats().IsActive("DefaultCluster", "broker-a", b.id) {
			return errors.New("heartbeat not seen")
		}
		return nil
	})
	if el, err := b.cc.ElectMaster(t.Context(), "DefaultCluster", "broker-a", b.id, false); err != nil || el.Code != code.Success {
		t.Fatalf("election: %+v %v", el, err)
	}
	// The election's notify to b.addr is now connecting.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := leader.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("Shutdown took %v during a notify to an unreachable broker", took)
	}
}

// unreachableAddr is a 127.0.0.1 address where a TCP connect neither
// succeeds nor fails: a listener with a zero backlog whose one queue slot is
// taken, so the kernel drops further SYNs.
func unreachableAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	for i := 0; ; i++ {
		var d net.Dialer
		dctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		conn, err := d.DialContext(dctx, "tcp", addr)
		cancel()
		if err != nil {
			return addr // the queue is full: connects now hang
		}
		t.Cleanup(func() { _ = conn.Close() })
		if i == 10 {
			t.Fatalf("%s keeps accepting connections", addr)
		}
	}
}
