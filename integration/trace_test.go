package integration

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/trace"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// TestTraceGoClientProduceConsume: the official Go client with message
// trace on (producer and push consumer) against a broker with
// traceTopicEnable; the trace records land in the trace topic and
// QueryTrace (mqadmin queryMsgTraceById) finds, for a sent message, its Pub
// record and the consumer group's SubBefore and SubAfter records. The
// subtests use the default trace topic and a custom one (msgTraceTopicName
// on the broker, TraceTopic on the clients).
func TestTraceGoClientProduceConsume(t *testing.T) {
	for _, traceTopic := range []string{"", "CustomTraceTopic"} {
		name := "default"
		if traceTopic != "" {
			name = "custom"
		}
		t.Run(name, func(t *testing.T) { traceProduceConsume(t, traceTopic) })
	}
}

func traceProduceConsume(t *testing.T, traceTopic string) {
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.TraceTopicEnable = true
		if traceTopic != "" {
			c.MsgTraceTopicName = traceTopic
		}
	})
	wantTopic := traceTopic
	if wantTopic == "" {
		wantTopic = trace.DefaultTopic
	}
	tc := e.b.Topics().SelectTopicConfig(wantTopic)
	if tc == nil || tc.ReadQueueNums != 1 || tc.WriteQueueNums != 1 || tc.Perm != 6 {
		t.Fatalf("trace topic %s at start: %+v", wantTopic, tc)
	}
	traceCfg := &primitive.TraceConfig{TraceTopic: traceTopic, GroupName: uniqueName("tg"),
		Access: primitive.Local, Resolver: useTraceNamesrv(t, e.nsAddr)}
	pg, sent := sendTraced(t, e, traceCfg, 4)
	cg := uniqueName("traceCG")
	r := newReceived()
	e.startPush(pushOpts{group: cg, extra: []consumer.Option{consumer.WithTrace(traceCfg)}}, r)
	r.waitAll(t, "traced", len(sent), 20*time.Second)

	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("client"))
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	brokerAddr := e.b.Addr().String()
	for i, s := range sent {
		var views []trace.View
		testutil.Eventually(t, 20*time.Second, func() error {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			var err error
			views, err = trace.QueryTrace(ctx, c, []string{e.nsAddr}, traceTopic, s.MsgID)
			if err != nil && !errors.Is(err, trace.ErrNoMessage) {
				t.Fatalf("QueryTrace %s: %v", s.MsgID, err)
			}
			return haveTypes(views, trace.Pub, trace.SubBefore, trace.SubAfter)
		})
		for _, v := range views {
			if v.MsgID != s.MsgID || v.ClientHost != "127.0.0.1" {
				t.Errorf("msg %d: view %+v", i, v)
			}
			switch v.Type {
			case trace.Pub:
				b := v.Record.Beans[0]
				if v.Topic != e.topic || v.Tags != "TagT" || v.Keys != fmt.Sprintf("order-%d user-%d", i, i) ||
					v.StoreHost != brokerAddr || v.GroupName != pg || !v.Success || v.CostTime < 0 ||
					v.OffsetMsgID != s.OffsetMsgID || b.BodyLength != int32(len("traced-0")) || b.MsgType != trace.NormalMsg ||
					v.TimeStamp <= 0 {
					t.Errorf("msg %d: Pub view %+v", i, v)
				}
			case trace.SubBefore:
				if v.GroupName != cg || v.Record.RequestID == "" || v.Keys != fmt.Sprintf("order-%d user-%d", i, i) {
					t.Errorf("msg %d: SubBefore view %+v", i, v)
				}
			case trace.SubAfter:
				if v.GroupName != cg || !v.Success || v.Record.RequestID == "" || v.TimeStamp <= 0 {
					t.Errorf("msg %d: SubAfter view %+v", i, v)
				}
			}
		}
	}
}

// traceNamesrv is the name server every trace dispatcher of this process
// resolves. The Go client sends trace data through one process-wide client
// ("INNER_TRACE_CLIENT_DEFAULT") that is never shut down, and refuses to
// trace (a nil dispatcher, then a panic on the first send) when a later
// TraceConfig names other name servers than the first one did. A resolver
// that always answers the current test's name server passes that check,
// so each test can still run its own name server; the tests that use it
// take traceNamesrvMu and do not run in parallel.
var (
	traceNamesrvMu   sync.Mutex
	traceNamesrvAddr atomic.Pointer[string]
)

