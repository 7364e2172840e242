package broker_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// TestBrokerPopLongPollWakesOnSend: an empty pop with a poll time is held
// and answered with the message as soon as one is sent; without one it
// ends with POLLING_TIMEOUT after the poll time.
func TestBrokerPopLongPollWakesOnSend(t *testing.T) {
	e := newConsumeEnv(t)
	e.send("PopLp", 0, nil, "first")
	e.waitDispatched("PopLp", 0, 1)
	_, _, got := e.pop("lg", "PopLp", -1, 32, 60_000, 0)
	if len(got) != 1 {
		t.Fatalf("popped %d", len(got))
	}
	type result struct {
		resp *codec.RemotingCommand
		took time.Duration
		err  error
	}
	// A pop answered before its poll time ended was woken by the arrival.
	poll := wait.Scale(20 * time.Second)
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), poll+10*time.Second)
		defer cancel()
		begin := time.Now()
		resp, err := e.c.InvokeSync(ctx, e.addr, popReq("lg", "PopLp", -1, 32, 60_000, poll.Milliseconds()))
		done <- result{resp, time.Since(begin), err}
	}()
	testutil.Eventually(t, 5*time.Second, func() error {
		if n := e.b.PopHeld(); n != 1 {
			return fmt.Errorf("held pops %d", n)
		}
		return nil
	})
	e.send("PopLp", 2, nil, "second")
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	e.expect(r.resp, code.Success, "FOUND")
	if ms := decodeBody(t, r.resp.Body); len(ms) != 1 || string(ms[0].Body) != "second" || r.took >= poll {
		t.Fatalf("woken pop: %d messages after %v", len(ms), r.took)
	}
	// Nothing arrives: POLLING_TIMEOUT once the poll time is over.
	begin := time.Now()
	resp := e.call(popReq("lg", "PopLp", -1, 32, 60_000, 300))
	// The remark is NO_MESSAGE_IN_QUEUE, or, when the timed-out re-run
	// itself starts over 500 ms late (a loaded -race run), Java's "timeout
	// too much": both are POLLING_TIMEOUT.
	e.expect(resp, code.PollingTimeout, "")
	if !slices.Contains([]string{"NO_MESSAGE_IN_QUEUE", "the broker[127.0.0.1] pop message is timeout too much"}, resp.Remark) {
		t.Fatalf("POLLING_TIMEOUT remark %q", resp.Remark)
	}
	if took := time.Since(begin); took < 250*time.Millisecond {
		t.Fatalf("answered after %v, before the poll time", took)
	}
}

func orderPopReq(group, topic string, queueID, maxNums int32, invisible int64, attempt string) *codec.RemotingCommand {
	h := &header.PopMessageRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: queueID, MaxMsgNums: maxNums,
		InvisibleTime: invisible, BornTime: 0, Order: true, AttemptID: attempt}
	return codec.NewRequest(code.PopMessage, h.ToExtFields(), nil)
}

func (e *consumeEnv) popOrder(group, topic string, maxNums int32, invisible int64, attempt string) (header.PopMessageResponseHeader, []popped) {
	e.t.Helper()
	resp := e.call(orderPopReq(group, topic, 0, maxNums, invisible, attempt))
	var rh header.PopMessageResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		e.t.Fatal(err)
	}
	if resp.Code != code.Success {
		return rh, nil
	}
	starts, _ := pop.ParseStartOffsetInfo(*rh.StartOffsetInfo)
	var out []popped
	for _, m := range decodeBody(e.t, resp.Body) {
		out = append(out, popped{m: m, handle: pop.BuildExtraInfo(starts[pop.InfoKey(m.Topic, m.QueueID)],
			rh.PopTime, rh.InvisibleTime, rh.ReviveQid, m.Topic, "broker-a", m.QueueID, m.QueueOffset)})
	}
	return rh, out
}

func popBodies(ps []popped) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += ","
		}
		s += string(p.m.Body)
	}
	return s
}

