package main

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func TestBenchHistogramQuantiles(t *testing.T) {
	var h histogram
	for us := int64(1); us <= 10000; us++ {
		h.add(us)
	}
	for _, c := range []struct {
		q    float64
		want int64
	}{{0.5, 5000}, {0.99, 9900}, {1, 10000}} {
		got := h.quantile(c.q)
		if d := float64(got-c.want) / float64(c.want); d > 0.02 || d < -0.02 {
			t.Fatalf("q%.2f = %d µs, want %d ±2%%", c.q, got, c.want)
		}
	}
	for _, us := range []int64{0, 1, 63, 64, 65, 1000, 123456, 1 << 35} {
		if v := bucketValue(bucketOf(us)); v > us || float64(us-v) > float64(us)/60 {
			t.Fatalf("bucket of %d starts at %d", us, v)
		}
	}
	h.reset()
	if q := h.quantile(0.99); q != 0 {
		t.Fatalf("empty histogram p99 %d", q)
	}
}

// TestBenchEmbeddedProduceConsume runs the tool end to end in embedded
// mode: a fixed quantity sent by both clients, then drained by both
// consumers.
func TestBenchEmbeddedProduceConsume(t *testing.T) {
	base := &options{
		topic: "BenchTestTopic", group: "bench_test_cg", threads: 4, size: 64, tagCount: 2, keys: true,
		inflight: 4, batch: 1, queues: 4, interval: time.Hour, duration: 60 * time.Second, from: "first",
		embedded: true, flushDisk: "ASYNC_FLUSH", storeDir: t.TempDir(), sendTimeout: 5 * time.Second,
	}
	e, err := startEmbedded(base)
	if err != nil {
		t.Fatal(err)
	}
	defer e.stop()
	base.namesrv = e.namesrvAddr
	ctx := context.Background()
	var warm int64
	send := func(client string, async bool, batch int, n int64) {
		o := *base
		o.client, o.async, o.batch = client, async, batch
		s, err := newSender(ctx, &o)
		if err != nil {
			t.Fatalf("%s sender: %v", client, err)
		}
		if client == "go" {
			// rocketmq-client-go hands a topic's queues to its producer
			// before it stores the broker's address (internal/route.go,
			// UpdateTopicRouteInfoWithDefault), and a send that looks the
			// address up in between fails at once with "topic=… route info
			// not found" (producer.go, sendSync). A goroutine of the first
			// concurrent sends can run in that window on a loaded machine
			// (3 of 40 failed once). One send first settles the route, as
			// any client that has sent before.
			if _, err := s.sendSync(ctx); err != nil {
				t.Fatalf("%s warm-up send: %v", client, err)
			}
			warm++
		}
		m := runProducer(ctx, &o, s, n, "Send", true)
		if got, failed := m.total.ok.Load(), m.total.failed.Load(); got != n || failed != 0 {
			t.Fatalf("%s async=%v batch=%d: sent %d failed %d, want %d", client, async, batch, got, failed, n)
		}
	}
	send("raw", false, 1, 100)
	send("raw", true, 1, 100)
	send("raw", false, 4, 100)
	send("go", false, 1, 40)
	send("go", true, 1, 40)
	total := 380 + warm
	for _, client := range []string{"raw", "go"} {
		o := *base
		o.mode, o.client, o.group = "consumer", client, "bench_test_"+client
		m := newMeter("Consume")
		var err error
		if client == "raw" {
			err = runRawConsumer(ctx, &o, m)
		} else {
			err = runGoConsumer(ctx, &o, m)
		}
		if err != nil {
			t.Fatalf("%s consumer: %v", client, err)
		}
		if got := m.total.ok.Load(); got < total || (client == "raw" && got != total) {
			t.Fatalf("%s consumer received %d, want %d", client, got, total)
		}
	}
}

// TestBenchTopicsEmbedded runs -topics end to end: the topics are created
// once (a second run finds them), every queue holds the primed message, the
// measured sends all succeed and the broker's descriptors are read.
func TestBenchTopicsEmbedded(t *testing.T) {
	o := &options{
		topic: "BenchTopics", size: 64, queues: 2, topics: 3, conns: 2, inflight: 2, interval: time.Hour,
		duration: 300 * time.Millisecond, embedded: true, flushDisk: "ASYNC_FLUSH", storeDir: t.TempDir(),
		sendTimeout: 5 * time.Second,
	}
	e, err := startEmbedded(o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.stop()
	o.namesrv = e.namesrvAddr
	ctx := context.Background()
	for run, wantCreated := range []int{3, 0} {
		res, err := runTopics(ctx, o)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if res.created != wantCreated || res.sent == 0 || res.failed != 0 || res.after.fds <= 0 {
			t.Fatalf("run %d: created %d (want %d), sent %d, failed %d, fds %d", run, res.created, wantCreated, res.sent, res.failed, res.after.fds)
		}
		// The name server learns of created topics with the next
		// registration; wait for it so the second run finds them.
		waitTopicsRouted(t, o)
	}
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	defer func() { _ = c.Shutdown(ctx) }()
	for i := range o.topics {
		topic := "BenchTopics_0000" + strconv.Itoa(i)
		for q := range o.queues {
			resp, err := invoke(ctx, c, e.b.BrokerAddr(), codec.NewRequest(code.GetMaxOffset,
				map[string]string{"topic": topic, "queueId": strconv.Itoa(q)}, nil))
			if err != nil || resp.Ext("offset") == "0" || resp.Ext("offset") == "" {
				t.Fatalf("%s/%d: max offset %q (%v), want ≥ 1", topic, q, resp.Ext("offset"), err)
			}
		}
	}
}

func waitTopicsRouted(t *testing.T, o *options) {
	t.Helper()
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	defer func() { _ = c.Shutdown(context.Background()) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		route, err := getRoute(context.Background(), c, o.namesrv, "BenchTopics_00002")
		if err == nil && route != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("topic not routed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
