package proxy

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// gatedBrokers answers calls of one code only once gate is closed and
// tracks how many of them are in flight.
type gatedBrokers struct {
	*fakeBrokers
	gate            chan struct{}
	mu              sync.Mutex
	inFlight, maxIn int
}

func newGatedBrokers(gated int32) *gatedBrokers {
	g := &gatedBrokers{fakeBrokers: &fakeBrokers{route: twoBrokerRoute()}, gate: make(chan struct{})}
	g.answer = func(_ string, req *codec.RemotingCommand) *codec.RemotingCommand {
		r := success()
		if req.Code != gated {
			return r
		}
		g.mu.Lock()
		g.inFlight++
		g.maxIn = max(g.maxIn, g.inFlight)
		g.mu.Unlock()
		<-g.gate
		g.mu.Lock()
		g.inFlight--
		g.mu.Unlock()
		if req.Code == code.ChangeMessageInvisibletime {
			r.ExtFields = (&header.ChangeInvisibleTimeResponseHeader{PopTime: time.Now().UnixMilli(), InvisibleTime: 60000, ReviveQid: 7}).ToExtFields()
		}
		return r
	}
	return g
}

func (g *gatedBrokers) counts() (inFlight, maxIn int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inFlight, g.maxIn
}

// heldMsg is a popped message of topic T at queue offset off whose handle
// has retry marker kind and pop time popped.
func heldMsg(id string, kind string, off int64, popped time.Time) *message.MessageExt {
	m := storedMsg("T", "", off, 0)
	m.Properties["UNIQ_KEY"] = id
	m.Properties[propPopCK] = ReceiptHandle{RetrieveTime: popped.UnixMilli(), InvisibleTime: 30000, TopicType: kind,
		BrokerName: "a", QueueID: 0, Offset: off, CommitLogOffset: 1000 + off}.Encode()
	return m
}

func ackReq(entries ...*apiv2.AckMessageEntry) *apiv2.AckMessageRequest {
	return &apiv2.AckMessageRequest{Group: &apiv2.Resource{Name: "G"}, Topic: &apiv2.Resource{Name: "T"}, Entries: entries}
}

func (r *renewer) heldCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.held)
}

// TestProxyRenewStaleHandleLeavesHeldOne: an ack with a stale handle of a
// message (its earlier pop from the topic) while the client holds the
// message's redelivery (from the retry topic) acks the stale handle and
// leaves the held one renewing, as 5.x matches the handle sent.
func TestProxyRenewStaleHandleLeavesHeldOne(t *testing.T) {
	f := &fakeBrokers{route: twoBrokerRoute(), answer: func(string, *codec.RemotingCommand) *codec.RemotingCommand { return success() }}
	c := newTestConsumer(t, f)
	c.renew = newRenewer(c, nil)
	stale := heldMsg("M1", receiptNormalTopic, 4, time.Now())
	c.renew.hold(context.Background(), "cli", "G", "T", []*message.MessageExt{heldMsg("M1", receiptRetryTopicV1, 9, time.Now())})
	resp := c.ackMessage(context.Background(), "cli", ackReq(&apiv2.AckMessageEntry{MessageId: "M1", ReceiptHandle: stale.Properties[propPopCK]}))
	if resp.GetStatus().GetCode() != apiv2.Code_OK {
		t.Fatalf("ack: %v", resp)
	}
	if acks := f.callsOf(code.AckMessage); len(acks) != 1 || acks[0].Ext("offset") != "4" {
		t.Fatalf("ack sent for %v, want the stale handle's offset 4", acks[0].ExtFields)
	}
	if n := c.renew.heldCount(); n != 1 {
		t.Fatalf("%d handles held after the stale ack, want the redelivery still held", n)
	}
}

