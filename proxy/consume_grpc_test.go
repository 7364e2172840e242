package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// startConsumeEnv is startEnv with a broker that revives popped messages
// every 20 ms and a proxy that allows short polls and invisible times, so
// redelivery tests take about a second.
func startConsumeEnv(t testing.TB, mode string, brokerOpts ...testutil.BrokerOption) *env {
	t.Helper()
	opts := append([]testutil.BrokerOption{func(cfg *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		cfg.ReviveInterval = 20
	}}, brokerOpts...)
	return startEnvB(t, mode, opts, func(cfg *proxy.Config) {
		cfg.GRPCClientConsumerMinLongPollingTimeoutMillis = 100
		cfg.MinInvisibleTimeMillsForRecv = 100
	})
}

// received is one ReceiveMessage call's stream.
type received struct {
	status *apiv2.Status
	msgs   []*apiv2.Message
	took   time.Duration
}

func (e *env) receiveReq(topic, group string, invisible, poll time.Duration) *apiv2.ReceiveMessageRequest {
	return &apiv2.ReceiveMessageRequest{
		Group: &apiv2.Resource{Name: group},
		MessageQueue: &apiv2.MessageQueue{Topic: &apiv2.Resource{Name: topic}, Id: 0,
			Broker: &apiv2.Broker{Name: e.b.Config().BrokerName, Endpoints: e.endpoints()}},
		FilterExpression:   &apiv2.FilterExpression{Type: apiv2.FilterType_TAG, Expression: "*"},
		BatchSize:          16,
		InvisibleDuration:  durationpb.New(invisible),
		LongPollingTimeout: durationpb.New(poll),
	}
}

// receive runs one ReceiveMessage and checks the stream's shape: a status
// first, then messages, then a delivery timestamp, then the end.
func (e *env) receive(t *testing.T, clientID string, req *apiv2.ReceiveMessageRequest) received {
	t.Helper()
	r, err := e.tryReceive(e.ctx(t, clientID), req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// receiveAsync runs receive on another goroutine; errors are reported
// with t.Error (FailNow is for the test goroutine only).
func (e *env) receiveAsync(t *testing.T, clientID string, req *apiv2.ReceiveMessageRequest) <-chan received {
	ctx := e.ctx(t, clientID)
	out := make(chan received, 1)
	go func() {
		r, err := e.tryReceive(ctx, req)
		if err != nil {
			t.Error(err)
		}
		out <- r
	}()
	return out
}

func (e *env) tryReceive(ctx context.Context, req *apiv2.ReceiveMessageRequest) (received, error) {
	start := time.Now()
	var r received
	stream, err := e.cli.ReceiveMessage(ctx, req)
	if err != nil {
		return r, err
	}
	var sawTS bool
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return r, fmt.Errorf("receive stream: %w", err)
		}
		switch {
		case resp.GetStatus() != nil:
			if r.status != nil || len(r.msgs) > 0 || sawTS {
				return r, errors.New("status not first in the stream")
			}
			r.status = resp.GetStatus()
		case resp.GetMessage() != nil:
			if r.status == nil || sawTS {
				return r, errors.New("message before the status or after the delivery timestamp")
			}
			r.msgs = append(r.msgs, resp.GetMessage())
		case resp.GetDeliveryTimestamp() != nil:
			sawTS = true
		}
	}
	if r.status == nil || !sawTS {
		return r, fmt.Errorf("stream without status (%v) or delivery timestamp (%v)", r.status, sawTS)
	}
	r.took = time.Since(start)
	return r, nil
}

// receiveN receives from topic as group until n messages came.
func (e *env) receiveN(t *testing.T, clientID, topic, group string, n int, invisible time.Duration) []*apiv2.Message {
	t.Helper()
	var got []*apiv2.Message
	testutil.Eventually(t, 15*time.Second, func() error {
		r := e.receive(t, clientID, e.receiveReq(topic, group, invisible, 300*time.Millisecond))
		got = append(got, r.msgs...)
		if len(got) < n {
			return fmt.Errorf("%d of %d messages received (last status %v)", len(got), n, r.status)
		}
		return nil
	})
	return got
}

