package integration

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// groupConnections asks the broker for the group's connections
// (GET_CONSUMER_CONNECTION_LIST); nil when the group is not online.
func groupConnections(t *testing.T, rc *remoting.Client, addr, group string) *body.ConsumerConnection {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	h := header.GetConsumerConnectionListRequestHeader{ConsumerGroup: group}
	resp, err := rc.InvokeSync(ctx, addr, codec.NewRequest(code.GetConsumerConnectionList, h.ToExtFields(), nil))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Code != code.Success {
		return nil
	}
	cc, err := body.DecodeConsumerConnection(resp.Body)
	if err != nil {
		t.Fatalf("decode %q: %v", resp.Body, err)
	}
	return cc
}

func wantConnections(t *testing.T, rc *remoting.Client, addr, group string, n int) *body.ConsumerConnection {
	t.Helper()
	var cc *body.ConsumerConnection
	testutil.Eventually(t, 15*time.Second, func() error {
		cc = groupConnections(t, rc, addr, group)
		if cc == nil || len(cc.ConnectionSet) != n {
			return fmt.Errorf("group %s connections %+v, want %d", group, cc, n)
		}
		return nil
	})
	return cc
}

// TestGroupDisconnectedConsumerIsDroppedAndOthersRebalance: when a Go push
// consumer goes away (the Go client never sends UNREGISTER_CLIENT, it just
// closes its connection), the broker drops it from the group and sends
// NOTIFY_CONSUMER_IDS_CHANGED to the others, whose immediate rebalance
// (well before the client's own 20 s timer) takes over every queue.
func TestGroupDisconnectedConsumerIsDroppedAndOthersRebalance(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	addr := e.b.Addr().String()
	group := uniqueName("gg")
	r1, r2 := newReceived(), newReceived()
	e.startPush(pushOpts{group: group}, r1)
	c2 := e.startPush(pushOpts{group: group}, r2)

	cc := wantConnections(t, rc, addr, group, 2)
	for _, c := range cc.ConnectionSet {
		if c.Language != "GO" || c.Version <= 0 {
			t.Fatalf("connection %+v", c)
		}
	}
	if _, ok := cc.SubscriptionTable[e.topic]; !ok {
		t.Fatalf("subscriptions %v", cc.SubscriptionTable)
	}
	// Wait until both consumers own queues.
	round := 0
	testutil.Eventually(t, 30*time.Second, func() error {
		round++
		p := "g" + strconv.Itoa(round)
		e.send(p, 4, "", nil)
		time.Sleep(300 * time.Millisecond)
		got1, got2 := 0, 0
		for i := range 4 {
			b := p + "-" + strconv.Itoa(i)
			if r1.has(b) {
				got1++
			}
			if r2.has(b) {
				got2++
			}
		}
		if got1 == 0 || got2 == 0 {
			return fmt.Errorf("round %d: %d / %d of 4", round, got1, got2)
		}
		return nil
	})

	left := time.Now()
	if err := c2.Shutdown(); err != nil {
		t.Fatal(err)
	}
	wantConnections(t, rc, addr, group, 1)
	e.send("after", 8, "", nil)
	r1.waitAll(t, "after", 8, 30*time.Second)
	if took := time.Since(left); took > 18*time.Second {
		t.Errorf("takeover took %v: the periodic rebalance did it, not the notification", took)
	}
}

// TestGroupHeartbeatAnswerCarriesBrokerVersion: clients record the
// heartbeat answer's version as the broker version (the Go client gates
// filter support on it, Java clients SQL92).
func TestGroupHeartbeatAnswerCarriesBrokerVersion(t *testing.T) {
	t.Parallel()
	b := testutil.StartBroker(t, "")
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	hb := body.HeartbeatData{ClientID: "192.0.2.2@9", ProducerDataSet: []body.ProducerData{{GroupName: "pgV"}}}
	req := codec.NewRequest(code.HeartBeat, nil, hb.Encode())
	req.Language, req.Version = 9, 317 // an older GO client
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	resp, err := rc.InvokeSync(ctx, b.Addr().String(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Code != code.Success || resp.Version != code.CurrentVersion {
		t.Fatalf("heartbeat answer code %d version %d", resp.Code, resp.Version)
	}
	pc := b.Producers().ProducerConnection("pgV")
	if pc == nil || len(pc.ConnectionSet) != 1 || pc.ConnectionSet[0].Version != 317 || pc.ConnectionSet[0].Language != "GO" {
		t.Fatalf("producer connection %+v", pc)
	}
}

// TestGroupAdminCallsReachGoConsumer: GET_CONSUMER_RUNNING_INFO is forwarded
// to a Go push consumer and its answer relayed; INVOKE_BROKER_TO_RESET_OFFSET
// rewinds the group, and the consumer (told by RESET_CONSUMER_CLIENT_OFFSET)
// receives the messages again.
func TestGroupAdminCallsReachGoConsumer(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	addr := e.b.Addr().String()
	group := uniqueName("ga")
	r := newReceived()
	e.startPush(pushOpts{group: group}, r)
	e.send("first", 8, "", nil)
	r.waitAll(t, "first", 8, 30*time.Second)
	cc := wantConnections(t, rc, addr, group, 1)

	call := func(req *codec.RemotingCommand) *codec.RemotingCommand {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
		defer cancel()
		resp, err := rc.InvokeSync(ctx, addr, req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	ih := header.GetConsumerRunningInfoRequestHeader{ConsumerGroup: group, ClientID: cc.ConnectionSet[0].ClientID}
	resp := call(codec.NewRequest(code.GetConsumerRunningInfo, ih.ToExtFields(), nil))
	if resp.Code != code.Success || !strings.Contains(string(resp.Body), e.topic) {
		t.Fatalf("running info: code %d remark %q body %.200s", resp.Code, resp.Remark, resp.Body)
	}

	// The consumer commits its offsets to the broker every few seconds;
	// the reset needs the group's offsets there.
	testutil.Eventually(t, 20*time.Second, func() error {
		if off := e.b.Offsets().QueryOffsets(group, e.topic); len(off) < 4 {
			return fmt.Errorf("offsets %v", off)
		}
		return nil
	})
	rh := header.ResetOffsetRequestHeader{Topic: e.topic, Group: group, Timestamp: time.Now().Add(-time.Hour).UnixMilli(), IsForce: true}
	resp = call(codec.NewRequest(code.InvokeBrokerToResetOffset, rh.ToExtFields(), nil))
	if resp.Code != code.Success {
		t.Fatalf("reset: code %d remark %q", resp.Code, resp.Remark)
	}
	testutil.Eventually(t, 30*time.Second, func() error {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i := range 8 {
			if n := r.seen["first-"+strconv.Itoa(i)]; n < 2 {
				return fmt.Errorf("first-%d received %d times", i, n)
			}
		}
		return nil
	})
}
