package integration

import (
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestNode5GoProducerNodeSimpleConsumer: messages the official Go remoting
// client sends over all four queues are received once each by the Node
// SDK's SimpleConsumer through the gRPC front end, with the Go client's
// message id, body, tag, keys and properties.
func TestNode5GoProducerNodeSimpleConsumer(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	const n = 8
	res := e.send("go", n, "TagG", map[string]string{"src": "go"})
	evs := startNode(t, "simple_consumer.js", e.simpleArgs(uniqueName("nmg"), n)).wait(node5Timeout(60 * time.Second))
	got := byID(evs)
	for i, r := range res {
		m := got[r.MsgID]
		if len(m) != 1 {
			t.Errorf("go-%d (%s) received %d times by node, want once", i, r.MsgID, len(m))
			continue
		}
		if m[0].Body != "go-"+strconv.Itoa(i) || m[0].Tag != "TagG" || m[0].Corrupted ||
			!slices.Equal(m[0].Keys, []string{"go-key-" + strconv.Itoa(i)}) ||
			m[0].Properties["i"] != strconv.Itoa(i) || m[0].Properties["src"] != "go" {
			t.Errorf("node received %+v for go-%d", m[0], i)
		}
	}
	if len(got) != n {
		t.Errorf("node received %d distinct messages, want %d", len(got), n)
	}
}

// TestNode5NodeProducerGoPushConsumer: messages the Node SDK's Producer
// sends through the gRPC front end reach the official Go remoting push
// consumer with the Node message id (UNIQ_KEY), body, tag, keys and
// properties.
func TestNode5NodeProducerGoPushConsumer(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	r := newReceived()
	e.startPush(pushOpts{group: uniqueName("gcg")}, r)
	const n = 6
	sent := e.node5Sent(t, map[string]any{"mode": "normal", "count": n, "tag": "TagN", "prefix": "nd"})
	r.waitAll(t, "nd", n, node5Timeout(30*time.Second))
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range sent {
		var found bool
		for _, m := range r.msgs {
			if string(m.Body) != s.Body {
				continue
			}
			found = true
			if m.MsgId != s.MessageID || m.Topic != e.topic || m.GetTags() != "TagN" ||
				m.GetKeys() != "nd-key-"+strconv.Itoa(s.I) || m.GetProperty("i") != strconv.Itoa(s.I) {
				t.Errorf("go consumer got msgId=%s tags=%s keys=%s i=%s for node send %+v",
					m.MsgId, m.GetTags(), m.GetKeys(), m.GetProperty("i"), s)
			}
		}
		if !found {
			t.Errorf("%s not received", s.Body)
		}
	}
}

// TestNode5ClusterModeProduceConsume: with the front end in cluster mode
// (a separate mqproxy: brokers reached over remoting, routes from the name
// server), the Node SDK's Producer and SimpleConsumer work as in local
// mode, including an invisible-duration change.
func TestNode5ClusterModeProduceConsume(t *testing.T) {
	t.Parallel()
	e := newNode5EnvWith(t, node5Setup{cluster: true})
	sent := e.node5Sent(t, map[string]any{"mode": "normal", "count": 4, "tag": "TagC", "prefix": "k"})
	args := e.simpleArgs(uniqueName("nck"), len(sent))
	args["mode"], args["invisibleMs"], args["changeMs"] = "change", 30000, 1000
	evs := startNode(t, "simple_consumer.js", args).wait(node5Timeout(60 * time.Second))
	checkRedelivered(t, sent, evs, 1000)
	for _, m := range node5Filter(evs, "received") {
		if m.Tag != "TagC" || m.Topic != e.topic {
			t.Errorf("received %+v", m)
		}
	}
}
