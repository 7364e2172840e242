package integration

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
	"go.uber.org/zap/zaptest"
)

// consumeEnv is a name server, a broker with one 4-queue topic and a
// producer, all torn down with the test.
type consumeEnv struct {
	t      *testing.T
	nsAddr string
	b      *broker.Broker
	topic  string
	p      interface {
		SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
	}
}

var consumeSeq atomic.Int64

// uniqueName keeps groups and client instances of parallel tests apart.
func uniqueName(prefix string) string {
	return prefix + "_" + strconv.FormatInt(consumeSeq.Add(1), 10) + "_" + strconv.FormatInt(time.Now().UnixNano()%1e6, 10)
}

func newConsumeEnv(t *testing.T, opts ...testutil.BrokerOption) *consumeEnv {
	t.Helper()
	rlog.SetLogLevel("error")
	ns := testutil.StartNamesrv(t)
	e := &consumeEnv{t: t, nsAddr: ns.Addr().String(), topic: uniqueName("ConsumeT")}
	e.b = testutil.StartBroker(t, e.nsAddr, opts...)
	e.createTopic(e.b)
	e.p = e.newProducer()
	return e
}

// newProducer starts a Go producer (it learns routes from the name server
// when it starts).
func (e *consumeEnv) newProducer() interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
} {
	t := e.t
	p, err := producer.NewDefaultProducer(
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		producer.WithGroupName(uniqueName("pg")),
		producer.WithQueueSelector(producer.NewManualQueueSelector()),
		producer.WithInstanceName(uniqueName("p")),
		producer.WithRetry(2),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown() })
	return p
}

