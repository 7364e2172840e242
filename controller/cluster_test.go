package controller_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/controller"
	"github.com/rocketmq-go/rmq/controller/client"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// fakeBroker is what the controller sees of a broker: its own remoting
// client (so killing it closes its connections), heartbeats every 100 ms,
// and a server at its address that records NOTIFY_BROKER_ROLE_CHANGED.
type fakeBroker struct {
	id       int64
	addr     string
	rc       *remoting.Client
	cc       *client.Client
	offset   atomic.Int64
	notified atomic.Pointer[codec.RemotingCommand]
	stop     chan struct{}
	wg       sync.WaitGroup
}

func startFakeBroker(t *testing.T, cl *testutil.ControllerCluster) *fakeBroker {
	t.Helper()
	cfg := remoting.NewNettyServerConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	srv, err := remoting.NewServer(cfg, zaptest.NewLogger(t).Named("broker"))
	if err != nil {
		t.Fatal(err)
	}
	b := &fakeBroker{stop: make(chan struct{})}
	srv.RegisterProcessor(code.NotifyBrokerRoleChanged, remoting.ProcessorFunc(func(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		b.notified.Store(req)
		return nil, nil
	}), remoting.NewPool("notify", 1, 16))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	b.addr = srv.Addr().String()
	b.rc = remoting.NewClient(nil, zaptest.NewLogger(t).Named("brokerClient"))
	b.cc = client.New(b.rc, cl.Addrs, nil)
	t.Cleanup(func() {
		b.kill()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return b
}

// register obtains an id the 5.3 way and registers.
func (b *fakeBroker) register(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	id, err := b.cc.GetNextBrokerID(ctx, "DefaultCluster", "broker-a")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.cc.ApplyBrokerID(ctx, "DefaultCluster", "broker-a", id, client.RegisterCheckCode(b.addr, time.Now())); err != nil {
		t.Fatal(err)
	}
	b.id = id
	if _, err := b.cc.RegisterBroker(ctx, "DefaultCluster", "broker-a", id, b.addr); err != nil {
		t.Fatal(err)
	}
}

func (b *fakeBroker) heartbeatLoop(epoch *atomic.Int32) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		tk := time.NewTicker(100 * time.Millisecond)
		defer tk.Stop()
		for {
			h := &header.BrokerHeartbeatRequestHeader{ClusterName: "DefaultCluster", BrokerName: "broker-a", BrokerAddr: b.addr,
				BrokerID: header.Int64(b.id), Epoch: header.Int32(epoch.Load()), MaxOffset: header.Int64(b.offset.Load()),
				ConfirmOffset: header.Int64(b.offset.Load()), HeartbeatTimeoutMills: header.Int64(1500)}
			_ = b.cc.BrokerHeartbeat(context.Background(), h)
			select {
			case <-b.stop:
				return
			case <-tk.C:
			}
		}
	}()
}

// kill stops heartbeats and closes the broker's connections, as a killed
// process would.
func (b *fakeBroker) kill() {
	select {
	case <-b.stop:
		return
	default:
	}
	close(b.stop)
	b.wg.Wait()
	_ = b.rc.Shutdown(context.Background())
}

