package compat

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Broker send behaviour (Java SendMessageProcessor, AbstractSendMessageProcessor).

// offsetMsgIDRe is an IPv4 offsetMsgId: store ip, port and physical offset,
// 16 bytes as 32 upper-case hex digits.
var offsetMsgIDRe = regexp.MustCompile(`^[0-9A-F]{32}$`)

func TestCompatSendV1V2(t *testing.T) {
	tg := newTarget(t)
	versions := []struct {
		name string
		code int32
		ext  func(m sendMsg) map[string]string
	}{
		{"V1", code.SendMessage, func(m sendMsg) map[string]string { return m.sendV1Ext("compat_pg") }},
		{"V2", code.SendMessageV2, func(m sendMsg) map[string]string { return m.sendV2Ext("compat_pg") }},
	}
	for _, v := range versions {
		t.Run(v.name, func(t *testing.T) {
			forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
				topic := uniq("CompatSend" + v.name)
				tg.createTopic(t, topic, 4)
				var lastPhys int64 = -1
				for i := range 3 {
					m := sendMsg{Topic: topic, Body: "body-" + strconv.Itoa(i), Tags: "TagA", QueueID: 2}
					resp := tg.mustCall(t, tg.BrokerAddr, request(v.code, v.ext(m), []byte(m.Body), ser))
					wantCode(t, resp, code.Success, "")
					wantSer(t, resp, ser)
					checkSendResponse(t, tg, resp, 2, int64(i))
					addr, phys, err := message.DecodeOffsetMsgID(resp.Ext("msgId"))
					if err != nil || addr.String() != tg.BrokerAddr || phys <= lastPhys {
						t.Fatalf("msgId %s: store %v offset %d (previous %d) err %v, want %s", resp.Ext("msgId"), addr, phys, lastPhys, err, tg.BrokerAddr)
					}
					lastPhys = phys
				}
			})
		})
	}
}

// checkSendResponse checks a SendMessageResponseHeader as 4.9.8 fills it.
func checkSendResponse(t *testing.T, tg *target, resp *codec.RemotingCommand, qid int, offset int64) {
	t.Helper()
	if got := extInt64(t, resp, "queueId"); got != int64(qid) {
		t.Fatalf("queueId %d, want %d", got, qid)
	}
	if got := extInt64(t, resp, "queueOffset"); got != offset {
		t.Fatalf("queueOffset %d, want %d", got, offset)
	}
	if id := resp.Ext("msgId"); !offsetMsgIDRe.MatchString(id) {
		t.Fatalf("msgId %q is not an IPv4 offsetMsgId", id)
	}
	if resp.Ext("MSG_REGION") != "DefaultRegion" || resp.Ext("TRACE_ON") != "true" {
		t.Fatalf("MSG_REGION %q TRACE_ON %q", resp.Ext("MSG_REGION"), resp.Ext("TRACE_ON"))
	}
	if _, ok := resp.ExtFields["transactionId"]; ok {
		t.Fatalf("transactionId present for a plain message: %v", resp.ExtFields)
	}
	if resp.Version != code.CurrentVersion || resp.Language != code.Java {
		t.Fatalf("reply version %d language %v", resp.Version, resp.Language)
	}
}

// TestCompatSendAutoCreateTopic: a send to an unknown topic with
// defaultTopic TBW102 creates it (autoCreateTopicEnable) with
// min(defaultTopicQueueNums, TBW102's queues) queues, and the route follows.
func TestCompatSendAutoCreateTopic(t *testing.T) {
	tg := newTarget(t)
	topic := uniq("CompatAutoCreate")
	resp := tg.send(t, sendMsg{Topic: topic, Body: "auto", QueueID: 3}, codec.JSON)
	checkSendResponse(t, tg, resp, 3, 0)
	_, route := tg.waitRoute(t, topic)
	if q := queueDataOf(route, tg.BrokerName); q.ReadQueueNums != 4 || q.WriteQueueNums != 4 || q.Perm != 6 {
		t.Fatalf("auto-created topic queue data %+v, want 4/4 perm 6", q)
	}
}

func TestCompatSendBadQueueID(t *testing.T) {
	tg := newTarget(t)
	topic := uniq("CompatBadQueue")
	tg.createTopic(t, topic, 4)
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		m := sendMsg{Topic: topic, Body: "x", QueueID: 4}
		resp := tg.mustCall(t, tg.BrokerAddr, request(code.SendMessageV2, m.sendV2Ext("compat_pg"), []byte(m.Body), ser))
		wantCode(t, resp, code.SystemError, "request queueId[4] is illegal, TopicConfig [topicName="+topic+
			", readQueueNums=4, writeQueueNums=4, perm=RW-, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false] Producer: "+
			tg.localAddrTo(t, tg.BrokerAddr))
		wantSer(t, resp, ser)
	})
	// The queue is still empty: nothing was stored.
	resp := tg.mustCall(t, tg.BrokerAddr, codec.NewRequest(code.GetMaxOffset, map[string]string{"topic": topic, "queueId": "0"}, nil))
	wantCode(t, resp, code.Success, "")
	if got := extInt64(t, resp, "offset"); got != 0 {
		t.Fatalf("max offset of queue 0 after a rejected send: %d", got)
	}
}

