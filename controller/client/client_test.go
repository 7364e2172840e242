package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// fakeController serves the controller codes: a follower names leaderAddr and
// refuses writes with CONTROLLER_NOT_LEADER; a leader answers with canned
// 5.x-shaped answers and records what it received.
type fakeController struct {
	srv      *remoting.Server
	leader   atomic.Bool
	leaderOf func() string
	got      atomic.Pointer[codec.RemotingCommand]
	beats    atomic.Int32
}

func startFake(t *testing.T, leaderOf func() string) *fakeController {
	t.Helper()
	cfg := remoting.NewNettyServerConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	srv, err := remoting.NewServer(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeController{srv: srv, leaderOf: leaderOf}
	srv.RegisterDefaultProcessor(remoting.ProcessorFunc(f.serve), remoting.NewPool("fake", 4, 64))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return f
}

func (f *fakeController) addr() string { return f.srv.Addr().String() }

func (f *fakeController) serve(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	switch req.Code {
	case code.ControllerGetMetadataInfo:
		resp := codec.NewResponse(code.Success, "")
		resp.ExtFields = (&header.GetMetaDataResponseHeader{Group: "group1", ControllerLeaderID: "n1",
			ControllerLeaderAddress: f.leaderOf(), IsLeader: f.leader.Load(), Peers: "n0:x;n1:y;"}).ToExtFields()
		return resp, nil
	case code.BrokerHeartbeat:
		f.beats.Add(1)
		return nil, nil
	}
	if !f.leader.Load() {
		return codec.NewResponse(code.ControllerNotLeader, "The controller is not in leader state"), nil
	}
	f.got.Store(req)
	resp := codec.NewResponse(code.Success, "")
	switch req.Code {
	case code.ControllerGetNextBrokerId:
		resp.ExtFields = (&header.GetNextBrokerIdResponseHeader{ClusterName: "c", BrokerName: "b", NextBrokerID: header.Int64(2)}).ToExtFields()
	case code.ControllerApplyBrokerId:
		if req.Ext("appliedBrokerId") != "2" {
			return codec.NewResponse(code.ControllerBrokerIdInvalid, "Fail to apply brokerId"), nil
		}
	case code.ControllerRegisterBroker:
		resp.ExtFields = (&header.RegisterBrokerToControllerResponseHeader{ClusterName: "c", BrokerName: "b",
			MasterBrokerID: header.Int64(1), MasterAddress: "m:1", MasterEpoch: header.Int32(1), SyncStateSetEpoch: header.Int32(1)}).ToExtFields()
		resp.Body = (&body.SyncStateSet{SyncStateSet: []int64{1}, SyncStateSetEpoch: 1}).Encode()
	case code.ControllerElectMaster:
		resp.Code = code.ControllerMasterStillExist
		resp.ExtFields = (&header.ElectMasterResponseHeader{MasterBrokerID: header.Int64(1), MasterAddress: "m:1",
			MasterEpoch: header.Int32(1), SyncStateSetEpoch: header.Int32(1)}).ToExtFields()
		resp.Body = (&body.ElectMasterResponseBody{SyncStateSet: []int64{1}}).Encode()
	case code.ControllerAlterSyncStateSet:
		s, err := body.DecodeSyncStateSet(req.Body)
		if err != nil {
			return nil, err
		}
		resp.ExtFields = (&header.AlterSyncStateSetResponseHeader{NewSyncStateSetEpoch: s.SyncStateSetEpoch + 1}).ToExtFields()
		resp.Body = (&body.SyncStateSet{SyncStateSet: s.SyncStateSet, SyncStateSetEpoch: s.SyncStateSetEpoch + 1}).Encode()
	case code.ControllerGetSyncStateData:
		one := int64(1)
		resp.Body = (&body.BrokerReplicasInfo{ReplicasInfoTable: map[string]*body.ReplicasInfo{"b": {MasterBrokerID: &one,
			MasterAddress: "m:1", MasterEpoch: 1, SyncStateSetEpoch: 1,
			InSyncReplicas: []body.ReplicaIdentity{{BrokerName: "b", BrokerID: 1, BrokerAddress: "m:1", Alive: true}}}}}).Encode()
	}
	return resp, nil
}

// TestControllerClientFindsLeaderAndRetries: the client asks a follower who
// leads, sends writes there, and after the leader changes (the old one
// answers CONTROLLER_NOT_LEADER) finds the new leader and retries.
func TestControllerClientFindsLeaderAndRetries(t *testing.T) {
	var leader atomic.Pointer[string]
	leaderOf := func() string { return *leader.Load() }
	a, b := startFake(t, leaderOf), startFake(t, leaderOf)
	lb := b.addr()
	leader.Store(&lb)
	b.leader.Store(true)

	rc := remoting.NewClient(nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	cc := New(rc, ParseAddrs(a.addr()+"; "+b.addr()), zaptest.NewLogger(t))
	ctx := t.Context()

	id, err := cc.GetNextBrokerID(ctx, "c", "b")
	if err != nil || id != 2 {
		t.Fatalf("GetNextBrokerID = %d, %v", id, err)
	}
	if cc.Leader() != b.addr() {
		t.Fatalf("leader = %q, want %q", cc.Leader(), b.addr())
	}
	if got := b.got.Load(); got.Ext("clusterName") != "c" || got.Ext("brokerName") != "b" {
		t.Fatalf("leader received %v", got.ExtFields)
	}
	if err := cc.ApplyBrokerID(ctx, "c", "b", 2, RegisterCheckCode("127.0.0.1:30911", time.UnixMilli(5))); err != nil {
		t.Fatal(err)
	}
	if got := b.got.Load().Ext("registerCheckCode"); got != "127.0.0.1:30911;5" {
		t.Fatalf("registerCheckCode = %q", got)
	}
	var re *remoting.Error
	if err := cc.ApplyBrokerID(ctx, "c", "b", 3, "x;1"); !errors.As(err, &re) || re.Code != code.ControllerBrokerIdInvalid {
		t.Fatalf("apply taken id: %v", err)
	}

	// Leadership moves to a: b now refuses, the client must follow.
	la := a.addr()
	leader.Store(&la)
	b.leader.Store(false)
	a.leader.Store(true)
	reg, err := cc.RegisterBroker(ctx, "c", "b", 2, "127.0.0.1:30921")
	if err != nil {
		t.Fatal(err)
	}
	if cc.Leader() != a.addr() || *reg.Header.MasterBrokerID != 1 || reg.Header.MasterAddress != "m:1" ||
		len(reg.SyncStateSet.SyncStateSet) != 1 || reg.SyncStateSet.SyncStateSetEpoch != 1 {
		t.Fatalf("register = %+v, leader %q", reg, cc.Leader())
	}
	if got := a.got.Load(); got.Ext("brokerAddress") != "127.0.0.1:30921" || got.Ext("brokerId") != "2" {
		t.Fatalf("register sent %v", got.ExtFields)
	}

	el, err := cc.ElectMaster(ctx, "c", "b", 2, false)
	if err != nil || el.Code != code.ControllerMasterStillExist || *el.Header.MasterBrokerID != 1 {
		t.Fatalf("elect = %+v, %v", el, err)
	}
	set, err := cc.AlterSyncStateSet(ctx, "b", 1, 1, []int64{1, 2}, 1)
	if err != nil || set.SyncStateSetEpoch != 2 || len(set.SyncStateSet) != 2 {
		t.Fatalf("alter = %+v, %v", set, err)
	}
	if got := a.got.Load(); got.Ext("masterBrokerId") != "1" || got.Ext("masterEpoch") != "1" {
		t.Fatalf("alter sent %v", got.ExtFields)
	}
	data, err := cc.GetSyncStateData(ctx, []string{"b"})
	if err != nil || data.ReplicasInfoTable["b"] == nil || data.ReplicasInfoTable["b"].InSyncReplicas[0].BrokerAddress != "m:1" {
		t.Fatalf("sync state data = %+v, %v", data, err)
	}
	if got := string(a.got.Load().Body); got != `["b"]` {
		t.Fatalf("sync state request body %s", got)
	}
}

// TestControllerClientHeartbeatToAll: BROKER_HEARTBEAT goes oneway to every
// configured controller, as 5.x brokers send it.
func TestControllerClientHeartbeatToAll(t *testing.T) {
	a, b := startFake(t, nil), startFake(t, nil)
	rc := remoting.NewClient(nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	cc := New(rc, []string{a.addr(), b.addr()}, nil)
	h := &header.BrokerHeartbeatRequestHeader{ClusterName: "c", BrokerName: "b", BrokerAddr: "x:1", BrokerID: header.Int64(1)}
	if err := cc.BrokerHeartbeat(t.Context(), h); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for a.beats.Load() != 1 || b.beats.Load() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("beats a=%d b=%d", a.beats.Load(), b.beats.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestControllerClientNoLeader: no controller answers → ErrNoLeader.
func TestControllerClientNoLeader(t *testing.T) {
	a := startFake(t, func() string { return "" })
	rc := remoting.NewClient(nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	cc := New(rc, []string{a.addr()}, nil)
	if _, err := cc.GetNextBrokerID(t.Context(), "c", "b"); !errors.Is(err, ErrNoLeader) {
		t.Fatalf("err = %v", err)
	}
}

// TestControllerClientMetadataError: a GET_METADATA_INFO answer other than
// SUCCESS (a name server without the controller answers
// REQUEST_CODE_NOT_SUPPORTED) is an error, not an empty leader.
func TestControllerClientMetadataError(t *testing.T) {
	cfg := remoting.NewNettyServerConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	srv, err := remoting.NewServer(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	rc := remoting.NewClient(nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	cc := New(rc, []string{srv.Addr().String()}, nil)
	var re *remoting.Error
	if _, err := cc.GetMetaData(t.Context(), srv.Addr().String()); !errors.As(err, &re) || re.Code != code.RequestCodeNotSupported {
		t.Fatalf("err = %v", err)
	}
}

// TestControllerClientHeartbeatNotDelayedByDeadController: a controller
// whose connection never completes (its accept backlog is full, as with a
// blackholed host) must not hold back the heartbeat to the live one.
func TestControllerClientHeartbeatNotDelayedByDeadController(t *testing.T) {
	live := startFake(t, nil)
	dead := blackhole(t)
	rc := remoting.NewClient(nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	cc := New(rc, []string{dead, live.addr()}, nil)
	h := &header.BrokerHeartbeatRequestHeader{ClusterName: "c", BrokerName: "b", BrokerAddr: "x:1", BrokerID: header.Int64(1)}
	done := make(chan error, 1)
	go func() { done <- cc.BrokerHeartbeat(context.Background(), h) }()
	deadline := time.Now().Add(2 * time.Second)
	for live.beats.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("heartbeat to the live controller waited for the dead one")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := <-done; err == nil {
		t.Fatal("no error for the unreachable controller")
	}
}

// blackhole returns an address whose TCP connects hang: a socket listening
// with backlog 0 that never accepts, its one queue slot already taken.
func blackhole(t *testing.T) string {
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
	filler, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = filler.Close() })
	return addr
}
