package broker_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func TestConsumerManageConsumerList(t *testing.T) {
	e := newConsumeEnv(t)
	req := codec.NewRequest(code.GetConsumerListByGroup,
		(&header.GetConsumerListByGroupRequestHeader{ConsumerGroup: "cl"}).ToExtFields(), nil)
	e.expect(e.call(req), code.SystemError, "no consumer for this group, cl")
	sub := body.SubscriptionData{Topic: "T", SubString: "*", ExpressionType: "TAG"}
	registerConsumer(e.b, "cl", "CLUSTERING", 1, sub)
	registerConsumer(e.b, "cl", "CLUSTERING", 2, sub)
	resp := e.call(req)
	e.expect(resp, code.Success, "")
	if string(resp.Body) != `{"consumerIdList":["client-1","client-2"]}` {
		t.Fatalf("body %s", resp.Body)
	}
}

func queryOffsetReq(group, topic string, queueID int32) *codec.RemotingCommand {
	return codec.NewRequest(code.QueryConsumerOffset,
		(&header.QueryConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: queueID}).ToExtFields(), nil)
}

func TestConsumerManageUpdateAndQueryOffset(t *testing.T) {
	e := newConsumeEnv(t)
	upd := func(offset int64) *codec.RemotingCommand {
		return codec.NewRequest(code.UpdateConsumerOffset, (&header.UpdateConsumerOffsetRequestHeader{
			ConsumerGroup: "og", Topic: "OffT", QueueID: 3, CommitOffset: offset}).ToExtFields(), nil)
	}
	resp := e.call(upd(42))
	e.expect(resp, code.Success, "")
	resp = e.call(queryOffsetReq("og", "OffT", 3))
	e.expect(resp, code.Success, "")
	if resp.ExtFields["offset"] != "42" {
		t.Fatalf("offset %v", resp.ExtFields)
	}
	// The Java client commits oneway: no answer, but the offset moves.
	ow := upd(43)
	ow.MarkOneway()
	if err := e.c.InvokeOneway(t.Context(), e.addr, ow); err != nil {
		t.Fatal(err)
	}
	testutilEventually(t, func() bool { return e.b.Offsets().QueryOffset("og", "OffT", 3) == 43 })
}

func TestConsumerManageQueryUnknownOffset(t *testing.T) {
	e := newConsumeEnv(t)
	// Nothing committed, the queue starts at 0 and its first message is in
	// memory: 0, so a new group starts from the beginning.
	e.send("NewT", 0, nil, "a")
	e.waitDispatched("NewT", 0, 1)
	resp := e.call(queryOffsetReq("fresh", "NewT", 0))
	e.expect(resp, code.Success, "")
	if resp.ExtFields["offset"] != "0" {
		t.Fatalf("offset %v, want 0", resp.ExtFields)
	}
	resp = e.call(queryOffsetReq("fresh", "NeverSeen", 1))
	e.expect(resp, code.Success, "")
	if resp.ExtFields["offset"] != "0" {
		t.Fatalf("offset of an unknown queue %v, want 0", resp.ExtFields)
	}
}

func testutilEventually(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait.Scale(5 * time.Second))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConsumerManageQueueOffsetLookups(t *testing.T) {
	e := newConsumeEnv(t)
	before := time.Now().UnixMilli()
	var stamps []int64
	for i := range 3 {
		e.send("LookT", 1, nil, "m"+strconv.Itoa(i))
		e.waitDispatched("LookT", 1, int64(i+1))
		stamps = append(stamps, e.b.Store().MessageStoreTimeStamp("LookT", 1, int64(i)))
		time.Sleep(5 * time.Millisecond) // distinct store times for the search
	}
	ask := func(c int32, h header.CommandCustomHeader) map[string]string {
		resp := e.call(codec.NewRequest(c, h.ToExtFields(), nil))
		e.expect(resp, code.Success, "")
		return resp.ExtFields
	}
	if got := ask(code.GetMaxOffset, &header.GetMaxOffsetRequestHeader{Topic: "LookT", QueueID: 1}); got["offset"] != "3" {
		t.Errorf("max offset %v", got)
	}
	if got := ask(code.GetMinOffset, &header.GetMinOffsetRequestHeader{Topic: "LookT", QueueID: 1}); got["offset"] != "0" {
		t.Errorf("min offset %v", got)
	}
	if got := ask(code.GetMaxOffset, &header.GetMaxOffsetRequestHeader{Topic: "Nope", QueueID: 0}); got["offset"] != "0" {
		t.Errorf("max offset of an unknown queue %v", got)
	}
	got := ask(code.GetEarliestMsgStoretime, &header.GetEarliestMsgStoretimeRequestHeader{Topic: "LookT", QueueID: 1})
	if got["timestamp"] != strconv.FormatInt(stamps[0], 10) || stamps[0] < before {
		t.Errorf("earliest store time %v, want %d", got, stamps[0])
	}
	got = ask(code.SearchOffsetByTimestamp, &header.SearchOffsetRequestHeader{Topic: "LookT", QueueID: 1, Timestamp: stamps[2]})
	if got["offset"] != "2" {
		t.Errorf("search by the third message's time %v, want 2", got)
	}
	got = ask(code.SearchOffsetByTimestamp, &header.SearchOffsetRequestHeader{Topic: "LookT", QueueID: 1, Timestamp: before - 1000})
	if got["offset"] != "0" {
		t.Errorf("search before the first message %v, want 0", got)
	}
}
