package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestBenchSendTemplateFrames: each patched request decodes as the
// SEND_MESSAGE_V2 a client sends, with its own opaque, queue, born time
// and UNIQ_KEY, in both header encodings.
func TestBenchSendTemplateFrames(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 1024)
	for _, ser := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
		tpl, err := newSendTemplate("BenchT", body, 12, ser)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for i, c := range []struct {
			opaque, queue int
			born          int64
		}{{0, 0, 1764000000000}, {7, 11, 1764000000123}, {opaqueSpan - 1, 3, 9999999999999}} {
			frame := tpl.appendSend([]byte("junk"), c.opaque, c.queue, c.born, uint64(i)+0xABC)[4:]
			cmd, err := codec.Decode(frame)
			if err != nil {
				t.Fatalf("%v #%d: %v", ser, i, err)
			}
			if cmd.Code != code.SendMessageV2 || cmd.SerializeType != ser || cmd.Opaque != int32(opaqueBase+c.opaque) ||
				!bytes.Equal(cmd.Body, body) {
				t.Fatalf("%v #%d: code %d ser %v opaque %d body %d bytes", ser, i, cmd.Code, cmd.SerializeType, cmd.Opaque, len(cmd.Body))
			}
			if q, _ := strconv.Atoi(cmd.Ext("e")); q != c.queue || cmd.Ext("b") != "BenchT" || cmd.Ext("g") != strconv.FormatInt(c.born, 10) {
				t.Fatalf("%v #%d: queueId %q topic %q born %q", ser, i, cmd.Ext("e"), cmd.Ext("b"), cmd.Ext("g"))
			}
			props := message.UnmarshalProperties(cmd.Ext("i"))
			uniq := props[message.PropertyUniqClientMessageIDKeyidx]
			if len(uniq) != 32 || !strings.HasSuffix(uniq, strings.ToUpper(strconv.FormatUint(uint64(i)+0xABC, 16))) || seen[uniq] {
				t.Fatalf("%v #%d: UNIQ_KEY %q", ser, i, uniq)
			}
			seen[uniq] = true
			code, opaque, err := responseHead(frame[4:])
			if err != nil || code != int32(cmd.Code) || opaque != cmd.Opaque {
				t.Fatalf("%v #%d: responseHead = %d %d %v", ser, i, code, opaque, err)
			}
		}
	}
}

// TestBenchResponseHead reads code and opaque of responses as the codec
// encodes them, ext fields and remark included.
func TestBenchResponseHead(t *testing.T) {
	for _, ser := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
		r := codec.NewResponse(code.SystemBusy, `"code":99,"opaque":98`)
		r.Opaque, r.SerializeType = 1_234_567_890, ser
		r.ExtFields = map[string]string{"msgId": "AB", "queueOffset": "12"}
		f, err := codec.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		c, o, err := responseHead(f[4:])
		if err != nil || c != code.SystemBusy || o != 1_234_567_890 {
			t.Fatalf("%v: %d %d %v", ser, c, o, err)
		}
	}
	if _, _, err := responseHead([]byte{0, 0, 0, 50, '{'}); err == nil {
		t.Fatal("truncated header accepted")
	}
}