func (e *env) ack(t *testing.T, clientID, topic, group string, msgs ...*apiv2.Message) *apiv2.AckMessageResponse {
	t.Helper()
	req := &apiv2.AckMessageRequest{Group: &apiv2.Resource{Name: group}, Topic: &apiv2.Resource{Name: topic}}
	for _, m := range msgs {
		req.Entries = append(req.Entries, &apiv2.AckMessageEntry{MessageId: m.GetSystemProperties().GetMessageId(),
			ReceiptHandle: m.GetSystemProperties().GetReceiptHandle()})
	}
	resp, err := e.cli.AckMessage(e.ctx(t, clientID), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// sendN sends n messages with bodies prefix-0.. over gRPC.
func (e *env) sendN(t *testing.T, topic, prefix string, n int) {
	t.Helper()
	cli := newClientID()
	for i := range n {
		if r := e.send(t, cli, newMsg(topic, prefix+strconv.Itoa(i))); r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("send: %v", r)
		}
	}
}

// expectNothing receives for d and fails on any message.
func (e *env) expectNothing(t *testing.T, clientID, topic, group string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); {
		r := e.receive(t, clientID, e.receiveReq(topic, group, time.Second, 300*time.Millisecond))
		if len(r.msgs) > 0 {
			t.Fatalf("unexpected delivery %v", r.msgs)
		}
		if r.status.GetCode() != apiv2.Code_MESSAGE_NOT_FOUND {
			t.Fatalf("empty receive status %v, want MESSAGE_NOT_FOUND", r.status)
		}
	}
}

// TestProxyGRPCReceiveAckNeverRedelivered: messages sent over gRPC are
// received once with their ids and bodies; once acked they never come back,
// well past their invisible time.
func TestProxyGRPCReceiveAckNeverRedelivered(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startConsumeEnv(t, mode)
		e.createTopic(t, "RAck", 2)
		cli := newClientID()
		e.sendN(t, "RAck", "m", 4)
		got := e.receiveN(t, cli, "RAck", "GAck", 4, time.Second)
		for _, m := range got {
			sp := m.GetSystemProperties()
			if sp.GetDeliveryAttempt() != 1 || sp.GetReceiptHandle() == "" || sp.GetBodyDigest() == nil || m.GetTopic().GetName() != "RAck" {
				t.Fatalf("message %v", m)
			}
		}
		resp := e.ack(t, cli, "RAck", "GAck", got...)
		if resp.GetStatus().GetCode() != apiv2.Code_OK || len(resp.GetEntries()) != 4 {
			t.Fatalf("ack %v", resp)
		}
		e.expectNothing(t, cli, "RAck", "GAck", 2500*time.Millisecond)
	})
}

// TestProxyGRPCRedeliveredAfterInvisible: an unacked message comes back
// after its invisible time with delivery_attempt 2 and a new handle that
// acks it.
func TestProxyGRPCRedeliveredAfterInvisible(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startConsumeEnv(t, mode)
		e.createTopic(t, "RRe", 1)
		cli := newClientID()
		e.sendN(t, "RRe", "x", 1)
		first := e.receiveN(t, cli, "RRe", "GRe", 1, 700*time.Millisecond)[0]
		again := e.receiveN(t, cli, "RRe", "GRe", 1, 10*time.Second)[0]
		if again.GetSystemProperties().GetMessageId() != first.GetSystemProperties().GetMessageId() ||
			again.GetSystemProperties().GetDeliveryAttempt() != 2 || string(again.GetBody()) != "x0" {
			t.Fatalf("redelivered %v, want %v with delivery attempt 2", again, first)
		}
		if r := e.ack(t, cli, "RRe", "GRe", again); r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("ack of the redelivered message: %v", r)
		}
		e.expectNothing(t, cli, "RRe", "GRe", 1500*time.Millisecond)
	})
}

