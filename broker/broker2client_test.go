package broker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func resetReq(topic, group string, ts int64, force bool) *codec.RemotingCommand {
	h := header.ResetOffsetRequestHeader{Topic: topic, Group: group, Timestamp: ts, IsForce: force}
	return codec.NewRequest(code.InvokeBrokerToResetOffset, h.ToExtFields(), nil)
}

func TestBrokerBroker2ClientResetOffset(t *testing.T) {
	b := testutil.StartBroker(t, "")
	admin := newCMClient(t, b.Addr().String(), "admin")
	cons := newCMClient(t, b.Addr().String(), "192.0.2.2@31")
	sendN(t, admin, "RsTopic", 0, 5)
	testutil.Eventually(t, 5*time.Second, func() error {
		if b.Store().MaxOffsetInQueue("RsTopic", 0) != 5 {
			return errStatusf("not dispatched")
		}
		return nil
	})
	// Unknown group: no offsets on this broker.
	resp := admin.call(resetReq("RsTopic", "cgR", -1, true))
	wantCode(t, resp, code.SystemError)
	if resp.Remark != "THe consumer group <cgR> not exist" {
		t.Fatalf("remark %q", resp.Remark)
	}
	for q := int32(0); q < 4; q++ {
		b.Offsets().CommitOffset("x", "cgR", "RsTopic", q, 0)
	}
	b.Offsets().CommitOffset("x", "cgR", "RsTopic", 0, 2)
	// Offsets known, consumer not online.
	resp = admin.call(resetReq("RsTopic", "cgR", -1, true))
	wantCode(t, resp, code.ConsumerNotOnline)
	if !strings.HasPrefix(resp.Remark, "Consumer not online, so can not reset offset, Group: cgR Topic: RsTopic Timestamp: -1") {
		t.Fatalf("remark %q", resp.Remark)
	}
	wantCode(t, cons.heartbeat("cgR", "", "RsTopic"), code.Success)
	// Reset to the end (timestamp -1) while forcing.
	resp = admin.call(resetReq("RsTopic", "cgR", -1, true))
	wantCode(t, resp, code.Success)
	if resp.Remark != "not set any response code" {
		t.Fatalf("remark %q", resp.Remark)
	}
	var rb body.ResetOffsetBody
	if err := rb.Decode(resp.Body); err != nil {
		t.Fatal(err)
	}
	if got := rb.OffsetTable[body.MessageQueue{Topic: "RsTopic", BrokerName: "broker-a", QueueID: 0}]; got != 5 || len(rb.OffsetTable) != 4 {
		t.Fatalf("reset table %v", rb.OffsetTable)
	}
	if off := b.Offsets().QueryOffset("cgR", "RsTopic", 0); off != 5 {
		t.Fatalf("broker offset after reset %d", off)
	}
	var sent *codec.RemotingCommand
	testutil.Eventually(t, 5*time.Second, func() error {
		if got := cons.received(code.ResetConsumerClientOffset); len(got) > 0 {
			sent = got[0]
			return nil
		}
		return errStatusf("no RESET_CONSUMER_CLIENT_OFFSET")
	})
	if !sent.IsOneway() || sent.Ext("isForce") != "false" || sent.Ext("timestamp") != "-1" || sent.Ext("group") != "cgR" {
		t.Fatalf("reset request flag %d ext %v", sent.Flag, sent.ExtFields)
	}
	var crb body.ResetOffsetBody
	if err := crb.Decode(sent.Body); err != nil || len(crb.OffsetTable) != 4 {
		t.Fatalf("client body %q %v", sent.Body, err)
	}
	// Without force only a move backwards is applied: queue 0 is at 5 and
	// the target (max offset 5) is not behind it, so 5 stays; the reply says so.
	b.Offsets().CommitOffset("x", "cgR", "RsTopic", 1, 0)
	resp = admin.call(resetReq("RsTopic", "cgR", -1, false))
	wantCode(t, resp, code.Success)
	rb = body.ResetOffsetBody{}
	if err := rb.Decode(resp.Body); err != nil {
		t.Fatal(err)
	}
	if got := rb.OffsetTable[body.MessageQueue{Topic: "RsTopic", BrokerName: "broker-a", QueueID: 0}]; got != 5 {
		t.Fatalf("unforced reset of queue 0: %d", got)
	}
}

