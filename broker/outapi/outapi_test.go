package outapi

import (
	"bytes"
	"context"
	"hash/crc32"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// fakeNamesrv records the requests it gets and answers with answer(req).
type fakeNamesrv struct {
	mu   sync.Mutex
	reqs []*codec.RemotingCommand
	addr string
}

func startFakeNamesrv(t *testing.T, answer func(req *codec.RemotingCommand) *codec.RemotingCommand) *fakeNamesrv {
	t.Helper()
	cfg := remoting.NewNettyServerConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	srv, err := remoting.NewServer(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeNamesrv{}
	srv.RegisterDefaultProcessor(remoting.ProcessorFunc(func(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		cp := *req
		cp.Body = append([]byte(nil), req.Body...)
		f.mu.Lock()
		f.reqs = append(f.reqs, &cp)
		f.mu.Unlock()
		return answer(req), nil
	}), remoting.NewPool("fake", 2, 100))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	f.addr = srv.Addr().String()
	return f
}

func (f *fakeNamesrv) requests() []*codec.RemotingCommand {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*codec.RemotingCommand(nil), f.reqs...)
}

func newAPI(t *testing.T) *API {
	a := New(nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = a.Shutdown(context.Background()) })
	return a
}

// TestOutAPIRegisterMatchesJava replays the golden 4.9.8 REGISTER_BROKER:
// the same topic table gives the same header (bodyCrc32 included) and body.
func TestOutAPIRegisterMatchesJava(t *testing.T) {
	frame, err := os.ReadFile("/work/shared/golden/frames/frames/json/000001-broker2namesrv-req-REGISTER_BROKER.bin")
	if err != nil {
		t.Skip("golden frames not available:", err)
	}
	golden, err := codec.Decode(frame)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := body.DecodeRegisterBrokerBody(golden.Body, false)
	if err != nil {
		t.Fatal(err)
	}
	if crc := int32(crc32.ChecksumIEEE(golden.Body) & 0x7FFFFFFF); strconv.Itoa(int(crc)) != golden.Ext("bodyCrc32") {
		t.Fatalf("golden bodyCrc32 %s, computed %d", golden.Ext("bodyCrc32"), crc)
	}
	ns := startFakeNamesrv(t, func(*codec.RemotingCommand) *codec.RemotingCommand {
		resp := codec.NewResponse(code.Success, "")
		resp.SetExt("masterAddr", "")
		return resp
	})
	id, _ := strconv.ParseInt(golden.Ext("brokerId"), 10, 64)
	res := newAPI(t).RegisterBrokerAll(context.Background(), []string{ns.addr}, RegisterRequest{
		BrokerIdentity: BrokerIdentity{ClusterName: golden.Ext("clusterName"), BrokerAddr: golden.Ext("brokerAddr"),
			BrokerName: golden.Ext("brokerName"), BrokerID: id},
		HAServerAddr: golden.Ext("haServerAddr"), Topics: &reg.TopicConfigSerializeWrapper,
		FilterServerList: []string{}, Timeout: 3 * time.Second,
	})
	if len(res) != 1 {
		t.Fatalf("results %+v", res)
	}
	got := ns.requests()[0]
	for k, v := range golden.ExtFields {
		if got.Ext(k) != v {
			t.Errorf("ext %s = %q, java %q", k, got.Ext(k), v)
		}
	}
	if !bytes.Equal(got.Body, golden.Body) {
		t.Errorf("body differs from java:\n%s\n%s", got.Body, golden.Body)
	}
}

func TestOutAPIRegisterResultsAndFailures(t *testing.T) {
	ok := startFakeNamesrv(t, func(*codec.RemotingCommand) *codec.RemotingCommand {
		resp := codec.NewResponse(code.Success, "")
		h := header.RegisterBrokerResponseHeader{MasterAddr: "1.2.3.4:10911", HAServerAddr: "1.2.3.4:10912"}
		for k, v := range h.ToExtFields() {
			resp.SetExt(k, v)
		}
		resp.Body = (&body.KVTable{Table: map[string]string{"T": "broker-a:4"}}).Encode()
		return resp
	})
	bad := startFakeNamesrv(t, func(*codec.RemotingCommand) *codec.RemotingCommand {
		return codec.NewResponse(code.SystemError, "nope")
	})
	w := &body.TopicConfigSerializeWrapper{TopicConfigTable: map[string]body.TopicConfig{"T": body.NewTopicConfig("T")}}
	res := newAPI(t).RegisterBrokerAll(context.Background(), []string{ok.addr, bad.addr, "127.0.0.1:1"}, RegisterRequest{
		BrokerIdentity: BrokerIdentity{ClusterName: "c", BrokerAddr: "127.0.0.1:5", BrokerName: "b", BrokerID: 1},
		HAServerAddr:   "127.0.0.1:6", Topics: w, Compressed: true, Timeout: 3 * time.Second,
	})
	if len(res) != 1 || res[0].MasterAddr != "1.2.3.4:10911" || res[0].HaServerAddr != "1.2.3.4:10912" ||
		res[0].KVTable == nil || res[0].KVTable.Table["T"] != "broker-a:4" {
		t.Fatalf("results %+v", res)
	}
	req := ok.requests()[0]
	if req.Ext("compressed") != "true" {
		t.Fatalf("ext %v", req.ExtFields)
	}
	dec, err := body.DecodeRegisterBrokerBody(req.Body, true)
	if err != nil || dec.TopicConfigSerializeWrapper.TopicConfigTable["T"].TopicName != "T" {
		t.Fatalf("compressed body: %v %+v", err, dec)
	}
}

