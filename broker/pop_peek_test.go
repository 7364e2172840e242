package broker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func notifyReq(group, topic string, poll int64) *codec.RemotingCommand {
	h := &header.NotificationRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: -1, PollTime: poll,
		BornTime: time.Now().UnixMilli()}
	return codec.NewRequest(code.Notification, h.ToExtFields(), nil)
}

func notifyAnswer(t *testing.T, resp *codec.RemotingCommand) header.NotificationResponseHeader {
	t.Helper()
	var rh header.NotificationResponseHeader
	if resp.Code != code.Success {
		t.Fatalf("notification: %s %q", code.ResponseName(resp.Code), resp.Remark)
	}
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		t.Fatal(err)
	}
	return rh
}

// TestBrokerPopPeekNotificationPollingInfo: PEEK_MESSAGE reads without
// taking (a pop still gets the messages) and answers PULL_NOT_FOUND when
// empty; NOTIFICATION says whether a pop would find something, and a held
// one answers hasMsg=true as soon as a message is sent; POLLING_INFO counts
// held pops.
func TestBrokerPopPeekNotificationPollingInfo(t *testing.T) {
	e := newConsumeEnv(t)
	e.send("PopPk", 1, nil, "a")
	e.send("PopPk", 1, nil, "b")
	e.waitDispatched("PopPk", 1, 2)
	peek := func() *codec.RemotingCommand {
		h := &header.PeekMessageRequestHeader{Topic: "PopPk", QueueID: 1, MaxMsgNums: 32, ConsumerGroup: "pkg"}
		return e.call(codec.NewRequest(code.PeekMessage, h.ToExtFields(), nil))
	}
	resp := peek()
	e.expect(resp, code.Success, "FOUND")
	if ms := decodeBody(t, resp.Body); bodies(ms) != "a,b" || resp.ExtFields["restNum"] != "2" {
		t.Fatalf("peek: %q restNum %s", bodies(ms), resp.ExtFields["restNum"])
	}
	if rh := notifyAnswer(t, e.call(notifyReq("pkg", "PopPk", 0))); !rh.HasMsg {
		t.Fatal("notification: hasMsg false with two messages waiting")
	}
	_, _, got := e.pop("pkg", "PopPk", 1, 32, 60_000, 0)
	if len(got) != 2 {
		t.Fatalf("pop after peek: %d messages", len(got))
	}
	e.expect(peek(), code.PullNotFound, "NO_MESSAGE_IN_QUEUE")
	if rh := notifyAnswer(t, e.call(notifyReq("pkg", "PopPk", 0))); rh.HasMsg || rh.PollingFull {
		t.Fatalf("notification after the pop: %+v", rh)
	}

	// A held notification is answered when a message arrives.
	done := make(chan *codec.RemotingCommand, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r, err := e.c.InvokeSync(ctx, e.addr, notifyReq("pkg", "PopPk", 20_000))
		if err != nil {
			r = codec.NewResponse(-1, err.Error())
		}
		done <- r
	}()
	info := func() int32 {
		h := &header.PollingInfoRequestHeader{ConsumerGroup: "pkg", Topic: "PopPk", QueueID: 1}
		resp := e.call(codec.NewRequest(code.PollingInfo, h.ToExtFields(), nil))
		var rh header.PollingInfoResponseHeader
		if resp.Code != code.Success || rh.FromExtFields(resp.ExtFields) != nil {
			t.Fatalf("polling info: %s %v", code.ResponseName(resp.Code), resp.ExtFields)
		}
		return rh.PollingNum
	}
	testutil.Eventually(t, 5*time.Second, func() error {
		if n := e.b.PopNotificationsHeld(); n != 1 {
			return fmt.Errorf("held notifications %d", n)
		}
		return nil
	})
	sent := time.Now()
	e.send("PopPk", 1, nil, "c")
	if rh := notifyAnswer(t, <-done); !rh.HasMsg || time.Since(sent) > 10*time.Second {
		t.Fatalf("woken notification: %+v after %v (poll time 20 s)", rh, time.Since(sent))
	}
	if _, _, got := e.pop("pkg", "PopPk", 1, 32, 60_000, 0); len(got) != 1 {
		t.Fatalf("pop of c: %d messages", len(got))
	}
	// And a held pop, which POLLING_INFO counts.
	popDone := make(chan *codec.RemotingCommand, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r, err := e.c.InvokeSync(ctx, e.addr, popReq("pkg", "PopPk", 1, 32, 60_000, 20_000))
		if err != nil {
			r = codec.NewResponse(-1, err.Error())
		}
		popDone <- r
	}()
	testutil.Eventually(t, 5*time.Second, func() error {
		if n := info(); n != 1 {
			return fmt.Errorf("pollingNum %d", n)
		}
		return nil
	})
	e.send("PopPk", 1, nil, "d")
	r := <-popDone
	e.expect(r, code.Success, "FOUND")
	if n := info(); n != 0 {
		t.Fatalf("pollingNum after the wake-up %d", n)
	}
}