func TestBrokerBroker2ClientCallConsumer(t *testing.T) {
	b := testutil.StartBroker(t, "")
	admin := newCMClient(t, b.Addr().String(), "admin")
	cons := newCMClient(t, b.Addr().String(), "192.0.2.2@41")
	cons.reply = func(req *codec.RemotingCommand) *codec.RemotingCommand {
		r := codec.NewResponse(code.Success, "")
		r.Body = []byte(`{"properties":{"consumeType":"CONSUME_PASSIVELY"},"jstack":"` + req.Ext("consumerGroup") + `"}`)
		return r
	}
	h := header.GetConsumerRunningInfoRequestHeader{ConsumerGroup: "cgC", ClientID: "192.0.2.2@41"}
	resp := admin.call(codec.NewRequest(code.GetConsumerRunningInfo, h.ToExtFields(), nil))
	wantCode(t, resp, code.SystemError)
	if resp.Remark != "The Consumer <cgC> <192.0.2.2@41> not online" {
		t.Fatalf("remark %q", resp.Remark)
	}
	wantCode(t, cons.heartbeat("cgC", "", "CTopic"), code.Success)
	resp = admin.call(codec.NewRequest(code.GetConsumerRunningInfo, h.ToExtFields(), nil))
	wantCode(t, resp, code.Success)
	if !strings.Contains(string(resp.Body), `"jstack":"cgC"`) {
		t.Fatalf("relayed body %q", resp.Body)
	}
	fwd := cons.received(code.GetConsumerRunningInfo)
	if len(fwd) != 1 || fwd[0].Ext("clientId") != "192.0.2.2@41" || fwd[0].IsOneway() {
		t.Fatalf("forwarded %v", fwd)
	}
	// CONSUME_MESSAGE_DIRECTLY gets the broker name added.
	ch := header.ConsumeMessageDirectlyResultRequestHeader{ConsumerGroup: "cgC", ClientID: "192.0.2.2@41", MsgID: "bad"}
	wantCode(t, admin.call(codec.NewRequest(code.ConsumeMessageDirectly, ch.ToExtFields(), nil)), code.Success)
	direct := cons.received(code.ConsumeMessageDirectly)
	if len(direct) != 1 || direct[0].Ext("brokerName") != "broker-a" {
		t.Fatalf("forwarded %v", direct)
	}
}

func TestBrokerBroker2ClientConsumerStatus(t *testing.T) {
	b := testutil.StartBroker(t, "")
	admin := newCMClient(t, b.Addr().String(), "admin")
	cons := newCMClient(t, b.Addr().String(), "192.0.2.2@51")
	cons.reply = func(req *codec.RemotingCommand) *codec.RemotingCommand {
		r := codec.NewResponse(code.Success, "")
		r.Body = []byte(`{"consumerTable":{},"messageQueueTable":{{"brokerName":"broker-a","queueId":1,"topic":"StTopic"}:7}}`)
		return r
	}
	wantCode(t, cons.heartbeat("cgS", "", "StTopic"), code.Success)
	h := header.GetConsumerStatusRequestHeader{Topic: "StTopic", Group: "cgS"}
	resp := admin.call(codec.NewRequest(code.InvokeBrokerToGetConsumerStatus, h.ToExtFields(), nil))
	wantCode(t, resp, code.Success)
	want := `{"consumerTable":{"192.0.2.2@51":{{"brokerName":"broker-a","queueId":1,"topic":"StTopic"}:7}},"messageQueueTable":{}}`
	if string(resp.Body) != want {
		t.Fatalf("body %s", resp.Body)
	}
	if got := cons.received(code.GetConsumerStatusFromClient); len(got) != 1 || got[0].Ext("topic") != "StTopic" {
		t.Fatalf("status requests %v", got)
	}
}

