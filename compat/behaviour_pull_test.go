package compat

import (
	"strconv"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Broker pull behaviour (Java PullMessageProcessor over
// DefaultMessageStore.getMessage statuses).

// pullTopic creates a 4-queue topic holding n messages in queue 0.
func pullTopic(t *testing.T, tg *target, n int) string {
	t.Helper()
	topic := uniq("CompatPull")
	tg.createTopic(t, topic, 4)
	for i := range n {
		tg.send(t, sendMsg{Topic: topic, Body: "pull-" + strconv.Itoa(i), Tags: "TagP", Keys: "pk" + strconv.Itoa(i)}, codec.JSON)
	}
	tg.waitMaxOffset(t, topic, 0, int64(n))
	return topic
}

// wantPullHeader checks PullMessageResponseHeader values.
func wantPullHeader(t *testing.T, resp *codec.RemotingCommand, next, minOff, maxOff int64) {
	t.Helper()
	got := [4]int64{extInt64(t, resp, "nextBeginOffset"), extInt64(t, resp, "minOffset"), extInt64(t, resp, "maxOffset"), extInt64(t, resp, "suggestWhichBrokerId")}
	if want := [4]int64{next, minOff, maxOff, 0}; got != want {
		t.Fatalf("next/min/max/suggest %v, want %v", got, want)
	}
}

func TestCompatPullFound(t *testing.T) {
	tg := newTarget(t)
	topic := pullTopic(t, tg, 3)
	group := uniq("compat_pull_cg")
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		resp := tg.mustCall(t, tg.BrokerAddr, request(code.PullMessage, pullExt(group, topic, 0, 1, pullFlagSubscription), nil, ser))
		wantCode(t, resp, code.Success, "FOUND")
		wantSer(t, resp, ser)
		wantPullHeader(t, resp, 3, 0, 3)
		msgs := decodeRecords(t, resp.Body)
		if len(msgs) != 2 {
			t.Fatalf("%d messages, want 2", len(msgs))
		}
		for i, m := range msgs {
			off := int64(i + 1)
			if m.Topic != topic || m.QueueID != 0 || m.QueueOffset != off || string(m.Body) != "pull-"+strconv.FormatInt(off, 10) ||
				m.Tags() != "TagP" || m.Keys() != "pk"+strconv.FormatInt(off, 10) {
				t.Fatalf("message %d: topic %s queue %d offset %d body %q tags %q keys %q", i, m.Topic, m.QueueID, m.QueueOffset, m.Body, m.Tags(), m.Keys())
			}
		}
	})
}

func TestCompatPullStatuses(t *testing.T) {
	tg := newTarget(t)
	topic := pullTopic(t, tg, 3)
	group := uniq("compat_pull_cg")
	cases := []struct {
		name             string
		qid              int
		offset           int64
		code             int32
		remark           string
		next, minO, maxO int64
	}{
		// offset == maxOffset, no suspend flag: answered at once.
		{"AtMaxOffset", 0, 3, code.PullNotFound, "OFFSET_OVERFLOW_ONE", 3, 0, 3},
		// offset > maxOffset: 4.9.8 corrects it to maxOffset.
		{"OverflowBadly", 0, 100, code.PullOffsetMoved, "OFFSET_OVERFLOW_BADLY", 3, 0, 3},
		// an empty queue read from 0 is simply not found ...
		{"EmptyQueueAtZero", 1, 0, code.PullNotFound, "NO_MESSAGE_IN_QUEUE", 0, 0, 0},
		// ... and from anywhere else the offset moved to 0.
		{"EmptyQueueAtFive", 1, 5, code.PullOffsetMoved, "NO_MESSAGE_IN_QUEUE", 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
				resp := tg.mustCall(t, tg.BrokerAddr, request(code.PullMessage, pullExt(group, topic, c.qid, c.offset, pullFlagSubscription), nil, ser))
				wantCode(t, resp, c.code, c.remark)
				wantSer(t, resp, ser)
				wantPullHeader(t, resp, c.next, c.minO, c.maxO)
				if len(resp.Body) != 0 {
					t.Fatalf("%s carries a %d-byte body", code.ResponseName(resp.Code), len(resp.Body))
				}
			})
		})
	}
}

func TestCompatPullErrors(t *testing.T) {
	tg := newTarget(t)
	topic := pullTopic(t, tg, 1)
	group := uniq("compat_pull_cg")
	t.Run("UnknownTopic", func(t *testing.T) {
		unknown := uniq("CompatPullNoTopic")
		resp := tg.mustCall(t, tg.BrokerAddr, codec.NewRequest(code.PullMessage, pullExt(group, unknown, 0, 0, pullFlagSubscription), nil))
		wantCode(t, resp, code.TopicNotExist, "topic["+unknown+"] not exist, apply first please! "+faqSuffix)
	})
	t.Run("BadQueueID", func(t *testing.T) {
		resp := tg.mustCall(t, tg.BrokerAddr, codec.NewRequest(code.PullMessage, pullExt(group, topic, 4, 0, pullFlagSubscription), nil))
		// channel.remoteAddress() prints as "/ip:port".
		wantCode(t, resp, code.SystemError, "queueId[4] is illegal, topic:["+topic+"] topicConfig.readQueueNums:[4] consumer:[/"+
			tg.localAddrTo(t, tg.BrokerAddr)+"]")
	})
	t.Run("NoSubscriptionNoHeartbeat", func(t *testing.T) {
		// Without the subscription flag the broker needs the group's
		// heartbeat, which this group never sent.
		resp := tg.mustCall(t, tg.BrokerAddr, codec.NewRequest(code.PullMessage, pullExt(uniq("compat_pull_nohb"), topic, 0, 0, 0), nil))
		wantCode(t, resp, code.SubscriptionNotExist, "the consumer's group info not exist"+
			faqSuffix)
	})
}
