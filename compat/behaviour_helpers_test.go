package compat

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// faqSuffix is FAQUrl.suggestTodo(APPLY_TOPIC_URL) of 4.9.8.
const faqSuffix = "\nSee http://rocketmq.apache.org/docs/faq/ for further details."

// Pull sysFlag bits (PullSysFlag).
const (
	pullFlagCommitOffset = 1 << 0
	pullFlagSuspend      = 1 << 1
	pullFlagSubscription = 1 << 2
)

// createTopic sends UPDATE_AND_CREATE_TOPIC (perm RW, as mqadmin updateTopic
// does) to the broker and waits until the name server routes the topic to it.
func (tg *target) createTopic(t *testing.T, topic string, queues int) {
	t.Helper()
	n := strconv.Itoa(queues)
	resp := tg.mustCall(t, tg.BrokerAddr, codec.NewRequest(code.UpdateAndCreateTopic, map[string]string{
		"topic": topic, "defaultTopic": "TBW102", "readQueueNums": n, "writeQueueNums": n,
		"perm": "6", "topicFilterType": "SINGLE_TAG", "topicSysFlag": "0", "order": "false",
	}, nil))
	if resp.Code != code.Success {
		t.Fatalf("UPDATE_AND_CREATE_TOPIC %s: code %d %q", topic, resp.Code, resp.Remark)
	}
	tg.waitRoute(t, topic)
}

// waitRoute polls the name server until it answers SUCCESS for topic and
// returns the route.
func (tg *target) waitRoute(t *testing.T, topic string) (*codec.RemotingCommand, *body.TopicRouteData) {
	t.Helper()
	var (
		resp  *codec.RemotingCommand
		route *body.TopicRouteData
	)
	testutil.Eventually(t, 15*time.Second, func() error {
		var err error
		resp, err = tg.call(tg.NamesrvAddr, codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil))
		if err != nil {
			return err
		}
		if resp.Code != code.Success {
			return fmt.Errorf("route %s: code %d %q", topic, resp.Code, resp.Remark)
		}
		route, err = body.DecodeTopicRouteData(resp.Body)
		if err != nil {
			return err
		}
		if queueDataOf(route, tg.BrokerName) == nil {
			return fmt.Errorf("route %s has no queues on %s yet", topic, tg.BrokerName)
		}
		return nil
	})
	return resp, route
}

func queueDataOf(r *body.TopicRouteData, brokerName string) *body.QueueData {
	for i := range r.QueueDatas {
		if r.QueueDatas[i].BrokerName == brokerName {
			return &r.QueueDatas[i]
		}
	}
	return nil
}

// sendMsg is one message for the raw send helpers.
type sendMsg struct {
	Topic, Body, Tags, Keys string
	QueueID                 int
}

func (m sendMsg) properties() string {
	p := map[string]string{message.PropertyWaitStoreMsgOK: "true"}
	if m.Tags != "" {
		p[message.PropertyTags] = m.Tags
	}
	if m.Keys != "" {
		p[message.PropertyKeys] = m.Keys
	}
	return message.MarshalProperties(p)
}

// sendV1Ext is a SendMessageRequestHeader as the Java client fills it.
func (m sendMsg) sendV1Ext(group string) map[string]string {
	return map[string]string{
		"producerGroup": group, "topic": m.Topic, "defaultTopic": "TBW102", "defaultTopicQueueNums": "4",
		"queueId": strconv.Itoa(m.QueueID), "sysFlag": "0", "bornTimestamp": strconv.FormatInt(time.Now().UnixMilli(), 10),
		"flag": "0", "properties": m.properties(), "reconsumeTimes": "0", "unitMode": "false", "batch": "false",
	}
}

// sendV2Ext is the same header in SendMessageRequestHeaderV2's short names.
func (m sendMsg) sendV2Ext(group string) map[string]string {
	v1 := m.sendV1Ext(group)
	return map[string]string{
		"a": v1["producerGroup"], "b": v1["topic"], "c": v1["defaultTopic"], "d": v1["defaultTopicQueueNums"],
		"e": v1["queueId"], "f": v1["sysFlag"], "g": v1["bornTimestamp"], "h": v1["flag"], "i": v1["properties"],
		"j": v1["reconsumeTimes"], "k": v1["unitMode"], "m": v1["batch"],
	}
}