type traceResolver struct{}

func (traceResolver) Resolve() []string   { return []string{*traceNamesrvAddr.Load()} }
func (traceResolver) Description() string { return "trace test name server" }

// useTraceNamesrv points the trace resolver at addr for the rest of t.
func useTraceNamesrv(t *testing.T, addr string) primitive.NsResolver {
	traceNamesrvMu.Lock()
	t.Cleanup(traceNamesrvMu.Unlock)
	traceNamesrvAddr.Store(&addr)
	return traceResolver{}
}

// sendTraced starts a producer with trace on and sends n messages
// "traced-i" with tag TagT and keys "order-i user-i"; it returns the
// producer group and the results.
func sendTraced(t *testing.T, e *consumeEnv, traceCfg *primitive.TraceConfig, n int) (string, []*primitive.SendResult) {
	t.Helper()
	pg := uniqueName("tracePG")
	p, err := producer.NewDefaultProducer(
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		producer.WithGroupName(pg), producer.WithInstanceName(uniqueName("tp")),
		producer.WithRetry(2), producer.WithTrace(traceCfg))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown() })
	var sent []*primitive.SendResult
	for i := range n {
		m := primitive.NewMessage(e.topic, []byte("traced-"+strconv.Itoa(i)))
		m.WithTag("TagT")
		m.WithKeys([]string{"order-" + strconv.Itoa(i), "user-" + strconv.Itoa(i)})
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		r, err := p.SendSync(ctx, m)
		cancel()
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send %d: %v %v", i, r, err)
		}
		sent = append(sent, r)
	}
	return pg, sent
}

// TestTraceGoClientOwnTraceTopic: with traceTopicEnable off, a client whose
// TraceTopic is an ordinary topic created by an administrator traces into
// it, and QueryTrace with that topic (mqadmin -t) finds the Pub records.
func TestTraceGoClientOwnTraceTopic(t *testing.T) {
	e := newConsumeEnv(t)
	if e.b.Topics().SelectTopicConfig(trace.DefaultTopic) != nil {
		t.Fatal("trace topic exists without traceTopicEnable")
	}
	const own = "AppTraceTopic"
	tc := body.NewTopicConfig(own)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 2, 2, 6
	e.b.Topics().UpdateTopicConfig(tc)
	e.b.RegisterBrokerAll(false)
	traceCfg := &primitive.TraceConfig{TraceTopic: own, GroupName: uniqueName("tg"),
		Access: primitive.Local, Resolver: useTraceNamesrv(t, e.nsAddr)}
	pg, sent := sendTraced(t, e, traceCfg, 3)
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("client"))
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	for i, s := range sent {
		var views []trace.View
		testutil.Eventually(t, 20*time.Second, func() error {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			var err error
			views, err = trace.QueryTrace(ctx, c, []string{e.nsAddr}, own, s.MsgID)
			if err != nil && !errors.Is(err, trace.ErrNoMessage) {
				t.Fatalf("QueryTrace %s: %v", s.MsgID, err)
			}
			return haveTypes(views, trace.Pub)
		})
		if v := views[0]; v.Type != trace.Pub || v.GroupName != pg || v.Keys != fmt.Sprintf("order-%d user-%d", i, i) || v.Topic != e.topic {
			t.Errorf("msg %d: %+v", i, v)
		}
		if _, err := trace.QueryTrace(t.Context(), c, []string{e.nsAddr}, trace.DefaultTopic, s.MsgID); err == nil {
			t.Errorf("msg %d found in %s", i, trace.DefaultTopic)
		}
	}
}

// haveTypes reports which trace types views lacks.
func haveTypes(views []trace.View, types ...trace.Type) error {
	var missing []string
	for _, ty := range types {
		found := false
		for _, v := range views {
			found = found || v.Type == ty
		}
		if !found {
			missing = append(missing, string(ty))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no %s records yet (have %d)", strings.Join(missing, ", "), len(views))
	}
	return nil
}
