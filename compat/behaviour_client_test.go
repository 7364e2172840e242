package compat

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"github.com/rocketmq-go/rmq/internal/testutil"
)

// TestCompatGoClientRoundTrip: the official Go client sends messages
// through the name server's route and a push consumer (new group, from the
// first offset) receives every one of them with body, tag, keys and ids intact.
func TestCompatGoClientRoundTrip(t *testing.T) {
	rlog.SetLogLevel("error")
	tg := newTarget(t)
	topic, group := uniq("CompatGoClient"), uniq("compat_go_cg")
	tg.createTopic(t, topic, 4)
	ns := primitive.NewPassthroughResolver([]string{tg.NamesrvAddr})

	p, err := producer.NewDefaultProducer(producer.WithNsResolver(ns), producer.WithGroupName(uniq("compat_go_pg")),
		producer.WithInstanceName(uniq("compat_p")), producer.WithRetry(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown() })

	const n = 20
	sent := map[string]string{} // msgId → body
	for i := range n {
		m := primitive.NewMessage(topic, []byte("go-"+strconv.Itoa(i)))
		m.WithTag("TagG")
		m.WithKeys([]string{"gk-" + strconv.Itoa(i)})
		r, err := p.SendSync(t.Context(), m)
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		if r.Status != primitive.SendOK || r.MessageQueue.Topic != topic || r.MessageQueue.BrokerName != tg.BrokerName || r.OffsetMsgID == "" {
			t.Fatalf("send %d: %+v", i, r)
		}
		sent[r.MsgID] = string(m.Body)
	}

	var (
		mu   sync.Mutex
		got  = map[string]string{}
		done = make(chan struct{})
	)
	c, err := consumer.NewPushConsumer(consumer.WithNsResolver(ns), consumer.WithGroupName(group),
		consumer.WithInstance(uniq("compat_c")), consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Subscribe(topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "TagG"},
		func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			mu.Lock()
			defer mu.Unlock()
			for _, m := range msgs {
				if m.GetTags() != "TagG" || m.GetKeys() != "gk-"+string(m.Body[3:]) {
					t.Errorf("message %s: tags %q keys %q", m.MsgId, m.GetTags(), m.GetKeys())
				}
				got[m.MsgId] = string(m.Body)
			}
			if len(got) == n {
				select {
				case <-done:
				default:
					close(done)
				}
			}
			return consumer.ConsumeSuccess, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	t.Cleanup(func() { _ = testutil.ShutdownSettled(started, c.Shutdown) })

	select {
	case <-done:
	case <-time.After(60 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != n {
		t.Fatalf("consumed %d of %d messages", len(got), n)
	}
	for id, b := range sent {
		if got[id] != b {
			t.Fatalf("message %s: consumed %q, sent %q", id, got[id], b)
		}
	}
}
