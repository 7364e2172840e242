package proxy

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/admin"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// tcpBackend is a minimal cluster-mode brokerBackend for tests of the
// consume logic against a real broker.
type tcpBackend struct {
	rc  *remoting.Client
	adm *admin.Admin
	b   *broker.Broker
}

func (be *tcpBackend) Invoke(ctx context.Context, addr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	return be.rc.InvokeSync(ctx, addr, req)
}
func (be *tcpBackend) InvokeAsync(ctx context.Context, addr string, req *codec.RemotingCommand, cb func(*codec.RemotingCommand, error)) error {
	return be.rc.InvokeAsync(ctx, addr, req, cb)
}
func (be *tcpBackend) TopicRoute(ctx context.Context, topic string) (*body.TopicRouteData, error) {
	return be.adm.TopicRoute(ctx, topic)
}
func (be *tcpBackend) MasterBrokers(context.Context) (map[string]string, error) {
	return map[string]string{be.b.Config().BrokerName: be.b.BrokerAddr()}, nil
}
func (be *tcpBackend) SubscriptionGroup(_ context.Context, group string) *body.SubscriptionGroupConfig {
	if cfg, ok := be.b.Subscriptions().FindSubscriptionGroupConfig(group); ok {
		return &cfg
	}
	return nil
}

type brokerEnv struct {
	t  testing.TB
	b  *broker.Broker
	be *tcpBackend
	c  *consumer
}

func newBrokerEnv(t testing.TB) *brokerEnv {
	t.Helper()
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String(), func(cfg *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		cfg.ReviveInterval = 20
	})
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("client"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rc.Shutdown(ctx)
	})
	be := &tcpBackend{rc: rc, adm: admin.New(rc, []string{ns.Addr().String()}), b: b}
	cfg := NewConsumeConfig()
	cfg.MinLongPollingTimeoutMillis = 100
	cfg.MinInvisibleTimeMillsForRecv = 100
	c := newConsumer(zaptest.NewLogger(t).Named("consume"), cfg, newConsumeAdapter(be))
	return &brokerEnv{t: t, b: b, be: be, c: c}
}

// createTopic creates topic with n queues on the broker and waits for its route.
func (e *brokerEnv) createTopic(topic string, n int32) {
	e.t.Helper()
	h := &header.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102", ReadQueueNums: n, WriteQueueNums: n,
		Perm: 6, TopicFilterType: "SINGLE_TAG"}
	e.call(codec.NewRequest(code.UpdateAndCreateTopic, h.ToExtFields(), nil))
	testutil.Eventually(e.t, 10*time.Second, func() error {
		_, err := e.be.TopicRoute(context.Background(), topic)
		return err
	})
}