func (e *consumeEnv) createTopic(b *broker.Broker) {
	tc := body.NewTopicConfig(e.topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 4, 4, 6
	b.Topics().UpdateTopicConfig(tc)
	b.RegisterBrokerAll(false)
}

// send sends n messages "<prefix>-i" round-robin over the 4 queues with the
// given tag and user properties; it returns the results.
func (e *consumeEnv) send(prefix string, n int, tag string, props map[string]string) []*primitive.SendResult {
	e.t.Helper()
	var out []*primitive.SendResult
	for i := range n {
		m := primitive.NewMessage(e.topic, []byte(prefix+"-"+strconv.Itoa(i)))
		if tag != "" {
			m.WithTag(tag)
		}
		m.WithKeys([]string{prefix + "-key-" + strconv.Itoa(i)})
		for k, v := range props {
			m.WithProperty(k, v)
		}
		m.WithProperty("i", strconv.Itoa(i))
		m.Queue = &primitive.MessageQueue{Topic: e.topic, BrokerName: e.b.Config().BrokerName, QueueId: i % 4}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, err := e.p.SendSync(ctx, m)
		cancel()
		if err != nil || r.Status != primitive.SendOK {
			e.t.Fatalf("send %d: %v %v", i, r, err)
		}
		out = append(out, r)
	}
	return out
}

// received collects message bodies a consumer saw, with counts.
type received struct {
	mu    sync.Mutex
	seen  map[string]int
	order map[int][]string // queueId -> bodies in arrival order
	msgs  []*primitive.MessageExt
}

func newReceived() *received {
	return &received{seen: map[string]int{}, order: map[int][]string{}}
}

func (r *received) add(msgs ...*primitive.MessageExt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range msgs {
		r.seen[string(m.Body)]++
		r.order[m.Queue.QueueId] = append(r.order[m.Queue.QueueId], string(m.Body))
		r.msgs = append(r.msgs, m)
	}
}

func (r *received) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

func (r *received) has(body string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[body] > 0
}

// waitAll waits until every "<prefix>-i" (i < n) was received.
func (r *received) waitAll(t *testing.T, prefix string, n int, within time.Duration) {
	t.Helper()
	testutil.Eventually(t, within, func() error {
		for i := range n {
			if b := prefix + "-" + strconv.Itoa(i); !r.has(b) {
				return fmt.Errorf("%s not received (%d distinct so far)", b, r.count())
			}
		}
		return nil
	})
}

type pushOpts struct {
	group    string
	instance string
	selector consumer.MessageSelector
	extra    []consumer.Option
	handler  func(context.Context, ...*primitive.MessageExt) (consumer.ConsumeResult, error)
}

// startPush starts a push consumer feeding r (unless a handler is given).
func (e *consumeEnv) startPush(o pushOpts, r *received) interface{ Shutdown() error } {
	e.t.Helper()
	if o.instance == "" {
		o.instance = uniqueName("c")
	}
	opts := append([]consumer.Option{
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		consumer.WithGroupName(o.group),
		consumer.WithInstance(o.instance),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
	}, o.extra...)
	c, err := consumer.NewPushConsumer(opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	h := o.handler
	if h == nil {
		h = func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			r.add(msgs...)
			return consumer.ConsumeSuccess, nil
		}
	}
	if o.selector.Expression == "" {
		o.selector = consumer.MessageSelector{Type: consumer.TAG, Expression: "*"}
	}
	if err := c.Subscribe(e.topic, o.selector, h); err != nil {
		e.t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	started := time.Now()
	var once sync.Once
	stop := func() error {
		var err error
		once.Do(func() { err = testutil.ShutdownSettled(started, c.Shutdown) })
		return err
	}
	e.t.Cleanup(func() { _ = stop() })
	return shutdowner(stop)
}

type shutdowner func() error

func (s shutdowner) Shutdown() error { return s() }

func TestConsumePushClusterReceivesEverything(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	e.send("before", 12, "TagA", nil)
	r := newReceived()
	e.startPush(pushOpts{group: uniqueName("cg")}, r)
	r.waitAll(t, "before", 12, 20*time.Second)
	// Messages sent while the consumer's pulls are held arrive too.
	e.send("after", 8, "TagA", nil)
	r.waitAll(t, "after", 8, 10*time.Second)
	m := r.msgs[0]
	if m.Topic != e.topic || m.GetTags() != "TagA" || m.MsgId == "" || m.OffsetMsgId == "" {
		t.Fatalf("message %+v", m)
	}
}

func TestConsumeTagFilter(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	e.send("a", 6, "TagA", nil)
	e.send("b", 6, "TagB", nil)
	e.send("c", 6, "TagC", nil)
	r := newReceived()
	e.startPush(pushOpts{group: uniqueName("tg"), selector: consumer.MessageSelector{Type: consumer.TAG, Expression: "TagA || TagC"}}, r)
	r.waitAll(t, "a", 6, 20*time.Second)
	r.waitAll(t, "c", 6, 10*time.Second)
	for i := range 6 {
		if r.has("b-" + strconv.Itoa(i)) {
			t.Fatalf("TagB message b-%d delivered to a TagA || TagC subscription", i)
		}
	}
}

func TestConsumeSQL92Filter(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) { c.EnablePropertyFilter = true })
	e.send("s", 10, "TagA", map[string]string{"color": "red"})
	e.send("t", 4, "TagA", map[string]string{"color": "blue"})
	r := newReceived()
	sel := consumer.MessageSelector{Type: consumer.SQL92, Expression: "color = 'red' AND i >= 5"}
	e.startPush(pushOpts{group: uniqueName("sqlg"), selector: sel}, r)
	testutil.Eventually(t, 20*time.Second, func() error {
		for i := 5; i < 10; i++ {
			if !r.has("s-" + strconv.Itoa(i)) {
				return fmt.Errorf("s-%d not received", i)
			}
		}
		return nil
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	for b := range r.seen {
		if n, _ := strconv.Atoi(b[2:]); b[0] != 's' || n < 5 {
			t.Fatalf("%s delivered to %q", b, sel.Expression)
		}
	}
}

func TestConsumeBroadcastEveryConsumerGetsAll(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	e.send("x", 8, "", nil)
	group := uniqueName("bg")
	r1, r2 := newReceived(), newReceived()
	bc := []consumer.Option{consumer.WithConsumerModel(consumer.BroadCasting)}
	e.startPush(pushOpts{group: group, extra: bc}, r1)
	e.startPush(pushOpts{group: group, extra: bc}, r2)
	r1.waitAll(t, "x", 8, 20*time.Second)
	r2.waitAll(t, "x", 8, 20*time.Second)
}

func TestConsumeTwoConsumersShareQueuesAndRebalance(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	group := uniqueName("sg")
	r1, r2 := newReceived(), newReceived()
	e.startPush(pushOpts{group: group}, r1)
	c2 := e.startPush(pushOpts{group: group}, r2)
	// Both consumers get queues once the group has settled: new messages go
	// to both.
	round := 0
	testutil.Eventually(t, 30*time.Second, func() error {
		round++
		p := "share" + strconv.Itoa(round)
		e.send(p, 8, "", nil)
		time.Sleep(500 * time.Millisecond)
		got1, got2 := 0, 0
		for i := range 8 {
			b := p + "-" + strconv.Itoa(i)
			if r1.has(b) {
				got1++
			}
			if r2.has(b) {
				got2++
			}
		}
		if got1 == 0 || got2 == 0 || got1+got2 < 8 {
			return fmt.Errorf("round %d: consumer1 got %d, consumer2 got %d of 8", round, got1, got2)
		}
		return nil
	})
	// When one leaves, the other takes over every queue.
	if err := c2.Shutdown(); err != nil {
		t.Fatal(err)
	}
	e.send("alone", 8, "", nil)
	r1.waitAll(t, "alone", 8, 30*time.Second)
}

func TestConsumeRetryLaterRedelivers(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	e.send("r", 1, "TagA", nil)
	var mu sync.Mutex
	var attempts []*primitive.MessageExt
	h := func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		mu.Lock()
		defer mu.Unlock()
		attempts = append(attempts, msgs...)
		if len(attempts) == 1 {
			cc, _ := primitive.GetConcurrentlyCtx(ctx)
			cc.DelayLevelWhenNextConsume = 1 // 1 s instead of level 3's 10 s
			return consumer.ConsumeRetryLater, nil
		}
		return consumer.ConsumeSuccess, nil
	}
	group := uniqueName("rg")
	// The Go client learns routes at start and then every 30 s; the retry
	// topic the first heartbeat creates would only be routed after that, so
	// it exists (and is registered) beforehand.
	retry := body.NewTopicConfig("%RETRY%" + group)
	retry.ReadQueueNums, retry.WriteQueueNums, retry.Perm = 1, 1, 6
	e.b.Topics().UpdateTopicConfig(retry)
	e.b.RegisterBrokerAll(false)
	e.startPush(pushOpts{group: group, handler: h}, nil)
	testutil.Eventually(t, 30*time.Second, func() error {
		mu.Lock()
		defer mu.Unlock()
		if len(attempts) < 2 {
			st := e.b.Store()
			return fmt.Errorf("%d deliveries (schedule level 1: %d, retry queue: %d)", len(attempts),
				st.MaxOffsetInQueue("SCHEDULE_TOPIC_XXXX", 0), st.MaxOffsetInQueue("%RETRY%"+group, 0))
		}
		return nil
	})
	mu.Lock()
	defer mu.Unlock()
	first, again := attempts[0], attempts[1]
	if string(again.Body) != "r-0" || again.ReconsumeTimes != 1 || again.Topic != e.topic || again.GetTags() != "TagA" {
		t.Fatalf("redelivered %+v (topic %q reconsumeTimes %d)", again, again.Topic, again.ReconsumeTimes)
	}
	if again.GetProperty(primitive.PropertyOriginMessageId) != first.OffsetMsgId {
		t.Fatalf("ORIGIN_MESSAGE_ID %q, want %q", again.GetProperty(primitive.PropertyOriginMessageId), first.OffsetMsgId)
	}
}

func TestConsumeFromWhereForNewGroup(t *testing.T) {
	t.Parallel()
	// accessMessageInMemoryMaxRatio=0 makes every message count as "on disk",
	// so QUERY_CONSUMER_OFFSET answers QUERY_NOT_FOUND for a new group and the
	// client applies its consume-from-where policy (with messages in memory
	// Java answers 0 and every policy starts at the beginning).
	e := newConsumeEnv(t, func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) { s.AccessMessageInMemoryMaxRatio = 0 })
	e.send("old", 8, "", nil)
	time.Sleep(1200 * time.Millisecond)
	// The client's timestamp has second precision: start "mid" just after a
	// second boundary, so the search lands on the first "mid" message.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
	ts := time.Now().UTC().Format("20060102150405")
	e.send("mid", 8, "", nil)

	first, last, stamp := newReceived(), newReceived(), newReceived()
	e.startPush(pushOpts{group: uniqueName("first")}, first)
	e.startPush(pushOpts{group: uniqueName("last"), extra: []consumer.Option{
		consumer.WithConsumeFromWhere(consumer.ConsumeFromLastOffset)}}, last)
	e.startPush(pushOpts{group: uniqueName("stamp"), extra: []consumer.Option{
		consumer.WithConsumeFromWhere(consumer.ConsumeFromTimestamp), consumer.WithConsumeTimestamp(ts)}}, stamp)
	first.waitAll(t, "old", 8, 20*time.Second)
	first.waitAll(t, "mid", 8, 20*time.Second)
	stamp.waitAll(t, "mid", 8, 20*time.Second)
	round := 0
	testutil.Eventually(t, 30*time.Second, func() error {
		round++
		e.send("new"+strconv.Itoa(round), 4, "", nil)
		time.Sleep(300 * time.Millisecond)
		if last.count() == 0 {
			return errors.New("the CONSUME_FROM_LAST_OFFSET group received nothing yet")
		}
		return nil
	})
	for i := range 8 {
		for _, p := range []string{"old-", "mid-"} {
			if last.has(p + strconv.Itoa(i)) {
				t.Fatalf("CONSUME_FROM_LAST_OFFSET group received %s%d", p, i)
			}
		}
		if stamp.has("old-" + strconv.Itoa(i)) {
			t.Fatalf("CONSUME_FROM_TIMESTAMP group received old-%d sent before %s", i, ts)
		}
	}
}