// TestProxyGRPCChangeInvisibleDuration: a message received for 20 s is
// made visible again after 500 ms with ChangeInvisibleDuration; the answer's
// new handle is what the client must use, and the message returns.
func TestProxyGRPCChangeInvisibleDuration(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startConsumeEnv(t, mode)
		e.createTopic(t, "RCh", 1)
		cli := newClientID()
		e.sendN(t, "RCh", "c", 1)
		m := e.receiveN(t, cli, "RCh", "GCh", 1, 20*time.Second)[0]
		sp := m.GetSystemProperties()
		resp, err := e.cli.ChangeInvisibleDuration(e.ctx(t, cli), &apiv2.ChangeInvisibleDurationRequest{
			Group: &apiv2.Resource{Name: "GCh"}, Topic: &apiv2.Resource{Name: "RCh"}, ReceiptHandle: sp.GetReceiptHandle(),
			InvisibleDuration: durationpb.New(500 * time.Millisecond), MessageId: sp.GetMessageId()})
		if err != nil || resp.GetStatus().GetCode() != apiv2.Code_OK || resp.GetReceiptHandle() == "" ||
			resp.GetReceiptHandle() == sp.GetReceiptHandle() {
			t.Fatalf("change: %v %v", resp, err)
		}
		start := time.Now()
		again := e.receiveN(t, cli, "RCh", "GCh", 1, 10*time.Second)[0]
		if time.Since(start) > 10*time.Second || again.GetSystemProperties().GetMessageId() != sp.GetMessageId() {
			t.Fatalf("not redelivered soon after the change: %v", again)
		}
		// A bad duration is refused with 5.x's code.
		resp, _ = e.cli.ChangeInvisibleDuration(e.ctx(t, cli), &apiv2.ChangeInvisibleDurationRequest{
			Group: &apiv2.Resource{Name: "GCh"}, Topic: &apiv2.Resource{Name: "RCh"},
			ReceiptHandle: again.GetSystemProperties().GetReceiptHandle(), InvisibleDuration: durationpb.New(13 * time.Hour),
			MessageId: sp.GetMessageId()})
		if resp.GetStatus().GetCode() != apiv2.Code_ILLEGAL_INVISIBLE_TIME {
			t.Fatalf("13 h: %v, want ILLEGAL_INVISIBLE_TIME", resp.GetStatus())
		}
	})
}

// TestProxyGRPCLongPollingWakesOnSend: an empty receive polling for 8 s
// returns soon after a message is sent, with that message.
func TestProxyGRPCLongPollingWakesOnSend(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startConsumeEnv(t, mode)
		e.createTopic(t, "RLp", 1)
		cli := newClientID()
		// First pop creates the group's position, so the next one waits.
		if r := e.receive(t, cli, e.receiveReq("RLp", "GLp", time.Second, 200*time.Millisecond)); r.status.GetCode() != apiv2.Code_MESSAGE_NOT_FOUND {
			t.Fatalf("empty topic: %v", r.status)
		}
		done := e.receiveAsync(t, cli, e.receiveReq("RLp", "GLp", 5*time.Second, 8*time.Second))
		time.Sleep(500 * time.Millisecond) // let the receive reach the broker and wait
		sent := time.Now()
		e.sendN(t, "RLp", "lp", 1)
		r := <-done
		if len(r.msgs) != 1 || string(r.msgs[0].GetBody()) != "lp0" {
			t.Fatalf("long poll returned %v %v", r.status, r.msgs)
		}
		if woke := time.Since(sent); woke > 4*time.Second {
			t.Fatalf("long poll woke %v after the send, not at once", woke)
		}
	})
}

// TestProxyGRPCForwardToDeadLetterQueue: a forwarded message lands in the
// group's %DLQ% topic with its origin recorded, and is not redelivered.
func TestProxyGRPCForwardToDeadLetterQueue(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startConsumeEnv(t, mode)
		e.createTopic(t, "RDlq", 1)
		cli := newClientID()
		e.sendN(t, "RDlq", "d", 1)
		m := e.receiveN(t, cli, "RDlq", "GDlq", 1, 700*time.Millisecond)[0]
		sp := m.GetSystemProperties()
		resp, err := e.cli.ForwardMessageToDeadLetterQueue(e.ctx(t, cli), &apiv2.ForwardMessageToDeadLetterQueueRequest{
			Group: &apiv2.Resource{Name: "GDlq"}, Topic: &apiv2.Resource{Name: "RDlq"}, ReceiptHandle: sp.GetReceiptHandle(),
			MessageId: sp.GetMessageId(), DeliveryAttempt: 1, MaxDeliveryAttempts: 16})
		if err != nil || resp.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("forward: %v %v", resp, err)
		}
		dlq := e.stored(t, "%DLQ%GDlq", 0, 1)[0]
		if string(dlq.Body) != "d0" || dlq.Property("UNIQ_KEY") != sp.GetMessageId() {
			t.Fatalf("DLQ message %s %v", dlq.Body, dlq.Properties)
		}
		e.expectNothing(t, cli, "RDlq", "GDlq", 1500*time.Millisecond)
	})
}