func (e *brokerEnv) call(req *codec.RemotingCommand) *codec.RemotingCommand {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := e.be.rc.InvokeSync(ctx, e.b.BrokerAddr(), req)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.Code != code.Success {
		e.t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	return resp
}

func (e *brokerEnv) send(topic string, queueID int32, tag, bodyText string) {
	e.t.Helper()
	props := map[string]string{"UNIQ_KEY": fmt.Sprintf("ID-%s-%d", bodyText, time.Now().UnixNano())}
	if tag != "" {
		props["TAGS"] = tag
	}
	h := &header.SendMessageRequestHeader{ProducerGroup: "pg", Topic: topic, DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, QueueID: queueID, BornTimestamp: time.Now().UnixMilli(),
		Properties: message.MarshalProperties(props)}
	e.call(codec.NewRequest(code.SendMessage, h.ToExtFields(), []byte(bodyText)))
}

// receive runs one ReceiveMessage and returns its status and messages.
func (e *brokerEnv) receive(req *apiv2.ReceiveMessageRequest, set consumerSettings) (*apiv2.Status, []*apiv2.Message) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var st *apiv2.Status
	var msgs []*apiv2.Message
	var last *apiv2.ReceiveMessageResponse
	err := e.c.receive(ctx, req, set, "5.0.8", func(r *apiv2.ReceiveMessageResponse) error {
		if r.GetStatus() != nil {
			st = r.GetStatus()
		}
		if r.GetMessage() != nil {
			msgs = append(msgs, r.GetMessage())
		}
		last = r
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if last.GetDeliveryTimestamp() == nil {
		e.t.Fatalf("stream did not end with a delivery timestamp: %v", last)
	}
	return st, msgs
}

func recvReq(topic, group string, invisible, poll time.Duration) *apiv2.ReceiveMessageRequest {
	return &apiv2.ReceiveMessageRequest{
		Group:              &apiv2.Resource{Name: group},
		MessageQueue:       &apiv2.MessageQueue{Topic: &apiv2.Resource{Name: topic}, Id: 0, Broker: &apiv2.Broker{Name: "broker-a"}},
		FilterExpression:   &apiv2.FilterExpression{Type: apiv2.FilterType_TAG, Expression: "*"},
		BatchSize:          16,
		InvisibleDuration:  durationpb.New(invisible),
		LongPollingTimeout: durationpb.New(poll),
	}
}

var defaultSet = consumerSettings{requestTimeout: 3 * time.Second}

func TestProxyConsumeBrokerReceiveAckNeverRedelivered(t *testing.T) {
	e := newBrokerEnv(t)
	e.createTopic("TAck", 2)
	e.send("TAck", 0, "a", "one")
	e.send("TAck", 1, "a", "two")
	var got []*apiv2.Message
	testutil.Eventually(t, 10*time.Second, func() error {
		_, msgs := e.receive(recvReq("TAck", "GAck", 800*time.Millisecond, 200*time.Millisecond), defaultSet)
		got = append(got, msgs...)
		if len(got) < 2 {
			return fmt.Errorf("%d of 2 received", len(got))
		}
		return nil
	})
	var entries []*apiv2.AckMessageEntry
	for _, m := range got {
		entries = append(entries, &apiv2.AckMessageEntry{MessageId: m.GetSystemProperties().GetMessageId(),
			ReceiptHandle: m.GetSystemProperties().GetReceiptHandle()})
	}
	resp := e.c.ackMessage(context.Background(), "cli", &apiv2.AckMessageRequest{Group: &apiv2.Resource{Name: "GAck"},
		Topic: &apiv2.Resource{Name: "TAck"}, Entries: entries})
	if resp.GetStatus().GetCode() != apiv2.Code_OK {
		t.Fatalf("ack: %v", resp)
	}
	// Well past the 800 ms invisible time, nothing comes back.
	deadline := time.Now().Add(2500 * time.Millisecond)
	for time.Now().Before(deadline) {
		st, msgs := e.receive(recvReq("TAck", "GAck", 800*time.Millisecond, 300*time.Millisecond), defaultSet)
		if len(msgs) != 0 {
			t.Fatalf("acked message redelivered: %v", msgs)
		}
		if st.GetCode() != apiv2.Code_MESSAGE_NOT_FOUND {
			t.Fatalf("empty receive status %v", st)
		}
	}
}

func TestProxyConsumeBrokerRedeliveredAfterInvisible(t *testing.T) {
	e := newBrokerEnv(t)
	e.createTopic("TRe", 1)
	e.send("TRe", 0, "", "x")
	var first *apiv2.Message
	testutil.Eventually(t, 10*time.Second, func() error {
		_, msgs := e.receive(recvReq("TRe", "GRe", 500*time.Millisecond, 200*time.Millisecond), defaultSet)
		if len(msgs) == 0 {
			return fmt.Errorf("nothing yet")
		}
		first = msgs[0]
		return nil
	})
	if a := first.GetSystemProperties().GetDeliveryAttempt(); a != 1 {
		t.Fatalf("first delivery attempt %d", a)
	}
	var again *apiv2.Message
	testutil.Eventually(t, 10*time.Second, func() error {
		_, msgs := e.receive(recvReq("TRe", "GRe", 5*time.Second, 200*time.Millisecond), defaultSet)
		if len(msgs) == 0 {
			return fmt.Errorf("not redelivered yet")
		}
		again = msgs[0]
		return nil
	})
	sp := again.GetSystemProperties()
	if sp.GetMessageId() != first.GetSystemProperties().GetMessageId() || string(again.GetBody()) != "x" ||
		sp.GetDeliveryAttempt() != 2 || again.GetTopic().GetName() != "TRe" {
		t.Fatalf("redelivered %v, want the same message with delivery attempt 2", again)
	}
	// The redelivered copy's handle acks it for good.
	resp := e.c.ackMessage(context.Background(), "cli", &apiv2.AckMessageRequest{Group: &apiv2.Resource{Name: "GRe"},
		Topic: &apiv2.Resource{Name: "TRe"}, Entries: []*apiv2.AckMessageEntry{{MessageId: sp.GetMessageId(),
			ReceiptHandle: sp.GetReceiptHandle()}}})
	if resp.GetStatus().GetCode() != apiv2.Code_OK {
		t.Fatalf("ack of the retry: %v", resp)
	}
}

// TestProxyConsumeBrokerAutoRenew: an auto_renew receive (push consumers)
// pops with the default invisible time and the proxy keeps extending it
// while the client lives: nothing is redelivered past that time, and an ack
// with the handle the client got acks the renewed message for good. Once
// the client is gone, its held messages come back within seconds.
func TestProxyConsumeBrokerAutoRenew(t *testing.T) {
	e := newBrokerEnv(t)
	e.c.cfg.DefaultInvisibleTimeMills = 1000
	e.c.cfg.RenewAheadTimeMillis = 600
	alive := map[string]bool{"push-1": true, "push-2": true}
	var mu sync.Mutex
	e.c.renew = newRenewer(e.c, func(id string) bool { mu.Lock(); defer mu.Unlock(); return alive[id] })
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); e.c.renew.run(stop, 100*time.Millisecond) }()
	t.Cleanup(func() { close(stop); <-done })

	e.createTopic("TRenew", 1)
	e.send("TRenew", 0, "", "r1")
	req := recvReq("TRenew", "GRenew", 0, 200*time.Millisecond)
	req.AutoRenew = true
	set := consumerSettings{clientID: "push-1", requestTimeout: 3 * time.Second}
	var got []*apiv2.Message
	testutil.Eventually(t, 10*time.Second, func() error {
		_, got = e.receive(req, set)
		if len(got) == 0 {
			return fmt.Errorf("nothing yet")
		}
		return nil
	})
	// Three times the invisible time: renewed, so never visible again.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		if _, msgs := e.receive(recvReq("TRenew", "GRenew", time.Second, 200*time.Millisecond), defaultSet); len(msgs) > 0 {
			t.Fatalf("held message redelivered: %v", msgs)
		}
	}
	sp := got[0].GetSystemProperties()
	resp := e.c.ackMessage(context.Background(), "push-1", &apiv2.AckMessageRequest{Group: &apiv2.Resource{Name: "GRenew"},
		Topic: &apiv2.Resource{Name: "TRenew"}, Entries: []*apiv2.AckMessageEntry{{MessageId: sp.GetMessageId(),
			ReceiptHandle: sp.GetReceiptHandle()}}})
	if resp.GetStatus().GetCode() != apiv2.Code_OK {
		t.Fatalf("ack with the original handle after renewals: %v", resp)
	}
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		if _, msgs := e.receive(recvReq("TRenew", "GRenew", time.Second, 200*time.Millisecond), defaultSet); len(msgs) > 0 {
			t.Fatalf("acked message redelivered: %v", msgs)
		}
	}

	// A client that goes away: its message is given back.
	e.send("TRenew", 0, "", "r2")
	set.clientID = "push-2"
	testutil.Eventually(t, 10*time.Second, func() error {
		_, got = e.receive(req, set)
		if len(got) == 0 {
			return fmt.Errorf("nothing yet")
		}
		return nil
	})
	mu.Lock()
	alive["push-2"] = false
	mu.Unlock()
	testutil.Eventually(t, 10*time.Second, func() error {
		_, msgs := e.receive(recvReq("TRenew", "GRenew", 5*time.Second, 200*time.Millisecond), defaultSet)
		if len(msgs) == 0 || string(msgs[0].GetBody()) != "r2" {
			return fmt.Errorf("gone client's message not back yet")
		}
		return nil
	})
}

