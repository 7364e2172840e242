package compat

import (
	"context"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Long polling (Java PullMessageProcessor + PullRequestHoldService with
// longPollingEnable=true): a pull at the queue's end with the suspend flag
// is held, answered when a message arrives, or at its timeout with
// PULL_NOT_FOUND. Either answer is serialized as JSON (the server's default),
// whatever the request used: golden rocketmq-client session, held pulls.

type pullReply struct {
	resp *codec.RemotingCommand
	err  error
	at   time.Time
}

// pullAsync starts a pull and delivers its reply on the returned channel.
func (tg *target) pullAsync(ext map[string]string, ser codec.SerializeType) <-chan pullReply {
	ch := make(chan pullReply, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		resp, err := tg.client.InvokeSync(ctx, tg.BrokerAddr, request(code.PullMessage, ext, nil, ser))
		ch <- pullReply{resp, err, time.Now()}
	}()
	return ch
}

func TestCompatPullLongPollWokenByArrival(t *testing.T) {
	tg := newTarget(t)
	topic := uniq("CompatLongPoll")
	tg.createTopic(t, topic, 2)
	forEachSer(t, func(t *testing.T, ser codec.SerializeType) {
		group := uniq("compat_lp_cg")
		qid := 0 // each serialization waits on its own empty queue
		if ser == codec.RocketMQ {
			qid = 1
		}
		const off = 0
		ext := pullExt(group, topic, qid, off, pullFlagSubscription|pullFlagSuspend)
		ext["suspendTimeoutMillis"] = "20000"
		replies := tg.pullAsync(ext, ser)
		select {
		case r := <-replies:
			t.Fatalf("pull at the end of the queue with the suspend flag answered at once: %+v %v", r.resp, r.err)
		case <-time.After(500 * time.Millisecond):
		}
		tg.send(t, sendMsg{Topic: topic, Body: "wake-" + serName(ser), QueueID: qid}, codec.JSON)
		var r pullReply
		select {
		case r = <-replies:
		case <-time.After(10 * time.Second):
			t.Fatal("held pull not answered 10 s after a message arrived")
		}
		if r.err != nil {
			t.Fatal(r.err)
		}
		wantCode(t, r.resp, code.Success, "FOUND")
		// A held request is answered by the hold service with a fresh
		// response in the server's default serialization (JSON).
		wantSer(t, r.resp, codec.JSON)
		wantPullHeader(t, r.resp, off+1, 0, off+1)
		msgs := decodeRecords(t, r.resp.Body)
		if len(msgs) != 1 || string(msgs[0].Body) != "wake-"+serName(ser) || msgs[0].QueueOffset != off {
			t.Fatalf("woken pull returned %d messages: %+v", len(msgs), msgs)
		}
	})
}

func TestCompatPullLongPollTimeout(t *testing.T) {
	tg := newTarget(t)
	topic := pullTopic(t, tg, 1)
	ext := pullExt(uniq("compat_lp_cg"), topic, 0, 1, pullFlagSubscription|pullFlagSuspend)
	ext["suspendTimeoutMillis"] = "1000"
	start := time.Now()
	r := <-tg.pullAsync(ext, codec.RocketMQ)
	if r.err != nil {
		t.Fatal(r.err)
	}
	// Held for at least the timeout; the hold service's 5 s check period
	// bounds how late the answer may come.
	if held := r.at.Sub(start); held < time.Second || held > 15*time.Second {
		t.Fatalf("held %v, want between 1 s and the hold service's period", held)
	}
	wantCode(t, r.resp, code.PullNotFound, "OFFSET_OVERFLOW_ONE")
	wantSer(t, r.resp, codec.JSON) // answered by the hold service, as above
	wantPullHeader(t, r.resp, 1, 0, 1)
}