// TestProxyGRPCQueryAssignment: one assignment (queue -1) per readable
// broker with the proxy as endpoints; one per queue for an orderly group.
func TestProxyGRPCQueryAssignment(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startConsumeEnv(t, mode)
		e.createTopic(t, "RQa", 3)
		cli := newClientID()
		resp, err := e.cli.QueryAssignment(e.ctx(t, cli), &apiv2.QueryAssignmentRequest{Topic: &apiv2.Resource{Name: "RQa"},
			Group: &apiv2.Resource{Name: "GQa"}, Endpoints: e.endpoints()})
		if err != nil || resp.GetStatus().GetCode() != apiv2.Code_OK || len(resp.GetAssignments()) != 1 {
			t.Fatalf("assignment: %v %v", resp, err)
		}
		mq := resp.GetAssignments()[0].GetMessageQueue()
		ep := mq.GetBroker().GetEndpoints().GetAddresses()
		if mq.GetId() != -1 || mq.GetPermission() != apiv2.Permission_READ_WRITE || mq.GetBroker().GetName() != "broker-a" ||
			len(ep) != 1 || ep[0].GetPort() != e.endpoints().GetAddresses()[0].GetPort() {
			t.Fatalf("queue %v", mq)
		}
		g := body.NewSubscriptionGroupConfig("GQaFifo")
		g.ConsumeMessageOrderly = true
		e.b.Subscriptions().UpdateSubscriptionGroupConfig(g)
		testutil.Eventually(t, 15*time.Second, func() error { // cluster mode caches groups for 10 s
			resp, err = e.cli.QueryAssignment(e.ctx(t, cli), &apiv2.QueryAssignmentRequest{Topic: &apiv2.Resource{Name: "RQa"},
				Group: &apiv2.Resource{Name: "GQaFifo"}, Endpoints: e.endpoints()})
			if err != nil || len(resp.GetAssignments()) != 3 {
				return fmt.Errorf("orderly group: %v %v", resp, err)
			}
			return nil
		})
		resp, _ = e.cli.QueryAssignment(e.ctx(t, cli), &apiv2.QueryAssignmentRequest{Topic: &apiv2.Resource{Name: "NoSuchTopic"},
			Group: &apiv2.Resource{Name: "GQa"}, Endpoints: e.endpoints()})
		if resp.GetStatus().GetCode() != apiv2.Code_TOPIC_NOT_FOUND {
			t.Fatalf("unknown topic: %v", resp.GetStatus())
		}
	})
}

