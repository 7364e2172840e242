package integration

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// node5Timeout bounds one Node script run; a loaded machine under -race
// gets the wait package's slack.
func node5Timeout(d time.Duration) time.Duration { return wait.Scale(d) }

// node5Sent runs producer.js with args (endpoints and topic added) and
// returns its "sent" events, checking each has a distinct message id.
func (e *node5Env) node5Sent(t *testing.T, args map[string]any) []node5Event {
	t.Helper()
	args["endpoints"], args["topic"] = e.endpoint, e.topic
	args["timeoutMs"] = node5Timeout(40 * time.Second).Milliseconds()
	sent := node5Filter(startNode(t, "producer.js", args).wait(node5Timeout(45*time.Second)), "sent")
	ids := map[string]bool{}
	for _, s := range sent {
		if s.MessageID == "" || ids[s.MessageID] {
			t.Fatalf("send receipt without a distinct message id: %+v", sent)
		}
		ids[s.MessageID] = true
	}
	return sent
}

// simpleArgs are simple_consumer.js arguments for group on the env's topic.
func (e *node5Env) simpleArgs(group string, expect int) map[string]any {
	return map[string]any{
		"endpoints": e.endpoint, "topic": e.topic, "group": group, "expect": expect,
		"awaitMs": 5000, "timeoutMs": node5Timeout(45 * time.Second).Milliseconds(),
	}
}

// byID groups received events by message id, in arrival order.
func byID(evs []node5Event) map[string][]node5Event {
	out := map[string][]node5Event{}
	for _, e := range node5Filter(evs, "received") {
		out[e.MessageID] = append(out[e.MessageID], e)
	}
	return out
}

// TestNode5ProducerSimpleConsumerAck: messages sent by the Node SDK's
// Producer reach its SimpleConsumer once each, with the producer's message
// id, body, tag, keys and properties, on the first delivery attempt; after
// the acks nothing comes back during a further long poll.
func TestNode5ProducerSimpleConsumerAck(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	const n = 8
	sent := e.node5Sent(t, map[string]any{"mode": "normal", "count": n, "tag": "TagA", "prefix": "n"})
	if len(sent) != n {
		t.Fatalf("sent %d of %d", len(sent), n)
	}
	args := e.simpleArgs(uniqueName("ncg"), n)
	args["quietMs"] = 6000
	evs := startNode(t, "simple_consumer.js", args).wait(node5Timeout(60 * time.Second))
	got := byID(evs)
	for _, s := range sent {
		r := got[s.MessageID]
		if len(r) != 1 {
			t.Errorf("message %s (%s) received %d times, want once: %+v", s.MessageID, s.Body, len(r), r)
			continue
		}
		m := r[0]
		if m.Body != s.Body || m.Topic != e.topic || m.Tag != "TagA" || m.DeliveryAttempt != 1 || m.Corrupted ||
			!slices.Equal(m.Keys, []string{"n-key-" + strconv.Itoa(s.I)}) || m.Properties["i"] != strconv.Itoa(s.I) {
			t.Errorf("received %+v for sent %+v", m, s)
		}
	}
	if len(got) != n {
		t.Errorf("received %d distinct messages, want %d: %v", len(got), n, got)
	}
	if acked := node5Filter(evs, "acked"); len(acked) != n {
		t.Errorf("%d acks, want %d", len(acked), n)
	}
}

// TestNode5ProducerFIFOOrderPerMessageGroup: FIFO messages of three
// message groups, sent interleaved, are each received once, carry their
// group, and arrive in send order within their group.
func TestNode5ProducerFIFOOrderPerMessageGroup(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	groups := []string{"ga", "gb", "gc"}
	const perGroup = 5
	sent := e.node5Sent(t, map[string]any{"mode": "fifo", "groups": groups, "perGroup": perGroup})
	if len(sent) != len(groups)*perGroup {
		t.Fatalf("sent %d", len(sent))
	}
	evs := startNode(t, "simple_consumer.js", e.simpleArgs(uniqueName("nfg"), len(sent))).wait(node5Timeout(60 * time.Second))
	next := map[string]int{}
	for _, m := range node5Filter(evs, "received") {
		g, seq, ok := strings.Cut(m.Body, "-")
		if !ok || m.Group != g {
			t.Errorf("message %+v: body and message group disagree", m)
			continue
		}
		if want := strconv.Itoa(next[g]); seq != want {
			t.Errorf("group %s: got %s, want %s (out of order or duplicate)", g, m.Body, g+"-"+want)
		}
		next[g]++
	}
	for _, g := range groups {
		if next[g] != perGroup {
			t.Errorf("group %s: %d received, want %d", g, next[g], perGroup)
		}
	}
}

