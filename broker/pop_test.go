package broker_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// ackSlack is an invisible time (ms) long enough for a test's acks to
// reach the revive log first, even on a loaded machine under -race.
func ackSlack() int64 { return wait.Scale(750 * time.Millisecond).Milliseconds() }

// fastRevive makes the revive service run every 20 ms.
func fastRevive(cfg *broker.BrokerConfig, _ *store.MessageStoreConfig) { cfg.ReviveInterval = 20 }

// reviveSettled waits until the revive service has read every revive-log
// record written so far and run three more passes, and the store has
// dispatched everything: every checkpoint due before the call has then been
// revived (a pass revives up to the clock snapshot the pass before took),
// so a message that was to come back is in its retry queue.
func (e *consumeEnv) reviveSettled() {
	e.t.Helper()
	from := e.b.PopRevivePasses()
	testutil.Eventually(e.t, 10*time.Second, func() error {
		if n := e.b.PopRevivePasses(); n < from+3 {
			return fmt.Errorf("revive passes since the call: %d", n-from)
		}
		if !e.b.PopReviveCaughtUp() {
			return fmt.Errorf("revive service behind the revive log")
		}
		if n := e.b.Store().DispatchBehindBytes(); n != 0 {
			return fmt.Errorf("dispatch behind by %d bytes", n)
		}
		return nil
	})
}

// popReq builds a POP_MESSAGE. bornTime 0 has the broker stamp the request
// with its own clock when it takes it up (as Java does), so a request that
// waited in a loaded machine's queues is not refused as "timeout too much".
func popReq(group, topic string, queueID, maxNums int32, invisible, poll int64) *codec.RemotingCommand {
	h := &header.PopMessageRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: queueID, MaxMsgNums: maxNums,
		InvisibleTime: invisible, PollTime: poll, BornTime: 0, InitMode: 0, ExpType: "TAG", Exp: "*"}
	return codec.NewRequest(code.PopMessage, h.ToExtFields(), nil)
}

// popped is a popped message with the receipt handle a client builds
// (MQClientAPIImpl.processPopResponse).
type popped struct {
	m      *message.MessageExt
	handle string
}

func (e *consumeEnv) pop(group, topic string, queueID, maxNums int32, invisible, poll int64) (*codec.RemotingCommand, header.PopMessageResponseHeader, []popped) {
	e.t.Helper()
	resp := e.call(popReq(group, topic, queueID, maxNums, invisible, poll))
	var rh header.PopMessageResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		e.t.Fatalf("pop response header: %v (%v)", err, resp.ExtFields)
	}
	if resp.Code != code.Success {
		return resp, rh, nil
	}
	starts, err := pop.ParseStartOffsetInfo(*rh.StartOffsetInfo)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []popped
	for _, m := range decodeBody(e.t, resp.Body) {
		h := m.Properties[pop.PropertyPopCk]
		if h == "" {
			start, ok := starts[pop.InfoKey(m.Topic, m.QueueID)]
			if !ok {
				e.t.Fatalf("no startOffsetInfo for %s/%d in %q", m.Topic, m.QueueID, *rh.StartOffsetInfo)
			}
			h = pop.BuildExtraInfo(start, rh.PopTime, rh.InvisibleTime, rh.ReviveQid, m.Topic, "broker-a", m.QueueID, m.QueueOffset)
		}
		out = append(out, popped{m: m, handle: h})
	}
	return resp, rh, out
}