func TestBrokerBroker2ClientOldClientVersions(t *testing.T) {
	b := testutil.StartBroker(t, "")
	admin := newCMClient(t, b.Addr().String(), "admin")
	old := newCMClient(t, b.Addr().String(), "192.0.2.2@81")
	hb := body.HeartbeatData{ClientID: "192.0.2.2@81", ConsumerDataSet: []body.ConsumerData{{GroupName: "cgOld",
		ConsumeType: "CONSUME_PASSIVELY", MessageModel: "CLUSTERING", ConsumeFromWhere: "CONSUME_FROM_LAST_OFFSET",
		SubscriptionDataSet: []body.SubscriptionData{{Topic: "OldTopic", SubString: "*", ExpressionType: "TAG",
			TagsSet: []string{}, CodeSet: []int32{}}}}}}
	req := codec.NewRequest(code.HeartBeat, nil, hb.Encode())
	req.Version = 20 // V3_0_3_SNAPSHOT
	wantCode(t, old.call(req), code.Success)
	sendN(t, admin, "OldTopic", 0, 1)
	for q := int32(0); q < 4; q++ {
		b.Offsets().CommitOffset("x", "cgOld", "OldTopic", q, 0)
	}
	resp := admin.call(resetReq("OldTopic", "cgOld", -1, true))
	wantCode(t, resp, code.SystemError)
	if resp.Remark != "the client does not support this feature. version=V3_0_3_SNAPSHOT" {
		t.Fatalf("reset remark %q", resp.Remark)
	}
	h := header.GetConsumerRunningInfoRequestHeader{ConsumerGroup: "cgOld", ClientID: "192.0.2.2@81"}
	resp = admin.call(codec.NewRequest(code.GetConsumerRunningInfo, h.ToExtFields(), nil))
	wantCode(t, resp, code.SystemError)
	want := "The Consumer <192.0.2.2@81> Version <V3_0_3_SNAPSHOT> too low to finish, please upgrade it to V3_1_8_SNAPSHOT"
	if resp.Remark != want {
		t.Fatalf("running info remark %q", resp.Remark)
	}
}

// startBrokerWithOptions is testutil.StartBrokerWith with extra broker
// Options (ephemeral ports, temp store, shutdown at cleanup; a zaptest
// logger unless opts has one).
func startBrokerWithOptions(t *testing.T, opts broker.Options, cfgOpts ...testutil.BrokerOption) *broker.Broker {
	t.Helper()
	cfg, scfg := testutil.NewBrokerConfigs(t, "", cfgOpts...)
	srv := broker.NewNettyServerConfig()
	srv.ListenPort, srv.ListenAddr = 0, "127.0.0.1:0"
	opts.ServerConfig, opts.FastListenAddr = srv, "127.0.0.1:0"
	if opts.Logger == nil {
		opts.Logger = zaptest.NewLogger(t).Named("broker")
	}
	b, err := broker.New(cfg, scfg, opts)
	if err != nil {
		t.Fatalf("broker.New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			t.Errorf("broker.Shutdown: %v", err)
		}
	})
	if err := b.Start(); err != nil {
		t.Fatalf("broker.Start: %v", err)
	}
	return b
}

// TestBrokerBroker2ClientSerializeType: every request the broker starts
// toward a client (NOTIFY_CONSUMER_IDS_CHANGED, RESET_CONSUMER_CLIENT_OFFSET,
// GET_CONSUMER_STATUS_FROM_CLIENT, GET_CONSUMER_RUNNING_INFO,
// CONSUME_MESSAGE_DIRECTLY, CHECK_TRANSACTION_STATE,
// PUSH_REPLY_MESSAGE_TO_CLIENT) uses the serialization in force on the
// broker (Java's serializeTypeConfigInThisServer), whatever the client's
// own requests used.
func TestBrokerBroker2ClientSerializeType(t *testing.T) {
	for _, st := range []codec.SerializeType{codec.RocketMQ, codec.JSON} {
		t.Run(st.String(), func(t *testing.T) {
			t.Parallel()
			testBroker2ClientSerializeType(t, st)
		})
	}
}