// TestNode5ProducerDelayNotBeforeItsTime: DELAY messages (delivery
// timestamp now+2 s and now+3 s) are received once, carry their delivery
// timestamp, and are not delivered more than 1 s before it (5.x rounds the
// time down to the timer precision). TestNoRaceNode5DelayWithinOneSecond
// checks the upper bound.
func TestNode5ProducerDelayNotBeforeItsTime(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	evs, sent := e.runDelay(t)
	got := byID(evs)
	for _, s := range sent {
		r := got[s.MessageID]
		if len(r) != 1 {
			t.Fatalf("delayed message %s received %d times: %+v", s.Body, len(r), evs)
		}
		if r[0].DeliveryTimestamp != s.DeliverAt {
			t.Errorf("%s: delivery timestamp %d, sent with %d", s.Body, r[0].DeliveryTimestamp, s.DeliverAt)
		}
		if early := s.DeliverAt - r[0].MS; early > 1000 {
			t.Errorf("%s delivered %d ms before its time", s.Body, early)
		}
	}
}

// runDelay starts a simple consumer, then sends DELAY messages with the
// Node producer, and returns the consumer's events and the sends.
func (e *node5Env) runDelay(t *testing.T) ([]node5Event, []node5Event) {
	t.Helper()
	c := startNode(t, "simple_consumer.js", e.simpleArgs(uniqueName("ndg"), 2))
	c.waitFor(node5Timeout(30*time.Second), "consumer start", func(ev node5Event) bool { return ev.Event == "started" })
	sent := e.node5Sent(t, map[string]any{"mode": "delay", "delaysMs": []int{2000, 3000}})
	return c.wait(node5Timeout(45 * time.Second)), sent
}

// TestNode5TransactionCommitRollbackAndCheck: with the Node producer's
// transactions, a committed message is delivered and a rolled back one is
// not; of two transactions left open, the server asks the producer's
// checker (RecoverOrphanedTransactionCommand over Telemetry), and the one
// the checker commits is delivered, the one it rolls back never.
func TestNode5TransactionCommitRollbackAndCheck(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.TransactionCheckInterval = 2000
		c.TransactionTimeOut = 3000
	})
	p := startNode(t, "producer.js", map[string]any{
		"endpoints": e.endpoint, "topic": e.topic, "mode": "tx", "untilStdinClosed": true,
		"actions":   []string{"commit", "rollback", "check-commit", "check-rollback"},
		"timeoutMs": node5Timeout(60 * time.Second).Milliseconds(),
	})
	checked := map[string]bool{}
	for len(checked) < 2 {
		ev := p.waitFor(node5Timeout(40*time.Second), "transaction checks", func(ev node5Event) bool { return ev.Event == "check" })
		if !strings.HasPrefix(ev.Body, "tx-check-") {
			t.Errorf("checker asked about %s, which the producer ended itself", ev.Body)
		}
		checked[ev.Body] = true
	}
	args := e.simpleArgs(uniqueName("ntg"), 2)
	args["quietMs"] = 6000
	evs := startNode(t, "simple_consumer.js", args).wait(node5Timeout(60 * time.Second))
	var bodies []string
	for _, m := range node5Filter(evs, "received") {
		bodies = append(bodies, m.Body)
	}
	slices.Sort(bodies)
	if want := []string{"tx-check-commit-2", "tx-commit-0"}; !slices.Equal(bodies, want) {
		t.Errorf("received %v, want %v", bodies, want)
	}
	if err := p.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	sent := node5Filter(p.wait(node5Timeout(30*time.Second)), "sent")
	for _, s := range sent {
		if s.TransactionID == "" {
			t.Errorf("transactional send %s has no transaction id", s.Body)
		}
	}
}