// realTopic is the topic an ack names: the retry topic for a retry message.
func realTopic(t *testing.T, p popped, group string) string {
	ei, err := pop.ParseExtraInfo(p.handle)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := pop.RealTopic(p.m.Topic, group, ei.Retry)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func (e *consumeEnv) ack(group string, p popped) *codec.RemotingCommand {
	e.t.Helper()
	ei, _ := pop.ParseExtraInfo(p.handle)
	h := &header.AckMessageRequestHeader{ConsumerGroup: group, Topic: realTopic(e.t, p, group), QueueID: ei.QueueID,
		ExtraInfo: p.handle, Offset: ei.QueueOffset}
	return e.call(codec.NewRequest(code.AckMessage, h.ToExtFields(), nil))
}

func TestBrokerPopAckHeadersAndHandles(t *testing.T) {
	e := newConsumeEnv(t, fastRevive)
	for i := range 3 {
		e.send("PopT", 0, map[string]string{"TAGS": "TagA"}, "m"+strconv.Itoa(i))
	}
	e.waitDispatched("PopT", 0, 3)
	resp, rh, got := e.pop("pg1", "PopT", 0, 32, 60_000, 0)
	e.expect(resp, code.Success, "FOUND")
	if len(got) != 3 || rh.InvisibleTime != 60_000 || rh.RestNum != 0 || rh.PopTime == 0 {
		t.Fatalf("pop: %d messages, header %+v", len(got), resp.ExtFields)
	}
	if *rh.StartOffsetInfo != "0 0 0" || *rh.MsgOffsetInfo != "0 0 0,1,2" || rh.OrderCountInfo != nil {
		t.Fatalf("offset infos %q %q", *rh.StartOffsetInfo, *rh.MsgOffsetInfo)
	}
	for _, k := range []string{"popTime", "invisibleTime", "reviveQid", "restNum", "startOffsetInfo", "msgOffsetInfo"} {
		if _, ok := resp.ExtFields[k]; !ok {
			t.Fatalf("response lacks %s: %v", k, resp.ExtFields)
		}
	}
	// Invisible: a second pop finds nothing and says POLLING_TIMEOUT.
	resp, rh, _ = e.pop("pg1", "PopT", 0, 32, 60_000, 0)
	e.expect(resp, code.PollingTimeout, "NO_MESSAGE_IN_QUEUE")
	if _, ok := resp.ExtFields["popTime"]; !ok {
		t.Fatalf("POLLING_TIMEOUT lacks the header primitives: %v", resp.ExtFields)
	}
	for _, p := range got {
		e.expect(e.ack("pg1", p), code.Success, "")
	}
	// An ack of an offset outside the queue is NO_MESSAGE.
	bad := got[0]
	bad.handle = pop.BuildExtraInfo(0, rh.PopTime, 1000, 0, "PopT", "broker-a", 0, 99)
	e.expect(e.ack("pg1", bad), code.NoMessage, "offset is illegal, key:PopT@0, commit:99, store:0~3")
}

func TestBrokerPopRequestChecks(t *testing.T) {
	e := newConsumeEnv(t)
	e.send("PopChk", 0, nil, "x")
	e.waitDispatched("PopChk", 0, 1)
	resp, _, _ := e.pop("g", "PopChk", 0, 33, 1000, 0)
	e.expect(resp, code.InvalidParameter, "the broker[127.0.0.1] pop message's num is greater than 32")
	if resp.ExtFields["popTime"] != "0" || resp.ExtFields["restNum"] != "0" {
		t.Fatalf("error answer header %v", resp.ExtFields)
	}
	resp, _, _ = e.pop("g", "NoSuchTopic", 0, 1, 1000, 0)
	if resp.Code != code.TopicNotExist {
		t.Fatalf("unknown topic: %s", code.ResponseName(resp.Code))
	}
	resp, _, _ = e.pop("g", "PopChk", 99, 1, 1000, 0)
	if resp.Code != code.InvalidParameter {
		t.Fatalf("bad queue: %s", code.ResponseName(resp.Code))
	}
	old := popReq("g", "PopChk", 0, 1, 1000, 100)
	old.ExtFields["bornTime"] = strconv.FormatInt(time.Now().Add(-time.Minute).UnixMilli(), 10)
	e.expect(e.call(old), code.PollingTimeout, "the broker[127.0.0.1] pop message is timeout too much")
	// As in 5.x, POP_MESSAGE is not served on the fast (VIP) port; ACK is.
	fast := &consumeEnv{t: t, b: e.b, c: e.c, addr: e.b.FastAddr().String()}
	if resp := fast.call(popReq("g", "PopChk", 0, 1, 1000, 0)); resp.Code != code.RequestCodeNotSupported {
		t.Fatalf("pop on the fast port: %s", code.ResponseName(resp.Code))
	}
	ack := &header.AckMessageRequestHeader{ConsumerGroup: "g", Topic: "PopChk", QueueID: 0, ExtraInfo: "0 1 1 0 0 broker-a 0 0", Offset: 5}
	if resp := fast.call(codec.NewRequest(code.AckMessage, ack.ToExtFields(), nil)); resp.Code != code.NoMessage {
		t.Fatalf("ack on the fast port: %s", code.ResponseName(resp.Code))
	}
}

// TestBrokerPopInvisibleRevivedAckedNot: unacked messages come back through
// the retry topic after their invisible time with reconsumeTimes+1 and a
// POP_CK set by the broker; acked ones never come back.
func TestBrokerPopInvisibleRevivedAckedNot(t *testing.T) {
	e := newConsumeEnv(t, fastRevive)
	for i := range 4 {
		e.send("PopRv", 0, map[string]string{"TAGS": "T"}, "m"+strconv.Itoa(i))
	}
	e.waitDispatched("PopRv", 0, 4)
	_, _, got := e.pop("rg", "PopRv", 0, 32, ackSlack(), 0)
	if len(got) != 4 {
		t.Fatalf("popped %d", len(got))
	}
	e.expect(e.ack("rg", got[0]), code.Success, "")
	e.expect(e.ack("rg", got[2]), code.Success, "")
	seen := map[string]popped{}
	testutil.Eventually(t, 10*time.Second, func() error {
		_, _, more := e.pop("rg", "PopRv", -1, 32, 60_000, 0)
		for _, p := range more {
			seen[string(p.m.Body)] = p
		}
		if len(seen) < 2 {
			return fmt.Errorf("revived so far: %d", len(seen))
		}
		return nil
	})
	for _, b := range []string{"m1", "m3"} {
		p, ok := seen[b]
		if !ok {
			t.Fatalf("%s not revived; got %v", b, seen)
		}
		if p.m.ReconsumeTimes != 1 || p.m.Topic != "PopRv" || p.m.Properties[pop.PropertyPopCk] == "" ||
			p.m.Properties[pop.PropertyFirstPopTime] == "" {
			t.Fatalf("%s: reconsumeTimes %d topic %s props %v", b, p.m.ReconsumeTimes, p.m.Topic, p.m.Properties)
		}
		if rt := realTopic(t, p, "rg"); rt != "%RETRY%rg_PopRv" {
			t.Fatalf("retry topic %s", rt)
		}
		e.expect(e.ack("rg", p), code.Success, "")
	}
	if len(seen) != 2 {
		t.Fatalf("acked messages came back: %v", seen)
	}
	// Nothing else comes back after the acks of the revived ones.
	e.reviveSettled()
	resp, _, more := e.pop("rg", "PopRv", -1, 32, 60_000, 0)
	if len(more) != 0 {
		t.Fatalf("after all acks: %s, %d messages", code.ResponseName(resp.Code), len(more))
	}
}

func (e *consumeEnv) changeInvisible(group string, p popped, invisible int64) (*codec.RemotingCommand, header.ChangeInvisibleTimeResponseHeader) {
	e.t.Helper()
	ei, _ := pop.ParseExtraInfo(p.handle)
	h := &header.ChangeInvisibleTimeRequestHeader{ConsumerGroup: group, Topic: realTopic(e.t, p, group), QueueID: ei.QueueID,
		ExtraInfo: p.handle, Offset: ei.QueueOffset, InvisibleTime: invisible}
	resp := e.call(codec.NewRequest(code.ChangeMessageInvisibletime, h.ToExtFields(), nil))
	var rh header.ChangeInvisibleTimeResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		e.t.Fatalf("change invisible header: %v (%v)", err, resp.ExtFields)
	}
	return resp, rh
}

