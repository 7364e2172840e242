package broker_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func TestBrokerAdminQueryConsumeQueue(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	sendN(t, cc, "CqTopic", 1, 3)
	testutil.Eventually(t, 5*time.Second, func() error {
		if b.Store().MaxOffsetInQueue("CqTopic", 1) != 3 {
			return errStatusf("not dispatched")
		}
		return nil
	})
	h := header.QueryConsumeQueueRequestHeader{Topic: "CqTopic", QueueID: 1, Index: 1, Count: 5}
	resp := cc.call(codec.NewRequest(code.QueryConsumeQueue, h.ToExtFields(), nil))
	wantCode(t, resp, code.Success)
	var qb struct {
		MaxQueueIndex int64 `json:"maxQueueIndex"`
		MinQueueIndex int64 `json:"minQueueIndex"`
		QueueData     []struct {
			PhysicOffset int64 `json:"physicOffset"`
			PhysicSize   int32 `json:"physicSize"`
			TagsCode     int64 `json:"tagsCode"`
		} `json:"queueData"`
	}
	if err := json.Unmarshal(resp.Body, &qb); err != nil {
		t.Fatalf("%s: %v", resp.Body, err)
	}
	if qb.MaxQueueIndex != 3 || qb.MinQueueIndex != 0 || len(qb.QueueData) != 2 {
		t.Fatalf("body %s", resp.Body)
	}
	for i, u := range qb.QueueData {
		if want := b.Store().CommitLogOffsetInQueue("CqTopic", 1, int64(i+1)); u.PhysicOffset != want || u.PhysicSize <= 0 {
			t.Fatalf("unit %d %+v, want physic offset %d", i, u, want)
		}
	}
	// A group that is not online gets the diagnostic filterData.
	h.ConsumerGroup = "cgQ"
	resp = cc.call(codec.NewRequest(code.QueryConsumeQueue, h.ToExtFields(), nil))
	if !strings.Contains(string(resp.Body), `"filterData":"cgQ@CqTopic is not online!"`) {
		t.Fatalf("body %s", resp.Body)
	}
	missing := header.QueryConsumeQueueRequestHeader{Topic: "NoSuchTopic", QueueID: 0, Count: 1}
	resp = cc.call(codec.NewRequest(code.QueryConsumeQueue, missing.ToExtFields(), nil))
	wantCode(t, resp, code.SystemError)
	if resp.Remark != "0@NoSuchTopic is not exist!" {
		t.Fatalf("remark %q", resp.Remark)
	}
}

func TestBrokerAdminResumeCheckHalfMessage(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	h := sendHeader("TopicTxR", 0, map[string]string{message.PropertyTransactionPrepared: "true",
		message.PropertyProducerGroup: "pg", message.PropertyTransactionCheckTimes: "5"})
	h.SysFlag = message.SysFlagTransPrepared
	wantCode(t, cc.call(sendRequest(code.SendMessage, h, []byte("half"))), code.Success)
	m := readBack(t, b, "RMQ_SYS_TRANS_HALF_TOPIC", 0, 0)
	rh := header.ResumeCheckHalfMessageRequestHeader{MsgID: m.MsgID}
	resp := cc.call(codec.NewRequest(code.ResumeCheckHalfMessage, rh.ToExtFields(), nil))
	wantCode(t, resp, code.Success)
	again := readBack(t, b, "RMQ_SYS_TRANS_HALF_TOPIC", 0, 1)
	p := message.UnmarshalProperties(again.PropertiesString)
	if string(again.Body) != "half" || p[message.PropertyTransactionCheckTimes] != "0" || p[message.PropertyRealTopic] != "TopicTxR" {
		t.Fatalf("resumed %q props %q", again.Body, again.PropertiesString)
	}
	bad := header.ResumeCheckHalfMessageRequestHeader{MsgID: "zz"}
	resp = cc.call(codec.NewRequest(code.ResumeCheckHalfMessage, bad.ToExtFields(), nil))
	wantCode(t, resp, code.SystemError)
	if resp.Remark != "Exception was thrown when putting message back to RMQ_SYS_TRANS_HALF_TOPIC." {
		t.Fatalf("remark %q", resp.Remark)
	}
}