// TestControllerClusterFailover: three controllers, three brokers register
// through controller/client and the first becomes master; the SyncStateSet
// grows; followers refuse writes with CONTROLLER_NOT_LEADER and name the
// leader; the leader is shut down, another takes over with the state intact;
// then the master broker dies and the new leader elects the live
// SyncStateSet member with the highest offset and notifies the group.
func TestControllerClusterFailover(t *testing.T) {
	cl := testutil.StartControllers(t, 3)
	leader := cl.Leader(t)

	var epoch atomic.Int32
	epoch.Store(0)
	brokers := make([]*fakeBroker, 3)
	for i := range brokers {
		brokers[i] = startFakeBroker(t, cl)
		brokers[i].register(t)
		if brokers[i].id != int64(i+1) {
			t.Fatalf("broker %d got id %d", i, brokers[i].id)
		}
		brokers[i].heartbeatLoop(&epoch)
	}
	ctx := t.Context()
	cc := brokers[0].cc
	// Wait until every controller saw every heartbeat.
	testutil.Eventually(t, 10*time.Second, func() error {
		for _, n := range cl.Nodes {
			for _, b := range brokers {
				if !n.Heartbeats().IsActive("DefaultCluster", "broker-a", b.id) {
					return fmt.Errorf("%s has no heartbeat of %d", n.SelfID(), b.id)
				}
			}
		}
		return nil
	})

	el, err := cc.ElectMaster(ctx, "DefaultCluster", "broker-a", 1, false)
	if err != nil || el.Code != code.Success || *el.Header.MasterBrokerID != 1 || *el.Header.MasterEpoch != 1 {
		t.Fatalf("first election = %+v, %v", el, err)
	}
	epoch.Store(1)
	set, err := cc.AlterSyncStateSet(ctx, "broker-a", 1, 1, []int64{1, 2, 3}, 1)
	if err != nil || set.SyncStateSetEpoch != 2 {
		t.Fatalf("alter = %+v, %v", set, err)
	}
	// A stale master epoch is fenced.
	var re *remoting.Error
	if _, err := cc.AlterSyncStateSet(ctx, "broker-a", 1, 0, []int64{1, 2}, 2); !errors.As(err, &re) || re.Code != code.ControllerFencedMasterEpoch {
		t.Fatalf("stale alter: %v", err)
	}

	// Followers refuse writes and name the leader.
	rc := remoting.NewClient(nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	for i, n := range cl.Nodes {
		if n == leader {
			continue
		}
		ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
		resp, err := rc.InvokeSync(ictx, cl.Addrs[i], codec.NewRequest(code.ControllerGetNextBrokerId,
			(&header.GetNextBrokerIdRequestHeader{ClusterName: "DefaultCluster", BrokerName: "broker-a"}).ToExtFields(), nil))
		cancel()
		if err != nil || resp.Code != code.ControllerNotLeader {
			t.Fatalf("follower %s answered %v, %v", n.SelfID(), resp, err)
		}
		md, err := cc.GetMetaData(ctx, cl.Addrs[i])
		if err != nil || md.IsLeader || md.ControllerLeaderAddress != leader.Addr().String() || md.Group != "group1" {
			t.Fatalf("follower metadata = %+v, %v (leader %s)", md, err, leader.Addr())
		}
	}

	// Kill the leader: another takes over with the state intact.
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	if err := leader.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	rest := &testutil.ControllerCluster{}
	for _, n := range cl.Nodes {
		if n != leader {
			rest.Nodes = append(rest.Nodes, n)
		}
	}
	newLeader := rest.Leader(t)
	var info *client.ReplicaInfo
	testutil.Eventually(t, 10*time.Second, func() error {
		info, err = cc.GetReplicaInfo(ctx, "broker-a")
		return err
	})
	if *info.Header.MasterBrokerID != 1 || *info.Header.MasterEpoch != 1 || info.SyncStateSet.SyncStateSetEpoch != 2 ||
		fmt.Sprint(info.SyncStateSet.SyncStateSet) != "[1 2 3]" || cc.Leader() != newLeader.Addr().String() {
		t.Fatalf("state after leader change: %+v %+v (leader %q)", info.Header, info.SyncStateSet, cc.Leader())
	}

	// The master broker dies; 3 holds more data than 2, so 3 wins.
	brokers[2].offset.Store(500)
	brokers[1].offset.Store(400)
	testutil.Eventually(t, 5*time.Second, func() error {
		li, ok := newLeader.Heartbeats().LiveInfo("DefaultCluster", "broker-a", 3)
		if !ok || li.MaxOffset != 500 {
			return fmt.Errorf("offset of 3 not seen yet: %+v", li)
		}
		return nil
	})
	brokers[0].kill()
	testutil.Eventually(t, 15*time.Second, func() error {
		info, err = brokers[1].cc.GetReplicaInfo(ctx, "broker-a")
		if err != nil {
			return err
		}
		if info.Header.MasterBrokerID == nil || *info.Header.MasterBrokerID != 3 {
			return fmt.Errorf("master = %v", info.Header.MasterBrokerID)
		}
		return nil
	})
	if *info.Header.MasterEpoch != 2 || info.Header.MasterAddress != brokers[2].addr || fmt.Sprint(info.SyncStateSet.SyncStateSet) != "[3]" {
		t.Fatalf("after failover: %+v %+v", info.Header, info.SyncStateSet)
	}
	for _, b := range brokers[1:] {
		testutil.Eventually(t, 5*time.Second, func() error {
			n := b.notified.Load()
			if n == nil {
				return fmt.Errorf("broker %d not notified", b.id)
			}
			var h header.NotifyBrokerRoleChangedRequestHeader
			if err := h.FromExtFields(n.ExtFields); err != nil {
				return err
			}
			if h.MasterAddress != brokers[2].addr || *h.MasterBrokerID != 3 || *h.MasterEpoch != 2 || string(n.Body) != `{"syncStateSet":[3],"syncStateSetEpoch":3}` {
				return fmt.Errorf("notify = %+v %s", h, n.Body)
			}
			return nil
		})
	}
	// newLeader may have lost leadership meanwhile (a slow machine misses
	// 300 ms heartbeats); as a follower it applies the election shortly.
	testutil.Eventually(t, 5*time.Second, func() error {
		var st controller.SyncStateInfo
		newLeader.FSM().Read(func(m *controller.ReplicasInfoManager) { _, st, _ = m.Group("broker-a") })
		if st.SyncStateSetEpoch != 3 {
			return fmt.Errorf("leader state %+v", st)
		}
		return nil
	})
}