func TestCompatBrokerUnknownCode(t *testing.T) {
	tg := newTarget(t)
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		resp := tg.mustCall(t, tg.BrokerAddr, request(9999, map[string]string{"topic": "x"}, nil, ser))
		wantCode(t, resp, code.RequestCodeNotSupported, " request type 9999 not supported")
		wantSer(t, resp, ser)
	})
}

func TestCompatHeartbeat(t *testing.T) {
	tg := newTarget(t)
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		hb := &body.HeartbeatData{
			ClientID:        "127.0.0.1@compat#" + runID,
			ProducerDataSet: []body.ProducerData{{GroupName: uniq("compat_hb_pg")}},
			ConsumerDataSet: []body.ConsumerData{{
				GroupName: uniq("compat_hb_cg"), ConsumeType: "CONSUME_PASSIVELY", MessageModel: "CLUSTERING",
				ConsumeFromWhere: "CONSUME_FROM_LAST_OFFSET",
				SubscriptionDataSet: []body.SubscriptionData{{
					Topic: "TBW102", SubString: "*", TagsSet: []string{}, CodeSet: []int32{}, SubVersion: 1, ExpressionType: "TAG",
				}},
			}},
		}
		resp := tg.mustCall(t, tg.BrokerAddr, request(code.HeartBeat, nil, hb.Encode(), ser))
		wantCode(t, resp, code.Success, "")
		wantSer(t, resp, ser)
		if resp.Version != code.CurrentVersion || resp.Language != code.Java || len(resp.Body) != 0 {
			t.Fatalf("heartbeat reply version %d language %v body %q, want %d JAVA and no body", resp.Version, resp.Language, resp.Body, code.CurrentVersion)
		}
	})
}

// TestCompatSendBatch: SEND_BATCH_MESSAGE stores the messages in one queue
// at consecutive offsets; the reply carries the first queue offset and the
// comma-separated offsetMsgIds; batch-level properties (the header's and
// the broker's CLUSTER) are appended to every stored message's own.
func TestCompatSendBatch(t *testing.T) {
	tg := newTarget(t)
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		topic := uniq("CompatBatch")
		tg.createTopic(t, topic, 2)
		for round := range 2 {
			items := make([]message.BatchItem, 3)
			for i := range items {
				items[i] = message.BatchItem{Body: []byte("b" + strconv.Itoa(round*3+i)),
					PropertiesString: message.MarshalProperties(map[string]string{message.PropertyKeys: "bk" + strconv.Itoa(round*3+i)})}
			}
			ext := sendMsg{Topic: topic, QueueID: 1}.sendV2Ext("compat_pg")
			ext["i"], ext["m"] = message.PropertyWaitStoreMsgOK+"\x01true", "true"
			resp := tg.mustCall(t, tg.BrokerAddr, request(code.SendBatchMessage, ext, message.EncodeBatch(nil, items), ser))
			wantCode(t, resp, code.Success, "")
			wantSer(t, resp, ser)
			if q, off := extInt64(t, resp, "queueId"), extInt64(t, resp, "queueOffset"); q != 1 || off != int64(round*3) {
				t.Fatalf("batch %d: queue %d offset %d", round, q, off)
			}
			ids := strings.Split(resp.Ext("msgId"), ",")
			var last int64 = -1
			for _, id := range ids {
				addr, phys, err := message.DecodeOffsetMsgID(id)
				if err != nil || !offsetMsgIDRe.MatchString(id) || addr.String() != tg.BrokerAddr || phys <= last {
					t.Fatalf("batch msgId %q: %v %d %v", resp.Ext("msgId"), addr, phys, err)
				}
				last = phys
			}
			if len(ids) != 3 {
				t.Fatalf("batch msgId %q: %d ids, want 3", resp.Ext("msgId"), len(ids))
			}
		}
		tg.waitMaxOffset(t, topic, 1, 6)
		resp := tg.mustCall(t, tg.BrokerAddr, codec.NewRequest(code.PullMessage, pullExt(uniq("compat_batch_cg"), topic, 1, 0, pullFlagSubscription), nil))
		wantCode(t, resp, code.Success, "FOUND")
		stored := decodeRecords(t, resp.Body)
		if len(stored) != 6 {
			t.Fatalf("pulled %d batch messages, want 6", len(stored))
		}
		for i, m := range stored {
			if string(m.Body) != "b"+strconv.Itoa(i) || m.QueueOffset != int64(i) || m.Keys() != "bk"+strconv.Itoa(i) ||
				m.Property("CLUSTER") != tg.ClusterName || m.Property(message.PropertyWaitStoreMsgOK) != "true" {
				t.Fatalf("stored batch message %d: body %q offset %d properties %q", i, m.Body, m.QueueOffset, m.PropertiesString)
			}
		}
	})
}