// TestBenchLeanSendAndPull sends an exact quantity with the lean
// generator to an embedded broker, then drains it with -mode pull: every
// message is stored once, spread over every queue, and pulled once.
func TestBenchLeanSendAndPull(t *testing.T) {
	o := &options{
		topic: "BenchLeanT", group: "bench_lean_cg", size: 256, queues: 4, connections: 3, inflight: 5,
		quantity: 997, duration: 60 * time.Second, embedded: true, flushDisk: "ASYNC_FLUSH", storeDir: t.TempDir(),
		ser: "JSON", sendTimeout: 5 * time.Second, mode: "send", pid: os.Getpid(),
	}
	e, err := startEmbedded(o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.stop()
	o.namesrv = e.namesrvAddr
	ctx := t.Context()
	if err := resolveBroker(ctx, o); err != nil {
		t.Fatal(err)
	}
	res, usage, err := runSendMode(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.ok != o.quantity || res.failed != 0 || int64(len(res.lat)) != o.quantity {
		t.Fatalf("sent %d ok %d failed %d latencies, want %d", res.ok, res.failed, len(res.lat), o.quantity)
	}
	if p50, p99 := res.quantile(0.5), res.quantile(0.99); p50 <= 0 || p99 < p50 || res.quantile(1) < p99 {
		t.Fatalf("quantiles p50 %v p99 %v max %v", p50, p99, res.quantile(1))
	}
	if usage.cpu <= 0 || usage.rssKB <= 0 || usage.anonKB <= 0 {
		t.Fatalf("process usage %+v", usage)
	}
	ends, err := queueEnds(ctx, o.broker, o.topic, o.queues, o.quantity, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for q, end := range ends {
		if end < o.quantity/int64(o.queues)-int64(o.connections) {
			t.Fatalf("queue %d holds %d of %d: not round-robin (%v)", q, end, o.quantity, ends)
		}
		sum += end
	}
	if sum != o.quantity {
		t.Fatalf("stored %d messages (%v), sent %d", sum, ends, o.quantity)
	}
	assertDistinctUniqKeys(t, o, ends)

	var out bytes.Buffer
	p := *o
	p.mode, p.connections = "pull", 2
	if err := runPullMode(ctx, &p, &out); err != nil {
		t.Fatal(err)
	}
	r := parseResult(out.String()[strings.Index(out.String(), "RESULT"):])
	if r["ok"] != "997" || r["backlog"] != "997" || r["mode"] != "pull" {
		t.Fatalf("pull result %v\n%s", r, out.String())
	}
}

// assertDistinctUniqKeys pulls every stored message and checks that each
// carries its own UNIQ_KEY and the generator's body.
func assertDistinctUniqKeys(t *testing.T, o *options, ends []int64) {
	t.Helper()
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	defer func() { _ = c.Shutdown(context.Background()) }()
	seen := map[string]bool{}
	for q, end := range ends {
		for off := int64(0); off < end; {
			resp, err := invoke(t.Context(), c, o.broker, codec.NewRequest(code.PullMessage, pullHeader(o, q, off), nil))
			if err != nil || resp.Code != code.Success {
				t.Fatalf("pull %d@%d: %v %+v", q, off, err, resp)
			}
			msgs, err := message.DecodeRecords(resp.Body, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range msgs {
				u := m.Properties[message.PropertyUniqClientMessageIDKeyidx]
				if seen[u] || len(m.Body) != o.size || int(m.QueueID) != q {
					t.Fatalf("message %q (seen %v) body %d bytes queue %d", u, seen[u], len(m.Body), m.QueueID)
				}
				seen[u] = true
			}
			off, _ = strconv.ParseInt(resp.Ext("nextBeginOffset"), 10, 64)
		}
	}
}

// TestBenchLeanEchoTimed runs the timed window against the in-process
// echo server: every response in the window is counted with its latency.
func TestBenchLeanEchoTimed(t *testing.T) {
	o := &options{mode: "echo", size: 1024, queues: 8, connections: 2, inflight: 4, ser: "ROCKETMQ",
		warmup: 50 * time.Millisecond, duration: 300 * time.Millisecond, pid: os.Getpid(), topic: leanTopic}
	var out bytes.Buffer
	if err := runLean(t.Context(), o, &out); err != nil {
		t.Fatal(err)
	}
	r := parseResult(out.String()[strings.Index(out.String(), "RESULT"):])
	n, _ := strconv.Atoi(r["ok"])
	if _, ok := r.num("gen_cpu_us_per_msg"); !ok || r["mode"] != "echo" || n < 10 || r["failed"] != "0" || r["tps"] == "0" {
		t.Fatalf("echo result %v\n%s", r, out.String())
	}
}

// TestBenchEchoFrames: the echo server returns whole frames unchanged,
// however the input is split.
func TestBenchEchoFrames(t *testing.T) {
	in := append(codecFrame(t, 3), codecFrame(t, 4)...)
	var out bytes.Buffer
	if err := echoFrames(bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), in) {
		t.Fatalf("echoed %d bytes, sent %d", out.Len(), len(in))
	}
	if err := echoFrames(bytes.NewReader([]byte{0xFF, 0, 0, 0}), &out); err == nil {
		t.Fatal("negative frame length accepted")
	}
}

func codecFrame(t *testing.T, opaque int32) []byte {
	c := codec.NewRequest(code.SendMessageV2, map[string]string{"b": "T"}, []byte("body"))
	c.Opaque = opaque
	f, err := codec.Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestBenchVersusTable renders versus.sh results as the table and
// marks the aims.
func TestBenchVersusTable(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"apache.1x1":   "RESULT mode=send conns=1 inflight=1 ok=64000 failed=0 secs=10 tps=6400 p50_ms=0.1 p99_ms=0.46 max_ms=2 cpu_us_per_msg=143 rss_kb=1048576 anon_kb=1000000 file_kb=48576",
		"ours.1x1":     "RESULT mode=send conns=1 inflight=1 ok=200000 failed=0 secs=10 tps=20000 p50_ms=0.1 p99_ms=0.19 max_ms=2 cpu_us_per_msg=30 rss_kb=102400 anon_kb=51200 file_kb=51200",
		"apache.16x16": "RESULT mode=send conns=16 inflight=16 ok=450000 failed=0 secs=10 tps=45000 p50_ms=1 p99_ms=29 max_ms=40 cpu_us_per_msg=37 rss_kb=1 anon_kb=1000000 file_kb=500000",
		"ours.16x16":   "RESULT mode=send conns=16 inflight=16 ok=869000 failed=0 secs=10 tps=86900 p50_ms=1 p99_ms=18.5 max_ms=40 cpu_us_per_msg=14.5 rss_kb=1 anon_kb=60000 file_kb=400000",
		"apache.pull":  "RESULT mode=pull conns=4 backlog=500000 ok=500000 secs=3 tps=131000 cpu_us_per_msg=7 rss_kb=1 anon_kb=1 file_kb=1",
		"ours.pull":    "RESULT mode=pull conns=4 backlog=500000 ok=500000 secs=1 tps=438000 cpu_us_per_msg=2.2 rss_kb=1 anon_kb=1 file_kb=1",
		"ours.wake":    "RESULT mode=wake ok=1000 p50_ms=0.5 p99_ms=1.5 max_ms=3",
		"apache.wake":  "RESULT mode=wake ok=1000 p50_ms=0.5 p99_ms=4.25 max_ms=9",
		"echo":         "RESULT mode=echo conns=16 inflight=16 ok=1 failed=0 secs=10 tps=200000 p50_ms=0.1 p99_ms=1 max_ms=2 cpu_us_per_msg=1.5 rss_kb=1 anon_kb=1 file_kb=1",
	}
	for name, line := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	writeVersusTable(&out, dir, []string{"1x1", "16x1", "16x16"})
	got := out.String()
	for _, want := range []string{
		"| load | Apache TPS / p99 | ours TPS / p99 | ratio | server CPU per message, Apache / ours |\n|---|---|---|---|---|\n",
		"| 1 × 1 | 6.4k / 0.46 ms | 20.0k / 0.19 ms | 3.12 | 143 / 30 µs |\n",
		"| 16 × 1 | – | – | – | – / – µs |\n",
		"| 16 × 16 | 45.0k / 29 ms | 86.9k / 18 ms | 1.93 | 37 / 14 µs |\n", // %.0f rounds half to even
		"| pull backlog | 131k/s | 438k/s | 3.34 | 7.0 / 2.2 µs |\n",
		"| echo server 16 × 16 | | 200k / 1.0 ms | | – / 1.5 µs |\n",
		"| 16 × 16 | 0 (977 / 488) | 0 (59 / 391) |\n",
		"- produce ≥ 3× Apache's TPS at every load: NOT MET (worst 1.93 at 16 × 16)\n",
		"- produce p99 ≤ ½ Apache's at every load: NOT MET (worst 0.64 at 16 × 16)\n",
		"- pull ≥ 3× Apache's drain rate: met (worst 3.34 at pull backlog)\n",
		"- produce at 16 × 16 ≥ 40 % of the echo server's request rate: met (worst 0.43 at 16 × 16)\n",
		"- SYNC_FLUSH and SYNC_MASTER ≥ 2× Apache's TPS at 16 × 16: not measured\n",
		"- long-poll wake-up p99 ≤ 2 ms (ours; send → held pull answered): met (worst 1.50 at long-poll wake-up); Apache 4.2 ms\n",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("table lacks %q:\n%s", want, got)
		}
	}
}

// TestBenchLeanWake times long-poll wake-ups on an embedded broker: each
// round's held pull returns the one message sent after it.
func TestBenchLeanWake(t *testing.T) {
	o := &options{topic: "BenchWakeT", group: "bench_wake_cg", size: 128, queues: 2, quantity: 20, mode: "wake",
		embedded: true, flushDisk: "ASYNC_FLUSH", storeDir: t.TempDir(), pid: os.Getpid()}
	e, err := startEmbedded(o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.stop()
	o.namesrv = e.namesrvAddr
	var out bytes.Buffer
	if err := runLean(t.Context(), o, &out); err != nil {
		t.Fatal(err)
	}
	r := parseResult(out.String()[strings.Index(out.String(), "RESULT"):])
	p99, _ := r.num("p99_ms")
	if r["mode"] != "wake" || r["ok"] != "20" || p99 <= 0 {
		t.Fatalf("wake result %v\n%s", r, out.String())
	}
	ends, err := queueEnds(t.Context(), o.broker, o.topic, 1, 0, 0)
	if err != nil || ends[0] != 20 {
		t.Fatalf("queue 0 holds %v (%v), want the 20 sent", ends, err)
	}
}
