package broker_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func sendBackReq(group string, offset int64, delay int32, maxTimes *int32) *codec.RemotingCommand {
	h := &header.ConsumerSendMsgBackRequestHeader{Offset: offset, Group: group, DelayLevel: delay, MaxReconsumeTimes: maxTimes}
	return codec.NewRequest(code.ConsumerSendMsgBack, h.ToExtFields(), nil)
}

// lastIn returns the last message of topic/queueID once it holds n.
func (e *consumeEnv) lastIn(topic string, queueID int32, n int64) *message.MessageExt {
	e.t.Helper()
	e.waitDispatched(topic, queueID, n)
	r := e.b.Store().GetMessage("x", topic, queueID, n-1, 1, nil)
	if r == nil || r.Status != store.Found {
		e.t.Fatalf("read %s/%d@%d: %v", topic, queueID, n-1, r)
	}
	return decodeBody(e.t, r.Body)[0]
}

func commitLogOffset(t *testing.T, msgID string) int64 {
	t.Helper()
	_, off, err := message.DecodeOffsetMsgID(msgID)
	if err != nil {
		t.Fatal(err)
	}
	return off
}

func TestSendBackToRetryTopicWithDelay(t *testing.T) {
	e := newConsumeEnv(t)
	sent := e.send("SbT", 0, map[string]string{"TAGS": "TagA", "KEYS": "k1", "u": "1"}, "body")
	e.expect(e.call(sendBackReq("sbg", commitLogOffset(t, sent.MsgID), 0, nil)), code.Success, "")
	// Level 3 + reconsumeTimes 0 → SCHEDULE_TOPIC_XXXX queue 2.
	m := e.lastIn("SCHEDULE_TOPIC_XXXX", 2, 1)
	p := m.Properties
	if p["REAL_TOPIC"] != "%RETRY%sbg" || p["RETRY_TOPIC"] != "SbT" || p["ORIGIN_MESSAGE_ID"] != sent.MsgID ||
		p["DELAY"] != "3" || p["WAIT"] != "false" || p["TAGS"] != "TagA" || p["u"] != "1" {
		t.Fatalf("scheduled retry properties %q", m.PropertiesString)
	}
	if m.ReconsumeTimes != 1 || string(m.Body) != "body" {
		t.Fatalf("reconsumeTimes %d body %q", m.ReconsumeTimes, m.Body)
	}
	tc := e.b.Topics().SelectTopicConfig("%RETRY%sbg")
	if tc == nil || tc.ReadQueueNums != 1 || tc.Perm != 6 {
		t.Fatalf("retry topic %+v", tc)
	}
	// Sent back again: the origin id and retry topic stay, the level grows.
	e.expect(e.call(sendBackReq("sbg", m.CommitLogOffset, 0, nil)), code.Success, "")
	m2 := e.lastIn("SCHEDULE_TOPIC_XXXX", 3, 1)
	if m2.Properties["ORIGIN_MESSAGE_ID"] != sent.MsgID || m2.Properties["RETRY_TOPIC"] != "SbT" ||
		m2.Properties["DELAY"] != "4" || m2.ReconsumeTimes != 2 {
		t.Fatalf("second send-back %q reconsumeTimes %d", m2.PropertiesString, m2.ReconsumeTimes)
	}
}

func TestSendBackToDLQ(t *testing.T) {
	e := newConsumeEnv(t)
	sent := e.send("DlqT", 0, map[string]string{"TAGS": "TagA"}, "dead")
	off := commitLogOffset(t, sent.MsgID)
	zero := int32(0)
	e.expect(e.call(sendBackReq("dg", off, 0, &zero)), code.Success, "")
	m := e.lastIn("%DLQ%dg", 0, 1)
	if m.Properties["RETRY_TOPIC"] != "DlqT" || m.Properties["ORIGIN_MESSAGE_ID"] != sent.MsgID ||
		m.Properties["DELAY"] != "0" || m.ReconsumeTimes != 1 {
		t.Fatalf("DLQ message %q reconsumeTimes %d", m.PropertiesString, m.ReconsumeTimes)
	}
	if tc := e.b.Topics().SelectTopicConfig("%DLQ%dg"); tc == nil || tc.WriteQueueNums != 1 {
		t.Fatalf("DLQ topic %+v", tc)
	}
	// A negative delay level also means "dead now".
	e.expect(e.call(sendBackReq("dg", off, -1, nil)), code.Success, "")
	e.lastIn("%DLQ%dg", 0, 2)
}

func TestSendBackErrors(t *testing.T) {
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) { c.AutoCreateSubscriptionGroup = false })
	sent := e.send("ErrT", 0, nil, "x")
	resp := e.call(sendBackReq("nogroup", commitLogOffset(t, sent.MsgID), 0, nil))
	e.expect(resp, code.SubscriptionGroupNotExist,
		"subscription group not exist, nogroup \nSee http://rocketmq.apache.org/docs/faq/ for further details.")
	resp = e.call(sendBackReq("SELF_TEST_C_GROUP", 1<<40, 0, nil))
	e.expect(resp, code.SystemError, "look message by offset failed, 1099511627776")
}

func TestSendBackDelayedMessageIsDeliveredToRetryTopic(t *testing.T) {
	e := newConsumeEnv(t)
	sent := e.send("DelT", 0, map[string]string{"TAGS": "TagA"}, "again")
	// Level 1 is 1 s; the schedule service looks after its 1 s first delay.
	e.expect(e.call(sendBackReq("delg", commitLogOffset(t, sent.MsgID), 1, nil)), code.Success, "")
	testutil.Eventually(t, 10*time.Second, func() error {
		if n := e.b.Store().MaxOffsetInQueue("%RETRY%delg", 0); n != 1 {
			return fmt.Errorf("retry queue has %d messages", n)
		}
		return nil
	})
	m := e.lastIn("%RETRY%delg", 0, 1)
	if string(m.Body) != "again" || m.Properties["RETRY_TOPIC"] != "DelT" || m.Properties["DELAY"] != "" || m.ReconsumeTimes != 1 {
		t.Fatalf("delivered retry %q reconsumeTimes %d", m.PropertiesString, m.ReconsumeTimes)
	}
	// A consumer of the retry topic pulls it like any message.
	resp := e.call(pullReq("delg", "%RETRY%delg", 0, 0, 0, "*", "TAG"))
	e.expect(resp, code.Success, "FOUND")
	testutil.Eventually(t, 5*time.Second, func() error {
		if off, _ := e.b.DelayOffsets().Offset(1); off != 1 {
			return fmt.Errorf("delay offset of level 1 is %d", off)
		}
		return nil
	})
}