// TestBrokerPopOrderlyBlocksQueue: a FIFO pop blocks the queue for the
// group until the whole batch is acked; an unacked batch comes back in
// order after its invisible time with its consumed count in
// orderCountInfo.
func TestBrokerPopOrderlyBlocksQueue(t *testing.T) {
	e := newConsumeEnv(t)
	for i := range 4 {
		e.send("PopFifo", 0, nil, "m"+strconv.Itoa(i))
	}
	e.waitDispatched("PopFifo", 0, 4)
	rh, got := e.popOrder("fg", "PopFifo", 2, 60_000, "a1")
	if popBodies(got) != "m0,m1" || rh.ReviveQid != pop.OrderReviveQueue || rh.OrderCountInfo == nil ||
		*rh.OrderCountInfo != "0 0 0" {
		t.Fatalf("first orderly pop %q header %+v", popBodies(got), rh)
	}
	if _, more := e.popOrder("fg", "PopFifo", 2, 60_000, "a2"); len(more) != 0 {
		t.Fatalf("blocked queue handed out %q", popBodies(more))
	}
	e.expect(e.ack("fg", got[0]), code.Success, "")
	if _, more := e.popOrder("fg", "PopFifo", 2, 60_000, "a3"); len(more) != 0 {
		t.Fatalf("queue with m1 unacked handed out %q", popBodies(more))
	}
	e.expect(e.ack("fg", got[1]), code.Success, "")
	_, got = e.popOrder("fg", "PopFifo", 2, 200, "a4")
	if popBodies(got) != "m2,m3" {
		t.Fatalf("after acks %q", popBodies(got))
	}
	// Not acked: the same batch again once the invisible time passed.
	var rh2 header.PopMessageResponseHeader
	testutil.Eventually(t, 10*time.Second, func() error {
		var again []popped
		rh2, again = e.popOrder("fg", "PopFifo", 2, 60_000, "a5")
		if popBodies(again) != "m2,m3" {
			return fmt.Errorf("re-pop %q", popBodies(again))
		}
		return nil
	})
	// 5.x's form: each re-delivered offset's count, then the queue's minimum.
	if rh2.OrderCountInfo == nil || *rh2.OrderCountInfo != "0 qo0%2 1;0 qo0%3 1;0 0 1" {
		t.Fatalf("orderCountInfo of the second delivery %q", *rh2.OrderCountInfo)
	}
}

// TestBrokerPopRetryToDLQ: past the group's retryMaxTimes an unacked
// message goes to %DLQ%<group> instead of the retry topic.
func TestBrokerPopRetryToDLQ(t *testing.T) {
	e := newConsumeEnv(t, fastRevive)
	sg := body.NewSubscriptionGroupConfig("dg")
	sg.RetryMaxTimes = 1
	e.b.Subscriptions().UpdateSubscriptionGroupConfig(sg)
	e.send("PopDlq", 0, nil, "x")
	e.waitDispatched("PopDlq", 0, 1)
	_, _, got := e.pop("dg", "PopDlq", 0, 1, 200, 0)
	if len(got) != 1 {
		t.Fatalf("popped %d", len(got))
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		_, _, more := e.pop("dg", "PopDlq", -1, 32, 200, 0)
		for _, p := range more {
			if p.m.ReconsumeTimes != 1 {
				return fmt.Errorf("retry delivery with reconsumeTimes %d", p.m.ReconsumeTimes)
			}
			return nil
		}
		return fmt.Errorf("not revived yet")
	})
	testutil.Eventually(t, 10*time.Second, func() error {
		if n := e.b.Store().MaxOffsetInQueue("%DLQ%dg", 0); n != 1 {
			return fmt.Errorf("DLQ holds %d", n)
		}
		return nil
	})
	e.reviveSettled()
	if _, _, more := e.pop("dg", "PopDlq", -1, 32, 60_000, 0); len(more) != 0 {
		t.Fatalf("dead message delivered again: reconsumeTimes %d", more[0].m.ReconsumeTimes)
	}
}

