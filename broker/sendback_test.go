package broker_test

import (
	"strconv"
	"strings"
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

func sendBackRequest(offset int64, group string, delay int32, maxTimes *int32) *codec.RemotingCommand {
	h := &header.ConsumerSendMsgBackRequestHeader{Offset: offset, Group: group, DelayLevel: delay, MaxReconsumeTimes: maxTimes}
	return codec.NewRequest(code.ConsumerSendMsgBack, h.ToExtFields(), nil)
}

func TestBrokerConsumerSendMsgBack(t *testing.T) {
	b := testutil.StartBroker(t, "")
	c := newClient(t)
	addr := b.Addr().String()
	props := map[string]string{message.PropertyUniqClientMessageIDKeyidx: "U1", message.PropertyTags: "tg"}
	wantCode(t, invoke(t, c, addr, sendRequest(code.SendMessage, sendHeader("TopicBack", 0, props), []byte("orig"))), code.Success)
	orig := readBack(t, b, "TopicBack", 0, 0)

	// First send-back: %RETRY%cgBack with delay level 3 (10 s) → parked in SCHEDULE_TOPIC_XXXX queue 2.
	wantCode(t, invoke(t, c, addr, sendBackRequest(orig.CommitLogOffset, "cgBack", 0, nil)), code.Success)
	if tc := b.Topics().SelectTopicConfig("%RETRY%cgBack"); tc == nil || tc.WriteQueueNums != 1 {
		t.Fatalf("retry topic %+v", tc)
	}
	m := readBack(t, b, "SCHEDULE_TOPIC_XXXX", 2, 0)
	p := message.UnmarshalProperties(m.PropertiesString)
	if p[message.PropertyRealTopic] != "%RETRY%cgBack" || p[message.PropertyRetryTopic] != "TopicBack" ||
		p[message.PropertyOriginMessageID] != orig.MsgID || p[message.PropertyDelayTimeLevel] != "3" ||
		p[message.PropertyWaitStoreMsgOK] != "false" || m.ReconsumeTimes != 1 || string(m.Body) != "orig" {
		t.Fatalf("retry copy props %v reconsume %d", p, m.ReconsumeTimes)
	}

	// delayLevel -1 sends straight to the DLQ.
	wantCode(t, invoke(t, c, addr, sendBackRequest(orig.CommitLogOffset, "cgBack", -1, nil)), code.Success)
	d := readBack(t, b, "%DLQ%cgBack", 0, 0)
	if string(d.Body) != "orig" {
		t.Fatalf("dlq body %q", d.Body)
	}

	// Unknown offset and unknown group.
	resp := invoke(t, c, addr, sendBackRequest(1<<40, "cgBack", 0, nil))
	wantCode(t, resp, code.SystemError)
	if resp.Remark != "look message by offset failed, "+strconv.FormatInt(1<<40, 10) {
		t.Fatalf("remark %q", resp.Remark)
	}
}

func TestBrokerSendBackGroupNotExist(t *testing.T) {
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.AutoCreateSubscriptionGroup = false
	})
	c := newClient(t)
	resp := invoke(t, c, b.Addr().String(), sendBackRequest(0, "nogroup", 0, nil))
	wantCode(t, resp, code.SubscriptionGroupNotExist)
	if !strings.HasPrefix(resp.Remark, "subscription group not exist, nogroup ") {
		t.Fatalf("remark %q", resp.Remark)
	}
	// A plain send to the group's retry topic is refused the same way.
	resp = invoke(t, c, b.Addr().String(), sendRequest(code.SendMessage, sendHeader("%RETRY%nogroup", 0, nil), []byte("x")))
	wantCode(t, resp, code.SubscriptionGroupNotExist)
}

func TestBrokerSendBeforeAcceptTime(t *testing.T) {
	start := time.Now().Add(time.Hour).UnixMilli()
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.StartAcceptSendRequestTimeStamp = start
	})
	c := newClient(t)
	resp := invoke(t, c, b.Addr().String(), sendRequest(code.SendMessage, sendHeader("TopicLate", 0, nil), []byte("x")))
	wantCode(t, resp, code.SystemError)
	if want := "broker unable to service, until " + time.UnixMilli(start).Format("2006-01-02 15:04:05,000"); resp.Remark != want {
		t.Fatalf("remark %q, want %q", resp.Remark, want)
	}
}
