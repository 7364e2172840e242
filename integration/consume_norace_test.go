//go:build !race

package integration

// Timing-sensitive consume tests, and the orderly and pull consumers, whose
// client (rocketmq-client-go) has data races of its own under -race.

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/rocketmq-go/rmq/internal/testutil"
)

func TestNoRaceConsumeOrderlyKeepsQueueOrder(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	e.send("o", 40, "", nil) // queue i%4, so each queue holds an increasing sequence
	r := newReceived()
	e.startPush(pushOpts{group: uniqueName("og"), extra: []consumer.Option{consumer.WithConsumerOrder(true)}}, r)
	r.waitAll(t, "o", 40, 30*time.Second)
	r.mu.Lock()
	defer r.mu.Unlock()
	for q, bodies := range r.order {
		last := -1
		for _, b := range bodies {
			n, _ := strconv.Atoi(b[2:])
			if n%4 != q || n <= last {
				t.Fatalf("queue %d delivered %v out of order", q, bodies)
			}
			last = n
		}
	}
}

func TestNoRaceConsumeLongPollWakesOnArrival(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	e.send("warm", 4, "", nil)
	r := newReceived()
	e.startPush(pushOpts{group: uniqueName("lg")}, r)
	r.waitAll(t, "warm", 4, 20*time.Second)
	time.Sleep(time.Second) // every queue's pull is now held by the broker (20 s suspend)
	start := time.Now()
	e.send("wake", 1, "", nil)
	r.waitAll(t, "wake", 1, 10*time.Second)
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("message reached the consumer after %v; the hold is 20 s, arrival should wake it at once", took)
	}
}

func TestNoRaceConsumePullConsumerAndLitePull(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	e.send("p", 12, "TagA", nil)
	// A send is answered before the dispatcher writes its consume-queue unit
	// (as in Java): pull only once every queue holds its three.
	testutil.Eventually(t, 10*time.Second, func() error {
		for q := range int32(4) {
			if n := e.b.Store().MaxOffsetInQueue(e.topic, q); n != 3 {
				return fmt.Errorf("queue %d holds %d", q, n)
			}
		}
		return nil
	})
	pc, err := consumer.NewPullConsumer(
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		consumer.WithGroupName(uniqueName("pullg")),
		consumer.WithInstance(uniqueName("c")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.Subscribe(e.topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "TagA"}); err != nil {
		t.Fatal(err)
	}
	if err := pc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Shutdown() })
	got := map[string]bool{}
	for q := range 4 {
		mq := &primitive.MessageQueue{Topic: e.topic, BrokerName: e.b.Config().BrokerName, QueueId: q}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := pc.PullFrom(ctx, mq, 0, 32)
		cancel()
		if err != nil || res.Status != primitive.PullFound {
			t.Fatalf("pull queue %d: %v %+v", q, err, res)
		}
		if res.MaxOffset != 3 || res.NextBeginOffset != 3 {
			t.Fatalf("queue %d result %+v", q, res)
		}
		for _, m := range res.GetMessageExts() {
			got[string(m.Body)] = true
		}
	}
	if len(got) != 12 {
		t.Fatalf("pulled %d distinct messages, want 12", len(got))
	}

	// Lite pull: Poll/ACK over the consumer's own rebalanced queues.
	lp, err := consumer.NewPullConsumer(
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		consumer.WithGroupName(uniqueName("liteg")),
		consumer.WithInstance(uniqueName("c")),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := lp.Subscribe(e.topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "*"}); err != nil {
		t.Fatal(err)
	}
	if err := lp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lp.Shutdown() })
	r := newReceived()
	testutil.Eventually(t, 20*time.Second, func() error {
		cr, err := lp.Poll(context.Background(), 500*time.Millisecond)
		if err == nil {
			r.add(cr.GetMsgList()...)
			lp.ACK(context.Background(), cr, consumer.ConsumeSuccess)
		}
		if r.count() < 12 {
			return fmt.Errorf("polled %d of 12", r.count())
		}
		return nil
	})
}