// TestProxyRenewReleaseAfterRepopDoesNotHang: an ack waiting for an
// in-flight renewal returns when the renewal ends even if the message was
// popped again meanwhile (its entry replaced), and an ack whose call ends
// first returns then with an error instead of waiting on.
func TestProxyRenewReleaseAfterRepopDoesNotHang(t *testing.T) {
	g := newGatedBrokers(code.ChangeMessageInvisibletime)
	c := newTestConsumer(t, g.fakeBrokers)
	c.cfg.RenewAheadTimeMillis = 60_000 // every held handle is due
	c.renew = newRenewer(c, nil)
	t.Cleanup(func() {
		select {
		case <-g.gate:
		default:
			close(g.gate)
		}
	})
	first := heldMsg("M1", receiptNormalTopic, 4, time.Now().Add(-time.Second))
	c.renew.hold(context.Background(), "cli", "G", "T", []*message.MessageExt{first})
	c.renew.renewDue(nil)
	waitFor(t, func() bool { n, _ := g.counts(); return n == 1 })

	// The call's context ends while the renewal is still in flight.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	bounded := make(chan *apiv2.AckMessageResponse, 1)
	go func() {
		bounded <- c.ackMessage(ctx, "cli", ackReq(&apiv2.AckMessageEntry{MessageId: "M1", ReceiptHandle: first.Properties[propPopCK]}))
	}()
	select {
	case r := <-bounded:
		if r.GetStatus().GetCode() == apiv2.Code_OK {
			t.Fatalf("ack given up on a renewal in flight answered %v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ack still waiting for the renewal 5 s after its context ended")
	}

	// Another ack waits; the message is popped again (same place, new
	// handle) before the renewal ends.
	acked := make(chan *apiv2.AckMessageResponse, 1)
	waiting := &doneWatch{Context: context.Background(), called: make(chan struct{})}
	go func() {
		acked <- c.ackMessage(waiting, "cli", ackReq(&apiv2.AckMessageEntry{MessageId: "M1", ReceiptHandle: first.Properties[propPopCK]}))
	}()
	select {
	case <-waiting.called: // the ack is now waiting for the renewal
	case <-time.After(5 * time.Second):
		t.Fatal("the ack never waited for the renewal in flight")
	}
	c.renew.hold(context.Background(), "cli", "G", "T", []*message.MessageExt{heldMsg("M1", receiptNormalTopic, 4, time.Now())})
	close(g.gate)
	select {
	case r := <-acked:
		if r.GetEntries()[0].GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("ack after the re-pop: %v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ack hangs after a re-pop replaced the entry being renewed")
	}
	c.renew.wg.Wait()
}

// TestProxyRenewRunsConcurrentlyBounded: due handles are renewed
// renewConcurrency at a time, not one after another (each call may take
// up to 3 s, so one at a time misses the renew-ahead time).
func TestProxyRenewRunsConcurrentlyBounded(t *testing.T) {
	g := newGatedBrokers(code.ChangeMessageInvisibletime)
	c := newTestConsumer(t, g.fakeBrokers)
	c.cfg.RenewAheadTimeMillis = 60_000
	c.renew = newRenewer(c, nil)
	var msgs []*message.MessageExt
	for i := range 3 * renewConcurrency {
		msgs = append(msgs, heldMsg("M"+itoa(int64(i)), receiptNormalTopic, int64(i), time.Now()))
	}
	c.renew.hold(context.Background(), "cli", "G", "T", msgs)
	dispatched := make(chan struct{})
	go func() { defer close(dispatched); c.renew.renewDue(nil) }()
	waitFor(t, func() bool { n, _ := g.counts(); return n == renewConcurrency })
	time.Sleep(50 * time.Millisecond) // room for any renewal past the bound to start
	if n, _ := g.counts(); n != renewConcurrency {
		t.Fatalf("%d renewals in flight, want %d", n, renewConcurrency)
	}
	close(g.gate)
	<-dispatched
	c.renew.wg.Wait()
	if _, m := g.counts(); m != renewConcurrency {
		t.Errorf("at most %d renewals in flight, want %d", m, renewConcurrency)
	}
	if n := len(g.callsOf(code.ChangeMessageInvisibletime)); n != len(msgs) {
		t.Fatalf("%d renewals, want %d", n, len(msgs))
	}
	c.renew.mu.Lock()
	defer c.renew.mu.Unlock()
	for k, hh := range c.renew.held {
		if hh.renewing || hh.handle.ReviveQueueID != 7 {
			t.Fatalf("%v not renewed: %+v", k, hh)
		}
	}
}

// TestProxyAckBoundsConcurrency: an AckMessage with many entries keeps at
// most ackConcurrency broker calls in flight and answers every entry.
func TestProxyAckBoundsConcurrency(t *testing.T) {
	g := newGatedBrokers(code.AckMessage)
	c := newTestConsumer(t, g.fakeBrokers)
	req := ackReq()
	for i := range 5 * ackConcurrency {
		m := heldMsg("M"+itoa(int64(i)), receiptNormalTopic, int64(i), time.Now())
		req.Entries = append(req.Entries, &apiv2.AckMessageEntry{MessageId: "M" + itoa(int64(i)), ReceiptHandle: m.Properties[propPopCK]})
	}
	done := make(chan *apiv2.AckMessageResponse, 1)
	go func() { done <- c.ackMessage(context.Background(), "cli", req) }()
	waitFor(t, func() bool { n, _ := g.counts(); return n == ackConcurrency })
	time.Sleep(50 * time.Millisecond) // room for any ack past the bound to start
	if n, _ := g.counts(); n != ackConcurrency {
		t.Fatalf("%d acks in flight, want %d", n, ackConcurrency)
	}
	close(g.gate)
	resp := <-done
	if resp.GetStatus().GetCode() != apiv2.Code_OK || len(resp.GetEntries()) != len(req.Entries) {
		t.Fatalf("response %v", resp)
	}
	for i, e := range resp.GetEntries() {
		if e.GetMessageId() != req.Entries[i].MessageId || !strings.HasPrefix(e.GetReceiptHandle(), "0 ") {
			t.Fatalf("entry %d: %v", i, e)
		}
	}
	if _, m := g.counts(); m != ackConcurrency {
		t.Errorf("at most %d acks in flight, want %d", m, ackConcurrency)
	}
}

// doneWatch is a context that reports the first call of Done: release
// calls it only once it waits for a renewal in flight.
type doneWatch struct {
	context.Context
	once   sync.Once
	called chan struct{}
}

func (d *doneWatch) Done() <-chan struct{} {
	d.once.Do(func() { close(d.called) })
	return d.Context.Done()
}