func testBroker2ClientSerializeType(t *testing.T, st codec.SerializeType) {
	b := startBrokerWithOptions(t, broker.Options{SerializeType: &st})
	if b.SerializeType() != st {
		t.Fatalf("SerializeType() %s, want %s", b.SerializeType(), st)
	}
	addr := b.Addr().String()
	admin := newCMClient(t, addr, "admin")
	cons := newCMClient(t, addr, "192.0.2.2@61")
	pushed := make(chan *codec.RemotingCommand, 1)
	cons.c.RegisterProcessor(code.PushReplyMessageToClient, remoting.ProcessorFunc(
		func(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			pushed <- req
			return codec.NewResponse(code.Success, ""), nil
		}), remoting.NewPool("push", 1, 4))
	cons.reply = func(*codec.RemotingCommand) *codec.RemotingCommand {
		r := codec.NewResponse(code.Success, "")
		r.Body = []byte(`{"consumerTable":{},"messageQueueTable":{}}`)
		return r
	}
	wantCode(t, cons.heartbeat("cgSer", "pgSer", "SerTopic"), code.Success)
	sendN(t, admin, "SerTopic", 0, 1)
	for q := int32(0); q < 4; q++ {
		b.Offsets().CommitOffset("x", "cgSer", "SerTopic", q, 0)
	}
	wantCode(t, admin.call(resetReq("SerTopic", "cgSer", -1, true)), code.Success)
	sh := header.GetConsumerStatusRequestHeader{Topic: "SerTopic", Group: "cgSer"}
	wantCode(t, admin.call(codec.NewRequest(code.InvokeBrokerToGetConsumerStatus, sh.ToExtFields(), nil)), code.Success)
	rh := header.GetConsumerRunningInfoRequestHeader{ConsumerGroup: "cgSer", ClientID: "192.0.2.2@61"}
	wantCode(t, admin.call(codec.NewRequest(code.GetConsumerRunningInfo, rh.ToExtFields(), nil)), code.Success)
	dh := header.ConsumeMessageDirectlyResultRequestHeader{ConsumerGroup: "cgSer", ClientID: "192.0.2.2@61", MsgID: "x"}
	wantCode(t, admin.call(codec.NewRequest(code.ConsumeMessageDirectly, dh.ToExtFields(), nil)), code.Success)
	ch := b.Producers().FindChannel("192.0.2.2@61")
	if ch == nil {
		t.Fatal("producer channel not registered")
	}
	th := &header.CheckTransactionStateRequestHeader{TranStateTableOffset: 1, CommitLogOffset: 2, MsgID: "m", TransactionID: "m"}
	if err := b.CheckProducerTransactionState("pgSer", ch, th, []byte("rec")); err != nil {
		t.Fatal(err)
	}
	props := map[string]string{message.PropertyMessageReplyToClient: "192.0.2.2@61", message.PropertyCorrelationID: "c1"}
	wantCode(t, admin.call(sendRequest(code.SendReplyMessageV2, sendHeader("DefaultCluster_REPLY_TOPIC", 0, props), []byte("r"))), code.Success)
	select {
	case req := <-pushed:
		if req.SerializeType != st {
			t.Errorf("PUSH_REPLY_MESSAGE_TO_CLIENT serialized %s, want %s", req.SerializeType, st)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reply not pushed")
	}
	codes := []int32{code.NotifyConsumerIdsChanged, code.ResetConsumerClientOffset, code.GetConsumerStatusFromClient,
		code.GetConsumerRunningInfo, code.ConsumeMessageDirectly, code.CheckTransactionState}
	testutil.Eventually(t, 5*time.Second, func() error {
		for _, c := range codes {
			if len(cons.received(c)) == 0 {
				return fmt.Errorf("no request %d yet", c)
			}
		}
		return nil
	})
	for _, c := range codes {
		for _, req := range cons.received(c) {
			if req.SerializeType != st {
				t.Errorf("request %d serialized %s, want %s", c, req.SerializeType, st)
			}
		}
	}
}