func TestConsumeOffsetsSurviveBrokerRestart(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	group := uniqueName("restart")
	e.send("before", 8, "", nil)
	r1 := newReceived()
	c1 := e.startPush(pushOpts{group: group}, r1)
	r1.waitAll(t, "before", 8, 20*time.Second)
	// The client commits its offsets every 5 s (first after 10 s) and at
	// shutdown; its shutdown can run before the handler's last offset update,
	// so wait for the periodic commit.
	testutil.Eventually(t, 25*time.Second, func() error {
		var sum int64
		for q := range int32(4) {
			sum += max(e.b.Offsets().QueryOffset(group, e.topic, q), 0)
		}
		if sum != 8 {
			return fmt.Errorf("committed offsets sum to %d, want 8", sum)
		}
		return nil
	})
	if err := c1.Shutdown(); err != nil {
		t.Fatal(err)
	}
	root := e.b.StoreConfig().StorePathRootDir
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	cfg, scfg := testutil.NewBrokerConfigs(t, e.nsAddr)
	scfg.StorePathRootDir = root
	e.b = testutil.StartBrokerWith(t, cfg, scfg)
	if got := e.b.Offsets().QueryOffset(group, e.topic, 0); got != 2 {
		t.Fatalf("offset of queue 0 after restart %d, want 2", got)
	}
	e.p = e.newProducer() // routes to the restarted broker's new port
	e.send("after", 8, "", nil)
	r2 := newReceived()
	e.startPush(pushOpts{group: group}, r2)
	r2.waitAll(t, "after", 8, 20*time.Second)
	for i := range 8 {
		if r2.has("before-" + strconv.Itoa(i)) {
			t.Fatalf("restarted group re-consumed before-%d", i)
		}
	}
}