// BenchmarkProxyConsumeBrokerPopAck is the remoting baseline of
// BenchmarkProxyGRPCReceiveAck: the same consume logic (8 consumers, batch
// 32, 1 KiB, one ack call per batch) calling the broker over TCP directly,
// without gRPC. Reports msg/s.
func BenchmarkProxyConsumeBrokerPopAck(b *testing.B) {
	e := newBrokerEnv(b)
	e.createTopic("BenchPA", 8)
	payload := string(make([]byte, 1024))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				e.send("BenchPA", int32(i%8), "", payload)
			}
		}()
	}
	wg.Wait()
	b.SetBytes(1024)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var acked atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for acked.Load() < int64(b.N) {
				_, got := e.receive(recvReq("BenchPA", "GBenchPA", time.Minute, 200*time.Millisecond), defaultSet)
				if len(got) == 0 {
					continue
				}
				req := &apiv2.AckMessageRequest{Group: &apiv2.Resource{Name: "GBenchPA"}, Topic: &apiv2.Resource{Name: "BenchPA"}}
				for _, m := range got {
					req.Entries = append(req.Entries, &apiv2.AckMessageEntry{MessageId: m.GetSystemProperties().GetMessageId(),
						ReceiptHandle: m.GetSystemProperties().GetReceiptHandle()})
				}
				if r := e.c.ackMessage(context.Background(), "cli", req); r.GetStatus().GetCode() != apiv2.Code_OK {
					b.Errorf("ack: %v", r)
					return
				}
				acked.Add(int64(len(got)))
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(acked.Load())/time.Since(start).Seconds(), "msg/s")
}
