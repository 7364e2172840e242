package main

import (
	"context"
	"testing"
	"time"
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
	send := func(client string, async bool, batch int, n int64) {
		o := *base
		o.client, o.async, o.batch = client, async, batch
		s, err := newSender(ctx, &o)
		if err != nil {
			t.Fatalf("%s sender: %v", client, err)
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
	const total = 380
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
