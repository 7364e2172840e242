package compat

import (
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Frames shaped exactly as rocketmq-client-cpp (master 7c8b7f8) writes
// them; the golden cpp-json session holds the real ones, recorded against
// Apache 4.9.8, which registered the consumer from this heartbeat.

// cppFrame builds a C++ client request: jsoncpp's alphabetical header with
// a newline after it (counted in the header length), the always-present
// empty AccessKey/OnsChannel/Signature, language CPP, version 333.
func cppFrame(reqCode, opaque int, ext string, data string) []byte {
	h := `{"code":` + strconv.Itoa(reqCode) + `,"extFields":{"AccessKey":"","OnsChannel":"ALIYUN",` +
		`"Signature":"ZFydGrd0uSh7AIhPmddrDcX/CMA="` + ext + `},"flag":0,"language":"CPP","opaque":` +
		strconv.Itoa(opaque) + `,"remark":"","version":333}` + "\n"
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(h)+len(data)))
	frame = binary.BigEndian.AppendUint32(frame, uint32(len(h))) // serialize type 0: JSON
	frame = append(frame, h...)
	return append(frame, data...)
}

// TestCompatCppHeartbeatRegistersConsumer: a C++ push consumer's
// HEART_BEAT (enum ordinals, subVersion as a string, no producerDataSet,
// trailing newline) registers its group, so GET_CONSUMER_LIST_BY_GROUP
// lists it and rebalance can give it queues.
func TestCompatCppHeartbeatRegistersConsumer(t *testing.T) {
	tg := newTarget(t)
	group := uniq("cpp_consumer_group")
	clientID := "127.0.0.1@14202#rmqcpp-" + uniq("c")
	hb := `{"clientID":"` + clientID + `","consumerDataSet":[{"consumeFromWhere":4,"consumeType":1,` +
		`"groupName":"` + group + `","messageModel":1,"subscriptionDataSet":[{"subString":"*",` +
		`"subVersion":"1796136456649","topic":"%RETRY%` + group + `"},{"subString":"*",` +
		`"subVersion":"1796136456649","topic":"TBW102"}]}]}` + "\n"
	rc := dialRaw(t, tg.BrokerAddr)
	rc.write(t, cppFrame(code.HeartBeat, 2, "", hb))
	resp, err := rc.answer(2, callTimeout)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, resp, code.Success, "")

	rc.write(t, cppFrame(code.GetConsumerListByGroup, 3, `,"consumerGroup":"`+group+`"`, ""))
	resp, err = rc.answer(3, callTimeout)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, resp, code.Success, "")
	list, err := body.DecodeGetConsumerListByGroupResponseBody(resp.Body)
	if err != nil {
		t.Fatalf("consumer list %q: %v", resp.Body, err)
	}
	if len(list.ConsumerIDList) != 1 || list.ConsumerIDList[0] != clientID {
		t.Fatalf("consumer list %q, want [%s]", list.ConsumerIDList, clientID)
	}

	// The pull consumer's heartbeat: ordinals 0 (CONSUME_ACTIVELY,
	// CONSUME_FROM_LAST_OFFSET), registered the same way.
	pullGroup := uniq("cpp_pull_consumer_group")
	hb = `{"clientID":"` + clientID + `","consumerDataSet":[{"consumeFromWhere":0,"consumeType":0,"groupName":"` +
		pullGroup + `","messageModel":1,"subscriptionDataSet":[{"subString":"*","subVersion":"1796136461516",` +
		`"topic":"TBW102"}]}]}` + "\n"
	rc.write(t, cppFrame(code.HeartBeat, 4, "", hb))
	if resp, err = rc.answer(4, callTimeout); err != nil {
		t.Fatal(err)
	}
	wantCode(t, resp, code.Success, "")
	rc.write(t, cppFrame(code.GetConsumerListByGroup, 5, `,"consumerGroup":"`+pullGroup+`"`, ""))
	if resp, err = rc.answer(5, callTimeout); err != nil {
		t.Fatal(err)
	}
	wantCode(t, resp, code.Success, "")
	if want := `{"consumerIdList":["` + clientID + `"]}`; string(resp.Body) != want {
		t.Fatalf("pull group list %s, want %s", resp.Body, want)
	}
}

// TestCompatCppLockBatchMQ: the orderly consumer's LOCK_BATCH_MQ body
// (trailing newline) locks the queues for its client id.
func TestCompatCppLockBatchMQ(t *testing.T) {
	tg := newTarget(t)
	topic := uniq("CppOrderTopic")
	tg.createTopic(t, topic, 4)
	group := uniq("cpp_orderly_consumer_group")
	clientID := "127.0.0.1@14454#rmqcpp-" + uniq("c")
	mq := func(q int) string {
		return `{"brokerName":"` + tg.BrokerName + `","queueId":` + strconv.Itoa(q) + `,"topic":"` + topic + `"}`
	}
	lock := `{"clientId":"` + clientID + `","consumerGroup":"` + group + `","mqSet":[` + mq(0) + `,` + mq(1) + `]}` + "\n"
	rc := dialRaw(t, tg.BrokerAddr)
	rc.write(t, cppFrame(code.LockBatchMq, 8, "", lock))
	resp, err := rc.answer(8, callTimeout)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, resp, code.Success, "")
	got, err := body.DecodeLockBatchResponseBody(resp.Body)
	if err != nil {
		t.Fatalf("lock answer %q: %v", resp.Body, err)
	}
	if len(got.LockOKMQSet) != 2 {
		t.Fatalf("locked %+v, want queues 0 and 1", got.LockOKMQSet)
	}
	unlock := `{"clientId":"` + clientID + `","consumerGroup":"` + group + `","mqSet":[` + mq(0) + `,` + mq(1) + `]}` + "\n"
	rc.write(t, cppFrame(code.UnlockBatchMq, 9, "", unlock))
	if resp, err = rc.answer(9, callTimeout); err != nil {
		t.Fatal(err)
	}
	wantCode(t, resp, code.Success, "")
}

// TestCompatSubscriptionGroupLenientBody: an UPDATE_AND_CREATE_SUBSCRIPTIONGROUP
// body written by a non-fastjson tool (numbers and booleans as strings) is
// read as fastjson reads it; fields it leaves out keep Java's defaults.
func TestCompatSubscriptionGroupLenientBody(t *testing.T) {
	tg := newTarget(t)
	group := uniq("compat_lenient_group")
	data := `{"groupName":"` + group + `","retryMaxTimes":"3","consumeBroadcastEnable":"false","brokerId":"0"}` + "\n"
	resp := tg.mustCall(t, tg.BrokerAddr, request(code.UpdateAndCreateSubscriptiongroup, nil, []byte(data), codec.JSON))
	wantCode(t, resp, code.Success, "")
	resp = tg.mustCall(t, tg.BrokerAddr, request(code.GetAllSubscriptiongroupConfig, nil, nil, codec.JSON))
	wantCode(t, resp, code.Success, "")
	var w body.SubscriptionGroupWrapper
	if err := w.Decode(resp.Body); err != nil {
		t.Fatal(err)
	}
	want := body.NewSubscriptionGroupConfig(group)
	want.RetryMaxTimes, want.ConsumeBroadcastEnable = 3, false
	if got := w.SubscriptionGroupTable[group]; got != want {
		t.Fatalf("group config %+v, want %+v", got, want)
	}
}