// TestBrokerPopChangeInvisibleTime: a message whose invisible time is
// extended does not come back at its first deadline; shortened, it comes
// back soon; the new handle (built from the answer) acks it for good.
func TestBrokerPopChangeInvisibleTime(t *testing.T) {
	e := newConsumeEnv(t, fastRevive)
	e.send("PopCi", 0, nil, "a")
	e.send("PopCi", 0, nil, "b")
	e.waitDispatched("PopCi", 0, 2)
	_, _, got := e.pop("cg", "PopCi", 0, 32, ackSlack(), 0)
	if len(got) != 2 {
		t.Fatalf("popped %d", len(got))
	}
	resp, rh := e.changeInvisible("cg", got[0], 60_000)
	e.expect(resp, code.Success, "")
	ei0, _ := pop.ParseExtraInfo(got[0].handle)
	if rh.InvisibleTime != 60_000 || rh.PopTime < ei0.PopTime || rh.ReviveQid != ei0.ReviveQid {
		t.Fatalf("change invisible answer %+v (handle %q)", rh, got[0].handle)
	}
	// "b" (untouched) comes back; "a" must not.
	var back []popped
	testutil.Eventually(t, 10*time.Second, func() error {
		_, _, more := e.pop("cg", "PopCi", -1, 32, 60_000, 0)
		back = append(back, more...)
		if len(back) == 0 {
			return fmt.Errorf("nothing revived yet")
		}
		return nil
	})
	e.reviveSettled()
	_, _, more := e.pop("cg", "PopCi", -1, 32, 60_000, 0)
	back = append(back, more...)
	if len(back) != 1 || string(back[0].m.Body) != "b" {
		t.Fatalf("revived %d messages, first %q; want only b", len(back), back[0].m.Body)
	}
	// Ack "a" through its new handle: it never comes back.
	na := got[0]
	na.handle = pop.BuildExtraInfo(ei0.QueueOffset, rh.PopTime, rh.InvisibleTime, rh.ReviveQid, "PopCi", "broker-a", 0, ei0.QueueOffset)
	e.expect(e.ack("cg", na), code.Success, "")
	// Shorten b's time: it comes back again quickly, with reconsumeTimes 2.
	resp, _ = e.changeInvisible("cg", back[0], 100)
	e.expect(resp, code.Success, "")
	testutil.Eventually(t, 10*time.Second, func() error {
		_, _, more := e.pop("cg", "PopCi", -1, 32, 60_000, 0)
		for _, p := range more {
			if string(p.m.Body) != "b" || p.m.ReconsumeTimes != 2 {
				return fmt.Errorf("unexpected %q reconsume %d", p.m.Body, p.m.ReconsumeTimes)
			}
			return nil
		}
		return fmt.Errorf("b not back yet")
	})
}