// TestProxyGRPCFIFOGroupOrder: for an orderly group, messages of one message
// group come in send order; while some are unacked the queue gives nothing
// more, and unacked ones come back first, in order, with attempt 2.
func TestProxyGRPCFIFOGroupOrder(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startConsumeEnv(t, mode)
		e.createTopic(t, "RFifo", 4)
		g := body.NewSubscriptionGroupConfig("GFifo")
		g.ConsumeMessageOrderly = true
		e.b.Subscriptions().UpdateSubscriptionGroupConfig(g)
		producer := newClientID()
		for i := range 6 {
			m := newMsg("RFifo", "o-"+strconv.Itoa(i))
			mg := "order-A"
			m.SystemProperties.MessageGroup = &mg
			m.SystemProperties.MessageType = apiv2.MessageType_FIFO
			if r := e.send(t, producer, m); r.GetStatus().GetCode() != apiv2.Code_OK {
				t.Fatalf("send: %v", r)
			}
		}
		cli := newClientID()
		// Wait until the proxy sees the group as orderly (cluster mode caches groups).
		testutil.Eventually(t, 15*time.Second, func() error {
			resp, err := e.cli.QueryAssignment(e.ctx(t, cli), &apiv2.QueryAssignmentRequest{Topic: &apiv2.Resource{Name: "RFifo"},
				Group: &apiv2.Resource{Name: "GFifo"}, Endpoints: e.endpoints()})
			if err != nil || len(resp.GetAssignments()) != 4 {
				return fmt.Errorf("group not orderly yet: %v %v", resp, err)
			}
			return nil
		})
		req := e.receiveReq("RFifo", "GFifo", 800*time.Millisecond, 300*time.Millisecond)
		req.BatchSize = 3
		var first []*apiv2.Message
		testutil.Eventually(t, 10*time.Second, func() error {
			first = e.receive(t, cli, req).msgs
			if len(first) == 0 {
				return fmt.Errorf("nothing yet")
			}
			return nil
		})
		for i, m := range first {
			if string(m.GetBody()) != "o-"+strconv.Itoa(i) || m.GetSystemProperties().GetMessageGroup() != "order-A" {
				t.Fatalf("message %d of the first batch is %q", i, m.GetBody())
			}
		}
		// Unacked: the queue stays locked until the batch's invisible time ends.
		if r := e.receive(t, cli, req); len(r.msgs) != 0 {
			t.Fatalf("orderly queue gave more while locked: %q", r.msgs[0].GetBody())
		}
		var again []*apiv2.Message
		testutil.Eventually(t, 10*time.Second, func() error {
			again = e.receive(t, cli, req).msgs
			if len(again) == 0 {
				return fmt.Errorf("not redelivered yet")
			}
			return nil
		})
		if string(again[0].GetBody()) != "o-0" || again[0].GetSystemProperties().GetDeliveryAttempt() != 2 {
			t.Fatalf("redelivery starts with %q attempt %d, want o-0 attempt 2", again[0].GetBody(),
				again[0].GetSystemProperties().GetDeliveryAttempt())
		}
		// Ack as received, in order, until all 6 were seen once acked.
		next := 0
		batch := again
		for deadline := time.Now().Add(15 * time.Second); next < 6; {
			if time.Now().After(deadline) {
				t.Fatalf("only %d of 6 consumed in order", next)
			}
			for _, m := range batch {
				if string(m.GetBody()) != "o-"+strconv.Itoa(next) {
					t.Fatalf("got %q, want o-%d", m.GetBody(), next)
				}
				next++
			}
			if len(batch) > 0 {
				if r := e.ack(t, cli, "RFifo", "GFifo", batch...); r.GetStatus().GetCode() != apiv2.Code_OK {
					t.Fatalf("ack: %v", r)
				}
			}
			if next < 6 {
				batch = e.receive(t, cli, req).msgs
			}
		}
	})
}

