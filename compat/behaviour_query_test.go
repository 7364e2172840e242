package compat

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Message lookups (Java QueryMessageProcessor). Their SUCCESS replies are
// written by the processor itself with a header encoded in the server's
// default serialization (JSON), whatever the request used.

func TestCompatViewMessageByID(t *testing.T) {
	tg := newTarget(t)
	topic := uniq("CompatView")
	tg.createTopic(t, topic, 2)
	sent := tg.send(t, sendMsg{Topic: topic, Body: "view-me", Tags: "TagV", Keys: "vk", QueueID: 1}, codec.JSON)
	msgID := sent.Ext("msgId")
	_, phys, err := message.DecodeOffsetMsgID(msgID)
	if err != nil {
		t.Fatalf("msgId %q: %v", msgID, err)
	}
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		resp := tg.mustCall(t, tg.BrokerAddr, request(code.ViewMessageById, map[string]string{"offset": strconv.FormatInt(phys, 10)}, nil, ser))
		wantCode(t, resp, code.Success, "")
		wantSer(t, resp, codec.JSON)
		msgs := decodeRecords(t, resp.Body)
		if len(msgs) != 1 {
			t.Fatalf("%d records, want 1", len(msgs))
		}
		m := msgs[0]
		if m.MsgID != msgID || m.CommitLogOffset != phys || m.Topic != topic || m.QueueID != 1 || m.QueueOffset != 0 ||
			string(m.Body) != "view-me" || m.Tags() != "TagV" || m.Keys() != "vk" {
			t.Fatalf("record: id %s phys %d topic %s queue %d/%d body %q tags %q keys %q", m.MsgID, m.CommitLogOffset, m.Topic, m.QueueID, m.QueueOffset, m.Body, m.Tags(), m.Keys())
		}
		const far = int64(1) << 40
		resp = tg.mustCall(t, tg.BrokerAddr, request(code.ViewMessageById, map[string]string{"offset": strconv.FormatInt(far, 10)}, nil, ser))
		wantCode(t, resp, code.SystemError, "can not find message by the offset, "+strconv.FormatInt(far, 10))
		wantSer(t, resp, ser)
	})
}

func queryExt(topic, key string) map[string]string {
	return map[string]string{
		"topic": topic, "key": key, "maxNum": "64", "beginTimestamp": "0",
		"endTimestamp": strconv.FormatInt(1<<63-1, 10), "_UNIQUE_KEY_QUERY": "false",
	}
}

func TestCompatQueryMessageByKey(t *testing.T) {
	tg := newTarget(t)
	topic := uniq("CompatQuery")
	tg.createTopic(t, topic, 4)
	key := uniq("qk")
	var lastPhys int64
	for i := range 3 {
		keys := "other-" + strconv.Itoa(i)
		if i != 1 {
			keys = key + " " + keys // KEYS holds several keys separated by spaces
		}
		sent := tg.send(t, sendMsg{Topic: topic, Body: "q-" + strconv.Itoa(i), Keys: keys, QueueID: i}, codec.JSON)
		_, lastPhys, _ = message.DecodeOffsetMsgID(sent.Ext("msgId"))
	}
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		var resp *codec.RemotingCommand
		// The index is built by the store's dispatcher after the send returns:
		// wait for the last message to be indexed.
		testutil.Eventually(t, 10*time.Second, func() error {
			resp = tg.mustCall(t, tg.BrokerAddr, request(code.QueryMessage, queryExt(topic, key), nil, ser))
			if resp.Code != code.Success {
				return fmt.Errorf("QUERY_MESSAGE: code %d %q", resp.Code, resp.Remark)
			}
			if n := len(decodeRecords(t, resp.Body)); n < 2 {
				return fmt.Errorf("QUERY_MESSAGE: %d of 2 messages indexed", n)
			}
			return nil
		})
		wantSer(t, resp, codec.JSON)
		if got := extInt64(t, resp, "indexLastUpdatePhyoffset"); got < lastPhys {
			t.Fatalf("indexLastUpdatePhyoffset %d, below the last indexed message at %d", got, lastPhys)
		}
		msgs := decodeRecords(t, resp.Body)
		bodies := map[string]bool{}
		for _, m := range msgs {
			if m.Topic != topic {
				t.Fatalf("message of topic %s", m.Topic)
			}
			bodies[string(m.Body)] = true
		}
		if len(msgs) != 2 || !bodies["q-0"] || !bodies["q-2"] {
			t.Fatalf("found %d messages %v, want q-0 and q-2", len(msgs), bodies)
		}
		if ts := extInt64(t, resp, "indexLastUpdateTimestamp"); ts < msgs[0].StoreTimestamp || ts < msgs[1].StoreTimestamp {
			t.Fatalf("indexLastUpdateTimestamp %d before the messages' store times", ts)
		}

		resp = tg.mustCall(t, tg.BrokerAddr, request(code.QueryMessage, queryExt(topic, uniq("nokey")), nil, ser))
		wantCode(t, resp, code.QueryNotFound, "can not find message, maybe time range not correct")
		wantSer(t, resp, ser)
	})
}
