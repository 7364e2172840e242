package integration

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/body"
)

const sendTopic = "IntegSendTopic"

// sendSetup starts a name server and a broker holding sendTopic with 4
// queues, and a started Go producer that picks queues by msg.Queue.
func sendSetup(t *testing.T) (*broker.Broker, *primitive.MessageQueue, func(qid int) *primitive.MessageQueue, interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
	SendAsync(context.Context, func(context.Context, *primitive.SendResult, error), ...*primitive.Message) error
	SendOneWay(context.Context, ...*primitive.Message) error
}) {
	t.Helper()
	rlog.SetLogLevel("error")
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String())
	tc := body.NewTopicConfig(sendTopic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 4, 4, 6
	b.Topics().UpdateTopicConfig(tc)
	b.RegisterBrokerAll(false)
	p, err := producer.NewDefaultProducer(
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{ns.Addr().String()})),
		producer.WithGroupName("integ_send_pg"),
		producer.WithQueueSelector(producer.NewManualQueueSelector()),
		producer.WithRetry(0),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown() })
	queue := func(qid int) *primitive.MessageQueue {
		return &primitive.MessageQueue{Topic: sendTopic, BrokerName: b.Config().BrokerName, QueueId: qid}
	}
	return b, queue(0), queue, p
}

func newMsg(q *primitive.MessageQueue, body string) *primitive.Message {
	m := primitive.NewMessage(sendTopic, []byte(body))
	m.WithTag("tagA")
	m.WithKeys([]string{"key-" + body})
	m.Queue = q
	return m
}

// storedAt reads one message back from the broker's store.
func storedAt(t *testing.T, b *broker.Broker, qid int32, offset int64) *message.MessageExt {
	t.Helper()
	var got *message.MessageExt
	testutil.Eventually(t, 5*time.Second, func() error {
		r := b.Store().GetMessage("integ", sendTopic, qid, offset, 1, nil)
		if r == nil || r.Status != store.Found || len(r.Messages) != 1 {
			return fmt.Errorf("queue %d offset %d not readable: %+v", qid, offset, r)
		}
		m, err := message.DecodeRecord(r.Messages[0], true)
		got = m
		return err
	})
	return got
}

func checkResult(t *testing.T, b *broker.Broker, r *primitive.SendResult, qid int, offset int64, bodyText string) {
	t.Helper()
	if r.Status != primitive.SendOK || r.QueueOffset != offset || r.MessageQueue.QueueId != qid {
		t.Fatalf("result %+v, want SEND_OK queue %d offset %d", r, qid, offset)
	}
	m := storedAt(t, b, int32(qid), offset)
	if string(m.Body) != bodyText || m.Tags() != "tagA" || m.Keys() != "key-"+bodyText {
		t.Fatalf("stored body %q tags %q keys %q", m.Body, m.Tags(), m.Keys())
	}
	if m.Property(message.PropertyUniqClientMessageIDKeyidx) != r.MsgID || m.MsgID != r.OffsetMsgID {
		t.Fatalf("ids: stored uniq %q offset %q, result %q %q", m.Property("UNIQ_KEY"), m.MsgID, r.MsgID, r.OffsetMsgID)
	}
	if r.RegionID != "DefaultRegion" || !r.TraceOn {
		t.Fatalf("region %q trace %v", r.RegionID, r.TraceOn)
	}
}

func TestIntegrationSendSync(t *testing.T) {
	b, _, queue, p := sendSetup(t)
	for i := range 3 {
		text := "sync-" + strconv.Itoa(i)
		m := newMsg(queue(1), text)
		r, err := p.SendSync(t.Context(), m)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, b, r, 1, int64(i), text)
	}
}

func TestIntegrationSendAsync(t *testing.T) {
	b, _, queue, p := sendSetup(t)
	results := make(chan *primitive.SendResult, 2)
	for i := range 2 {
		err := p.SendAsync(t.Context(), func(_ context.Context, r *primitive.SendResult, err error) {
			if err != nil {
				t.Errorf("async send: %v", err)
				results <- nil
				return
			}
			results <- r
		}, newMsg(queue(2), "async-"+strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		// wait for each before the next so the offsets are known
		select {
		case r := <-results:
			if r == nil {
				t.FailNow()
			}
			checkResult(t, b, r, 2, int64(i), "async-"+strconv.Itoa(i))
		case <-t.Context().Done():
			t.Fatal("no async result")
		case <-time.After(10 * time.Second):
			t.Fatal("no async result")
		}
	}
}

func TestIntegrationSendOneway(t *testing.T) {
	b, _, queue, p := sendSetup(t)
	for i := range 2 {
		if err := p.SendOneWay(t.Context(), newMsg(queue(3), "oneway-"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		if n := b.Store().MaxOffsetInQueue(sendTopic, 3); n != 2 {
			return fmt.Errorf("queue 3 max offset %d", n)
		}
		return nil
	})
	// Oneway sends may be stored in either order (several send workers, as
	// in Java); both must be there.
	got := map[string]bool{}
	for i := range 2 {
		got[string(storedAt(t, b, 3, int64(i)).Body)] = true
	}
	if !got["oneway-0"] || !got["oneway-1"] {
		t.Fatalf("stored %v", got)
	}
}

func TestIntegrationSendBatch(t *testing.T) {
	b, q0, _, p := sendSetup(t)
	var msgs []*primitive.Message
	for i := range 3 {
		msgs = append(msgs, newMsg(q0, "batch-"+strconv.Itoa(i)))
	}
	r, err := p.SendSync(t.Context(), msgs...)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != primitive.SendOK || r.QueueOffset != 0 || r.MessageQueue.QueueId != 0 {
		t.Fatalf("batch result %+v", r)
	}
	for i := range 3 {
		m := storedAt(t, b, 0, int64(i))
		if string(m.Body) != "batch-"+strconv.Itoa(i) || m.Tags() != "tagA" {
			t.Fatalf("batch msg %d: %q tags %q", i, m.Body, m.Tags())
		}
	}
	// A second batch continues after the first.
	r, err = p.SendSync(t.Context(), newMsg(q0, "after"), newMsg(q0, "after2"))
	if err != nil || r.QueueOffset != 3 {
		t.Fatalf("second batch %+v %v", r, err)
	}
}