// TestProxyGRPCConsumeMalformedRequests: empty and garbage consume
// requests get 5.x's status codes, never a panic or a transport error.
func TestProxyGRPCConsumeMalformedRequests(t *testing.T) {
	e := startConsumeEnv(t, proxy.ModeLocal)
	e.createTopic(t, "RBad", 1)
	cli := newClientID()
	ctx := e.ctx(t, cli)
	for name, req := range map[string]*apiv2.ReceiveMessageRequest{
		"empty":         {},
		"no group":      {MessageQueue: &apiv2.MessageQueue{Topic: &apiv2.Resource{Name: "RBad"}}},
		"system topic":  {Group: &apiv2.Resource{Name: "G"}, MessageQueue: &apiv2.MessageQueue{Topic: &apiv2.Resource{Name: "TBW102"}}},
		"unknown topic": {Group: &apiv2.Resource{Name: "G"}, MessageQueue: &apiv2.MessageQueue{Topic: &apiv2.Resource{Name: "Nope"}}, InvisibleDuration: durationpb.New(time.Second)},
		"negative":      {Group: &apiv2.Resource{Name: "G"}, MessageQueue: &apiv2.MessageQueue{Topic: &apiv2.Resource{Name: "RBad"}}, BatchSize: -5, InvisibleDuration: durationpb.New(-time.Second), LongPollingTimeout: durationpb.New(-time.Second)},
	} {
		r := e.receive(t, cli, req)
		if r.status.GetCode() == apiv2.Code_OK || len(r.msgs) > 0 {
			t.Errorf("%s: %v", name, r.status)
		}
	}
	want := map[string]apiv2.Code{"junk": apiv2.Code_INVALID_RECEIPT_HANDLE, "": apiv2.Code_INVALID_RECEIPT_HANDLE,
		"1 2 3 4 0 broker-a 0 0 0": apiv2.Code_INVALID_RECEIPT_HANDLE} // expired
	for h, c := range want {
		ack, err := e.cli.AckMessage(ctx, &apiv2.AckMessageRequest{Group: &apiv2.Resource{Name: "G"}, Topic: &apiv2.Resource{Name: "RBad"},
			Entries: []*apiv2.AckMessageEntry{{MessageId: "m", ReceiptHandle: h}}})
		if err != nil || ack.GetStatus().GetCode() != c {
			t.Errorf("ack %q: %v %v, want %v", h, ack, err, c)
		}
		ch, err := e.cli.ChangeInvisibleDuration(ctx, &apiv2.ChangeInvisibleDurationRequest{Group: &apiv2.Resource{Name: "G"},
			Topic: &apiv2.Resource{Name: "RBad"}, ReceiptHandle: h, InvisibleDuration: durationpb.New(time.Second)})
		if err != nil || ch.GetStatus().GetCode() != c {
			t.Errorf("change %q: %v %v, want %v", h, ch, err, c)
		}
		f, err := e.cli.ForwardMessageToDeadLetterQueue(ctx, &apiv2.ForwardMessageToDeadLetterQueueRequest{Group: &apiv2.Resource{Name: "G"},
			Topic: &apiv2.Resource{Name: "RBad"}, ReceiptHandle: h})
		if err != nil || f.GetStatus().GetCode() == apiv2.Code_OK {
			t.Errorf("dlq %q: %v %v", h, f, err)
		}
	}
	if ack, err := e.cli.AckMessage(ctx, &apiv2.AckMessageRequest{}); err != nil || ack.GetStatus().GetCode() != apiv2.Code_ILLEGAL_TOPIC {
		t.Errorf("empty ack: %v %v", ack, err)
	}
	if qa, err := e.cli.QueryAssignment(ctx, &apiv2.QueryAssignmentRequest{}); err != nil || qa.GetStatus().GetCode() != apiv2.Code_ILLEGAL_TOPIC {
		t.Errorf("empty assignment query: %v %v", qa, err)
	}
}

// TestProxyGRPCClientVanishingMidPollSparesOthers: a client that hangs up
// while its receive is long-polling must not disturb other clients' calls
// on the shared broker connection (a cancelled synchronous broker call
// closed it), and what its pop finds late is given back at once rather than
// after its invisible time.
func TestProxyGRPCClientVanishingMidPollSparesOthers(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startConsumeEnv(t, mode)
		e.createTopic(t, "RGone", 1)
		for _, g := range []string{"GStay", "GGone"} { // position both groups, so the next pops wait
			if r := e.receive(t, newClientID(), e.receiveReq("RGone", g, time.Second, 100*time.Millisecond)); r.status.GetCode() != apiv2.Code_MESSAGE_NOT_FOUND {
				t.Fatalf("%s: %v", g, r.status)
			}
		}
		stay := e.receiveAsync(t, newClientID(), e.receiveReq("RGone", "GStay", 30*time.Second, 6*time.Second))
		goneCtx, hangUp := context.WithCancel(e.ctx(t, newClientID()))
		stream, err := e.cli.ReceiveMessage(goneCtx, e.receiveReq("RGone", "GGone", 30*time.Second, 6*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, 5*time.Second, func() error {
			if n := e.b.PopHeld(); n != 2 {
				return fmt.Errorf("%d pops held, want 2", n)
			}
			return nil
		})
		hangUp()
		_, _ = stream.Recv()
		e.sendN(t, "RGone", "g", 1)
		r := <-stay
		if r.status.GetCode() != apiv2.Code_OK || len(r.msgs) != 1 {
			t.Fatalf("the other client's receive: %v %v", r.status, r.msgs)
		}
		// GGone's held pop took the message after its client left: it is
		// given back within about a second, not after 30 s.
		got := e.receiveN(t, newClientID(), "RGone", "GGone", 1, 30*time.Second)
		if string(got[0].GetBody()) != "g0" {
			t.Fatalf("GGone got %q", got[0].GetBody())
		}
	})
}