func TestOutAPINeedRegister(t *testing.T) {
	dv := body.DataVersion{Timestamp: 100, Counter: 3}
	answer := func(changed bool, v body.DataVersion) func(*codec.RemotingCommand) *codec.RemotingCommand {
		return func(*codec.RemotingCommand) *codec.RemotingCommand {
			resp := codec.NewResponse(code.Success, "")
			resp.SetExt("changed", strconv.FormatBool(changed))
			resp.Body = v.Encode()
			return resp
		}
	}
	same := startFakeNamesrv(t, answer(false, dv))
	older := startFakeNamesrv(t, answer(false, body.DataVersion{Timestamp: 100, Counter: 2}))
	flagged := startFakeNamesrv(t, answer(true, dv))
	a := newAPI(t)
	id := BrokerIdentity{ClusterName: "c", BrokerAddr: "a:1", BrokerName: "b"}
	for _, tc := range []struct {
		ns   []string
		want bool
	}{
		{[]string{same.addr}, false},
		{[]string{same.addr, older.addr}, true},
		{[]string{flagged.addr}, true},
		{[]string{same.addr, "127.0.0.1:1"}, true}, // unreachable counts as changed
	} {
		if got := a.NeedRegister(context.Background(), tc.ns, id, dv, 3*time.Second); got != tc.want {
			t.Errorf("%v: NeedRegister %v, want %v", tc.ns, got, tc.want)
		}
	}
	req := same.requests()[0]
	if req.Code != code.QueryDataVersion || req.Ext("brokerAddr") != "a:1" || !bytes.Equal(req.Body, dv.Encode()) {
		t.Fatalf("query %+v", req)
	}
}

func TestOutAPIMasterCalls(t *testing.T) {
	w := &body.TopicConfigSerializeWrapper{TopicConfigTable: map[string]body.TopicConfig{"T": body.NewTopicConfig("T")},
		DataVersion: body.DataVersion{Timestamp: 7, Counter: 2}}
	offsets := &body.ConsumerOffsetSerializeWrapper{OffsetTable: map[string]map[int32]int64{"T@g": {0: 5, 1: 9}}}
	subs := &body.SubscriptionGroupWrapper{SubscriptionGroupTable: map[string]body.SubscriptionGroupConfig{"g": body.NewSubscriptionGroupConfig("g")}}
	master := startFakeNamesrv(t, func(req *codec.RemotingCommand) *codec.RemotingCommand {
		resp := codec.NewResponse(code.Success, "")
		switch req.Code {
		case code.GetAllTopicConfig:
			resp.Body = w.AppendJSON(nil)
		case code.GetAllConsumerOffset:
			resp.Body = offsets.Encode()
		case code.GetAllDelayOffset:
			resp.Body = []byte(`{"offsetTable":{1:3}}`)
		case code.GetAllSubscriptiongroupConfig:
			resp.Body = subs.Encode()
		default:
			return codec.NewResponse(code.RequestCodeNotSupported, "")
		}
		return resp
	})
	a := newAPI(t)
	ctx := context.Background()
	gw, err := a.GetAllTopicConfig(ctx, master.addr)
	if err != nil || gw.TopicConfigTable["T"].TopicName != "T" || gw.DataVersion.Counter != 2 {
		t.Fatalf("topic config %+v %v", gw, err)
	}
	go1, err := a.GetAllConsumerOffset(ctx, master.addr)
	if err != nil || go1.OffsetTable["T@g"][1] != 9 {
		t.Fatalf("offsets %+v %v", go1, err)
	}
	d, err := a.GetAllDelayOffset(ctx, master.addr)
	if err != nil || string(d) != `{"offsetTable":{1:3}}` {
		t.Fatalf("delay %q %v", d, err)
	}
	gs, err := a.GetAllSubscriptionGroupConfig(ctx, master.addr)
	if err != nil || gs.SubscriptionGroupTable["g"].GroupName != "g" {
		t.Fatalf("subs %+v %v", gs, err)
	}
}