// TestNode5SimpleConsumerChangeInvisibleDuration: a message whose
// invisible duration the consumer shortens from 30 s to 1 s comes back
// with delivery attempt 2, after the 1 s and before the 30 s; acked then,
// it is done.
func TestNode5SimpleConsumerChangeInvisibleDuration(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	sent := e.node5Sent(t, map[string]any{"mode": "normal", "count": 3, "prefix": "c"})
	args := e.simpleArgs(uniqueName("ncc"), len(sent))
	// Received with 30 s, shortened to 1 s: it must come back between 1 s
	// and 30 s after the first delivery.
	args["mode"], args["invisibleMs"], args["changeMs"] = "change", 30000, 1000
	evs := startNode(t, "simple_consumer.js", args).wait(node5Timeout(60 * time.Second))
	checkRedelivered(t, sent, evs, 1000)
	got := byID(evs)
	for _, s := range sent {
		if r := got[s.MessageID]; len(r) == 2 && r[1].MS-r[0].MS >= 30000 {
			t.Errorf("%s came back after %d ms: the change to 1 s was not applied", s.Body, r[1].MS-r[0].MS)
		}
	}
	if changed := node5Filter(evs, "changed"); len(changed) != len(sent) {
		t.Errorf("%d invisible-duration changes, want %d", len(changed), len(sent))
	}
}

// TestNode5SimpleConsumerRedeliveryAfterInvisibleTime: a message received
// with a 10 s invisible duration (5.x's minimum) and never acked comes
// back with delivery attempt 2 once the 10 s are over.
func TestNode5SimpleConsumerRedeliveryAfterInvisibleTime(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	sent := e.node5Sent(t, map[string]any{"mode": "normal", "count": 2, "prefix": "x"})
	args := e.simpleArgs(uniqueName("nce"), len(sent))
	args["mode"], args["invisibleMs"] = "expire", 10000
	evs := startNode(t, "simple_consumer.js", args).wait(node5Timeout(60 * time.Second))
	checkRedelivered(t, sent, evs, 10000)
}

// checkRedelivered checks every sent message was received exactly twice:
// attempt 1, then attempt 2 at least minGapMs later.
func checkRedelivered(t *testing.T, sent, evs []node5Event, minGapMs int64) {
	t.Helper()
	got := byID(evs)
	for _, s := range sent {
		r := got[s.MessageID]
		if len(r) != 2 || r[0].DeliveryAttempt != 1 || r[1].DeliveryAttempt != 2 || r[1].Body != s.Body {
			t.Errorf("%s: deliveries %+v, want attempt 1 then attempt 2", s.Body, r)
			continue
		}
		if gap := r[1].MS - r[0].MS; gap < minGapMs {
			t.Errorf("%s redelivered %d ms after the first delivery, before its invisible time (%d ms)", s.Body, gap, minGapMs)
		}
	}
}

// TestNode5PushConsumerRetriesFailure: the Node SDK's PushConsumer
// (QueryAssignment, auto-renewed receives, acks) gets every message; a
// message its listener fails is delivered again with attempt 2.
func TestNode5PushConsumerRetriesFailure(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	sent := e.node5Sent(t, map[string]any{"mode": "normal", "count": 4, "prefix": "p"})
	evs := startNode(t, "push_consumer.js", map[string]any{
		"endpoints": e.endpoint, "topic": e.topic, "group": uniqueName("npg"), "expect": len(sent),
		"failFirst": true, "timeoutMs": node5Timeout(45 * time.Second).Milliseconds(),
	}).wait(node5Timeout(50 * time.Second))
	got := byID(evs)
	for _, s := range sent {
		r := got[s.MessageID]
		if len(r) < 2 || r[0].DeliveryAttempt != 1 || r[0].Result != "FAILURE" ||
			r[1].DeliveryAttempt != 2 || r[1].Result != "SUCCESS" || r[1].Body != s.Body {
			t.Errorf("%s: deliveries %+v, want a failed attempt 1 then attempt 2", s.Body, r)
		}
	}
}