func TestConsumeQueryByKeyAndID(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	res := e.send("q", 3, "TagQ", nil)
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	addr := e.b.Addr().String()
	call := func(req *codec.RemotingCommand) *codec.RemotingCommand {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := c.InvokeSync(ctx, addr, req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	h := &header.QueryMessageRequestHeader{Topic: e.topic, Key: "q-key-1", MaxNum: 32,
		EndTimestamp: time.Now().Add(time.Minute).UnixMilli()}
	var msgs []*primitive.MessageExt
	testutil.Eventually(t, 5*time.Second, func() error {
		resp := call(codec.NewRequest(code.QueryMessage, h.ToExtFields(), nil))
		if resp.Code != code.Success {
			return fmt.Errorf("query: %d %s", resp.Code, resp.Remark)
		}
		msgs = primitive.DecodeMessage(resp.Body) // the Go client's own decoder
		return nil
	})
	if len(msgs) != 1 || string(msgs[0].Body) != "q-1" || msgs[0].MsgId != res[1].MsgID || msgs[0].GetTags() != "TagQ" {
		t.Fatalf("query by key found %d (%+v)", len(msgs), msgs)
	}
	_, off, err := message.DecodeOffsetMsgID(res[2].OffsetMsgID)
	if err != nil {
		t.Fatal(err)
	}
	resp := call(codec.NewRequest(code.ViewMessageById, (&header.ViewMessageRequestHeader{Offset: off}).ToExtFields(), nil))
	if resp.Code != code.Success {
		t.Fatalf("view: %d %s", resp.Code, resp.Remark)
	}
	if ms := primitive.DecodeMessage(resp.Body); len(ms) != 1 || string(ms[0].Body) != "q-2" || ms[0].OffsetMsgId != res[2].OffsetMsgID {
		t.Fatalf("view by id: %+v", ms)
	}
}