// send sends m with SEND_MESSAGE_V2 and requires SUCCESS.
func (tg *target) send(t *testing.T, m sendMsg, ser codec.SerializeType) *codec.RemotingCommand {
	t.Helper()
	resp := tg.mustCall(t, tg.BrokerAddr, request(code.SendMessageV2, m.sendV2Ext("compat_pg"), []byte(m.Body), ser))
	if resp.Code != code.Success {
		t.Fatalf("SEND_MESSAGE_V2 %+v: code %d %q", m, resp.Code, resp.Remark)
	}
	return resp
}

// pullExt is a PullMessageRequestHeader carrying its own subscription
// ("*", TAG), as a pull consumer sends it.
func pullExt(group, topic string, qid int, offset int64, sysFlag int) map[string]string {
	return map[string]string{
		"consumerGroup": group, "topic": topic, "queueId": strconv.Itoa(qid),
		"queueOffset": strconv.FormatInt(offset, 10), "maxMsgNums": "32", "sysFlag": strconv.Itoa(sysFlag),
		"commitOffset": "0", "suspendTimeoutMillis": "0", "subscription": "*", "subVersion": "0",
		"expressionType": "TAG",
	}
}

// extInt64 parses an extField the test requires.
func extInt64(t *testing.T, resp *codec.RemotingCommand, key string) int64 {
	t.Helper()
	s, ok := resp.ExtFields[key]
	if !ok {
		t.Fatalf("response (code %d %q) has no %s: %v", resp.Code, resp.Remark, key, resp.ExtFields)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", key, s, err)
	}
	return v
}

// wantCode fails unless resp has the code and remark (remark checked only
// when want is non-empty; a trailing "*" matches a prefix).
func wantCode(t *testing.T, resp *codec.RemotingCommand, c int32, remark string) {
	t.Helper()
	if resp.Code != c {
		t.Fatalf("code %d (%s) remark %q, want %d (%s)", resp.Code, code.ResponseName(resp.Code), resp.Remark, c, code.ResponseName(c))
	}
	if !resp.IsResponse() {
		t.Fatalf("reply without the response flag: flag %d", resp.Flag)
	}
	if remark == "" {
		return
	}
	if p, ok := strings.CutSuffix(remark, "*"); ok {
		if !strings.HasPrefix(resp.Remark, p) {
			t.Fatalf("remark %q, want prefix %q", resp.Remark, p)
		}
		return
	}
	if resp.Remark != remark {
		t.Fatalf("remark %q, want %q", resp.Remark, remark)
	}
}

// wantSer fails unless the reply came back in the given serialization.
func wantSer(t *testing.T, resp *codec.RemotingCommand, ser codec.SerializeType) {
	t.Helper()
	if resp.SerializeType != ser {
		t.Fatalf("reply serialized as %s, want %s", serName(resp.SerializeType), serName(ser))
	}
}

// decodeRecords decodes a body of whole CommitLog records.
func decodeRecords(t *testing.T, data []byte) []*message.MessageExt {
	t.Helper()
	msgs, err := message.DecodeRecords(data, true)
	if err != nil {
		t.Fatalf("decode records (%d bytes): %v", len(data), err)
	}
	return msgs
}

// waitMaxOffset polls GET_MAX_OFFSET until the queue's consume queue holds
// want entries (the store dispatches to consume queues asynchronously).
func (tg *target) waitMaxOffset(t *testing.T, topic string, qid int, want int64) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, func() error {
		resp, err := tg.call(tg.BrokerAddr, codec.NewRequest(code.GetMaxOffset, map[string]string{"topic": topic, "queueId": strconv.Itoa(qid)}, nil))
		if err != nil {
			return err
		}
		if resp.Code != code.Success || resp.Ext("offset") != strconv.FormatInt(want, 10) {
			return fmt.Errorf("GET_MAX_OFFSET %s/%d: code %d offset %q, want %d", topic, qid, resp.Code, resp.Ext("offset"), want)
		}
		return nil
	})
}