// TestNode5FIFOOrderlyGroupHoldsNextMessage: for a consumer group with
// consumeMessageOrderly (5.x's FIFO group), the next message of a message
// group is not delivered while the previous one is still unacknowledged:
// each message the SimpleConsumer puts back (1 s invisible) comes back
// before the following one is delivered at all.
func TestNode5FIFOOrderlyGroupHoldsNextMessage(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	group := uniqueName("nfo")
	sg := body.NewSubscriptionGroupConfig(group)
	sg.ConsumeMessageOrderly = true
	e.b.Subscriptions().UpdateSubscriptionGroupConfig(sg)
	sent := e.node5Sent(t, map[string]any{"mode": "fifo", "groups": []string{"ga"}, "perGroup": 2})
	args := e.simpleArgs(group, len(sent))
	args["mode"], args["changeMs"], args["batch"] = "change", 1000, 1
	evs := startNode(t, "simple_consumer.js", args).wait(node5Timeout(60 * time.Second))
	var got []string
	for _, m := range node5Filter(evs, "received") {
		got = append(got, m.Body+"#"+strconv.Itoa(m.DeliveryAttempt))
	}
	want := []string{"ga-0#1", "ga-0#2", "ga-1#1", "ga-1#2"}
	if !slices.Equal(got, want) {
		t.Errorf("deliveries %v, want %v", got, want)
	}
}

// TestNode5SimpleConsumerTagFilter: a SimpleConsumer subscribed to TagA
// gets the TagA messages and none of the TagB ones sent before them.
func TestNode5SimpleConsumerTagFilter(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	e.node5Sent(t, map[string]any{"mode": "normal", "count": 3, "tag": "TagB", "prefix": "b"})
	sent := e.node5Sent(t, map[string]any{"mode": "normal", "count": 3, "tag": "TagA", "prefix": "a"})
	args := e.simpleArgs(uniqueName("ntf"), len(sent))
	args["tag"] = "TagA"
	evs := startNode(t, "simple_consumer.js", args).wait(node5Timeout(60 * time.Second))
	got := byID(evs)
	for _, m := range node5Filter(evs, "received") {
		if m.Tag != "TagA" || !strings.HasPrefix(m.Body, "a-") {
			t.Errorf("TagA subscriber received %s with tag %q", m.Body, m.Tag)
		}
	}
	for _, s := range sent {
		if len(got[s.MessageID]) != 1 {
			t.Errorf("%s received %d times, want once", s.Body, len(got[s.MessageID]))
		}
	}
}

// TestNode5PushConsumerFIFOOrder: the PushConsumer of an orderly group
// (settings say fifo, so the SDK consumes one message at a time) gets the
// FIFO messages of each message group in send order, once each.
func TestNode5PushConsumerFIFOOrder(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	group := uniqueName("npf")
	sg := body.NewSubscriptionGroupConfig(group)
	sg.ConsumeMessageOrderly = true
	e.b.Subscriptions().UpdateSubscriptionGroupConfig(sg)
	groups := []string{"ga", "gb"}
	const perGroup = 4
	sent := e.node5Sent(t, map[string]any{"mode": "fifo", "groups": groups, "perGroup": perGroup})
	evs := startNode(t, "push_consumer.js", map[string]any{
		"endpoints": e.endpoint, "topic": e.topic, "group": group, "expect": len(sent),
		"timeoutMs": node5Timeout(45 * time.Second).Milliseconds(),
	}).wait(node5Timeout(50 * time.Second))
	next := map[string]int{}
	for _, m := range node5Filter(evs, "received") {
		g, seq, _ := strings.Cut(m.Body, "-")
		if want := strconv.Itoa(next[g]); seq != want || m.Group != g {
			t.Errorf("group %s: got %s (group %q), want %s-%s", g, m.Body, m.Group, g, want)
		}
		next[g]++
	}
	for _, g := range groups {
		if next[g] != perGroup {
			t.Errorf("group %s: %d received, want %d", g, next[g], perGroup)
		}
	}
}
