package broker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
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