// TestBrokerPopBatchAck: BATCH_ACK_MESSAGE acks the offsets set in the
// BitSet (base64 of BitSet.toByteArray, as fastjson writes it); the others
// come back after the invisible time.
func TestBrokerPopBatchAck(t *testing.T) {
	e := newConsumeEnv(t, fastRevive)
	for i := range 4 {
		e.send("PopBa", 0, nil, "m"+strconv.Itoa(i))
	}
	e.waitDispatched("PopBa", 0, 4)
	_, rh, got := e.pop("bg", "PopBa", 0, 32, ackSlack(), 0)
	if len(got) != 4 {
		t.Fatalf("popped %d", len(got))
	}
	e.expect(e.call(codec.NewRequest(code.BatchAckMessage, nil, nil)), code.NoMessage, "")
	// bits 0 and 2 of a BitSet over startOffset 0: toByteArray {0x05}.
	body := `{"acks":[{"b":"BQ==","c":"bg","it":` + strconv.FormatInt(rh.InvisibleTime, 10) + `,"pt":` + strconv.FormatInt(rh.PopTime, 10) +
		`,"q":0,"r":"0","rq":` + strconv.Itoa(int(rh.ReviveQid)) + `,"so":0,"t":"PopBa"}],"brokerName":"broker-a"}`
	e.expect(e.call(codec.NewRequest(code.BatchAckMessage, nil, []byte(body))), code.Success, "")
	seen := map[string]bool{}
	testutil.Eventually(t, 10*time.Second, func() error {
		_, _, more := e.pop("bg", "PopBa", -1, 32, 60_000, 0)
		for _, p := range more {
			seen[string(p.m.Body)] = true
		}
		if len(seen) < 2 {
			return fmt.Errorf("revived %v", seen)
		}
		return nil
	})
	e.reviveSettled()
	_, _, more := e.pop("bg", "PopBa", -1, 32, 60_000, 0)
	for _, p := range more {
		seen[string(p.m.Body)] = true
	}
	if len(seen) != 2 || !seen["m1"] || !seen["m3"] {
		t.Fatalf("revived %v, want m1 and m3", seen)
	}
}

// TestBrokerPopPollingFull: past maxPopPollingSize held pops an empty pop
// is answered at once with POLLING_FULL (5.x's 209).
func TestBrokerPopPollingFull(t *testing.T) {
	e := newConsumeEnv(t, func(cfg *broker.BrokerConfig, _ *store.MessageStoreConfig) { cfg.MaxPopPollingSize = 1 })
	e.send("PopFull", 0, nil, "x")
	e.waitDispatched("PopFull", 0, 1)
	if _, _, got := e.pop("fg", "PopFull", -1, 32, 60_000, 0); len(got) != 1 {
		t.Fatalf("popped %d", len(got))
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = e.c.InvokeSync(ctx, e.addr, popReq("fg", "PopFull", -1, 32, 60_000, 10_000))
	}()
	testutil.Eventually(t, 5*time.Second, func() error {
		if n := e.b.PopHeld(); n != 1 {
			return fmt.Errorf("held %d", n)
		}
		return nil
	})
	resp, _, _ := e.pop("fg", "PopFull", -1, 32, 60_000, 10_000)
	e.expect(resp, code.PollingFull, "NO_MESSAGE_IN_QUEUE")
}

// TestBrokerPopSQL92Filter: a pop with an SQL92 expression hands out only
// the matching messages; a bad expression is SUBSCRIPTION_PARSE_FAILED.
func TestBrokerPopSQL92Filter(t *testing.T) {
	e := newConsumeEnv(t)
	for i := range 6 {
		e.send("PopSql", 0, map[string]string{"a": strconv.Itoa(i)}, "m"+strconv.Itoa(i))
	}
	e.waitDispatched("PopSql", 0, 6)
	req := func(exp string) *codec.RemotingCommand {
		h := &header.PopMessageRequestHeader{ConsumerGroup: "sqlg", Topic: "PopSql", QueueID: 0, MaxMsgNums: 32,
			InvisibleTime: 60_000, BornTime: 0, ExpType: "SQL92", Exp: exp}
		return codec.NewRequest(code.PopMessage, h.ToExtFields(), nil)
	}
	e.expect(e.call(req("a >")), code.SubscriptionParseFailed, "parse the consumer's subscription failed")
	resp := e.call(req("a >= 4"))
	e.expect(resp, code.Success, "FOUND")
	if got := bodies(decodeBody(t, resp.Body)); got != "m4,m5" {
		t.Fatalf("SQL92 pop got %q", got)
	}
}
