package controller_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/controller"
	ctlclient "github.com/rocketmq-go/rmq/controller/client"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
)

// recHost records what the manager asks of the broker.
type recHost struct {
	mu       sync.Mutex
	masterOf []int32 // epochs of ChangeToMaster
	slaveOf  []int64 // master ids of ChangeToSlave
	fenced   bool
}

func (h *recHost) ChangeToMaster(_ context.Context, epoch int32, _ int64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.masterOf = append(h.masterOf, epoch)
	return nil
}

func (h *recHost) ChangeToSlave(_ context.Context, _ string, masterID int64, _ int32, _ int64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.slaveOf = append(h.slaveOf, masterID)
	return nil
}

func (h *recHost) SetSyncStateSet([]int64)             {}
func (h *recHost) ShrinkSyncStateSet() ([]int64, bool) { return nil, false }
func (h *recHost) ReplicaState() (int32, int64, int64) { return 0, 0, 0 }
func (h *recHost) SetFenced(f bool)                    { h.mu.Lock(); h.fenced = f; h.mu.Unlock() }
func (h *recHost) snapshot() ([]int32, []int64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.masterOf, h.slaveOf, h.fenced
}
func (h *recHost) String() string { m, s, f := h.snapshot(); return fmt.Sprint(m, s, f) }

func startManager(t *testing.T, ctlAddr, storeRoot, brokerName, addr string, h controller.Host) *controller.Manager {
	t.Helper()
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("rc"))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	cfg := controller.Config{
		ClusterName: "DefaultCluster", BrokerName: brokerName, BrokerAddr: addr,
		MetadataPath:      controller.MetadataPath(storeRoot),
		HeartbeatInterval: 100 * time.Millisecond, SendHeartbeatTimeout: time.Second, HeartbeatTimeout: 3 * time.Second,
		SyncBrokerMetadataPeriod: 300 * time.Millisecond, CheckSyncStateSetPeriod: time.Second, SyncControllerMetadata: time.Second,
		RetryInterval: time.Second,
	}
	m := controller.New(cfg, rc, ctlclient.New(rc, ctlclient.ParseAddrs(ctlAddr), nil), h, zaptest.NewLogger(t).Named(addr))
	m.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return m
}

// TestReplicasManagerIdentity: the first broker of a group gets id 1 and
// becomes master; a broker that crashed after writing brokerIdentity-temp
// resumes with the id in it (APPLY_BROKER_ID with its check code) rather
// than asking for the next, persists brokerIdentity and drops the temp
// file; a temp id another broker holds is given up for the next free one;
// a store whose brokerIdentity names another group never registers.
func TestReplicasManagerIdentity(t *testing.T) {
	cl := testutil.StartControllers(t, 1)
	tempOf := func(dir string) string { return controller.TempMetadataPath(controller.MetadataPath(dir)) }

	dirB := t.TempDir()
	hb := &recHost{}
	b := startManager(t, cl.ControllerAddr(), dirB, "broker-x", "127.0.0.1:2", hb)
	testutil.Eventually(t, 20*time.Second, func() error {
		if !b.IsMaster() || b.BrokerID() != 1 || b.Fenced() {
			return fmt.Errorf("b: master %v id %d fenced %v host %v", b.IsMaster(), b.BrokerID(), b.Fenced(), hb)
		}
		return nil
	})
	if m, _, fenced := hb.snapshot(); len(m) != 1 || m[0] != b.MasterEpoch() || fenced {
		t.Fatalf("host saw ChangeToMaster %v fenced %v", m, fenced)
	}

	dirA := t.TempDir()
	tmp := controller.Metadata{ClusterName: "DefaultCluster", BrokerName: "broker-x", BrokerID: 5, CheckCode: "127.0.0.1:1;1700000000000"}
	if err := controller.WriteMetadata(tempOf(dirA), tmp, true); err != nil {
		t.Fatal(err)
	}
	ha := &recHost{}
	a := startManager(t, cl.ControllerAddr(), dirA, "broker-x", "127.0.0.1:1", ha)
	testutil.Eventually(t, 20*time.Second, func() error {
		if _, s, _ := ha.snapshot(); a.BrokerID() != 5 || len(s) != 1 || s[0] != 1 || a.IsMaster() {
			return fmt.Errorf("a: id %d host %v", a.BrokerID(), ha)
		}
		return nil
	})
	md, ok, err := controller.ReadMetadata(controller.MetadataPath(dirA), false)
	if err != nil || !ok || md.BrokerID != 5 {
		t.Fatalf("brokerIdentity %+v %v %v", md, ok, err)
	}
	if _, ok, _ := controller.ReadMetadata(tempOf(dirA), true); ok {
		t.Fatal("brokerIdentity-temp left behind")
	}

	dirD := t.TempDir()
	taken := controller.Metadata{ClusterName: "DefaultCluster", BrokerName: "broker-x", BrokerID: 1, CheckCode: "127.0.0.1:4;1700000000000"}
	if err := controller.WriteMetadata(tempOf(dirD), taken, true); err != nil {
		t.Fatal(err)
	}
	hd := &recHost{}
	d := startManager(t, cl.ControllerAddr(), dirD, "broker-x", "127.0.0.1:4", hd)
	testutil.Eventually(t, 20*time.Second, func() error {
		if id := d.BrokerID(); id < 2 || id == 5 {
			return fmt.Errorf("d: id %d, want a free one", id)
		}
		return nil
	})

	dirC := t.TempDir()
	other := controller.Metadata{ClusterName: "DefaultCluster", BrokerName: "broker-y", BrokerID: 7}
	if err := controller.WriteMetadata(controller.MetadataPath(dirC), other, false); err != nil {
		t.Fatal(err)
	}
	hc := &recHost{}
	c := startManager(t, cl.ControllerAddr(), dirC, "broker-x", "127.0.0.1:3", hc)
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if m, s, _ := hc.snapshot(); c.BrokerID() != -1 || len(m)+len(s) != 0 || !c.Fenced() {
			t.Fatalf("broker with another group's identity registered: id %d host %v", c.BrokerID(), hc)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
