package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// The lean modes measure one server the way docs/benchmarks.md's table
// against Apache RocketMQ does (cmd/mqbench/versus.sh drives them):
//
//	-mode send         -c × -inflight pipelined 1 KiB SEND_MESSAGE_V2 to -broker
//	                   (or the name server's first master): -warmup, then
//	                   -duration measured; with -q, send exactly that many.
//	-mode pull         drain the topic's backlog over -c connections.
//	-mode echo         the same load as send against a framed echo server
//	                   (-broker, or one started in this process).
//	-mode echo-server  serve echo on -listen until interrupted.
//	-mode wake         long-poll wake-up latency (wake.go), -q rounds.
//
// Each prints a human line and a "RESULT key=value ..." line for scripts,
// with the server's CPU per message and RSS when -pid names it.

// leanTopic is the lean modes' default topic.
const leanTopic = "BenchLean"

// leanModes lists the modes runLean serves.
var leanModes = map[string]bool{"send": true, "pull": true, "echo": true, "echo-server": true, "wake": true}

func runLean(ctx context.Context, o *options, out io.Writer) error {
	switch o.mode {
	case "echo-server":
		s, err := startEchoServer(o.listen)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "echo server listening on %s\n", s.addr())
		<-ctx.Done()
		s.close()
		return nil
	case "echo":
		if o.broker == "" {
			s, err := startEchoServer("127.0.0.1:0")
			if err != nil {
				return err
			}
			defer s.close()
			o.broker = s.addr()
		}
	}
	if err := resolveBroker(ctx, o); err != nil {
		return err
	}
	switch o.mode {
	case "pull":
		return runPullMode(ctx, o, out)
	case "wake":
		return runWakeMode(ctx, o, out)
	}
	res, usage, err := runSendMode(ctx, o)
	if err != nil {
		return err
	}
	printSendResult(out, o, res, usage)
	return nil
}

// resolveBroker sets o.broker from the name server when not given.
func resolveBroker(ctx context.Context, o *options) error {
	if o.broker == "" {
		if o.namesrv == "" {
			return fmt.Errorf("mode %s needs -broker or a name server (-n, NAMESRV_ADDR, -embedded)", o.mode)
		}
		c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
		defer func() { _ = c.Shutdown(context.Background()) }()
		var err error
		if o.broker, err = firstMaster(ctx, c, o.namesrv); err != nil {
			return err
		}
	}
	if !loopback(o.broker) {
		return fmt.Errorf("broker %s is not a loopback address", o.broker)
	}
	return nil
}

// ensureTopic creates o.topic with o.queues queues on o.broker.
func ensureTopic(ctx context.Context, o *options) error {
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	defer func() { _ = c.Shutdown(context.Background()) }()
	resp, err := invoke(ctx, c, o.broker, createTopicRequest(o.topic, o.queues))
	if err == nil && resp.Code != code.Success {
		err = fmt.Errorf("create topic %s on %s: code %d %s", o.topic, o.broker, resp.Code, resp.Remark)
	}
	return err
}

func serializeType(name string) (codec.SerializeType, error) {
	switch strings.ToUpper(name) {
	case "JSON":
		return codec.JSON, nil
	case "ROCKETMQ":
		return codec.RocketMQ, nil
	}
	return 0, fmt.Errorf("unknown -ser %q (JSON or ROCKETMQ)", name)
}

// runSendMode runs the lean generator against o.broker: warm-up, then
// either the measured -duration or, with -q, until -q sends completed.
func runSendMode(ctx context.Context, o *options) (*leanResult, procUsage, error) {
	echo := o.mode == "echo"
	if !echo {
		if err := ensureTopic(ctx, o); err != nil {
			return nil, procUsage{}, err
		}
	}
	ser, err := serializeType(o.ser)
	if err != nil {
		return nil, procUsage{}, err
	}
	tpl, err := newSendTemplate(o.topic, newTemplate(o).body, o.queues, ser)
	if err != nil {
		return nil, procUsage{}, err
	}
	l := &leanLoad{addr: o.broker, tpl: tpl, inflight: max(o.inflight, 1), queues: max(o.queues, 1), echo: echo,
		quantity: o.quantity, base: time.Now(), stop: make(chan struct{})}
	if err := dialLean(ctx, l, max(o.connections, 1)); err != nil {
		return nil, procUsage{}, err
	}
	if o.quantity > 0 { // count from the first response
		pm, self := startProcMeter(o.pid), startProcMeter(os.Getpid())
		start := time.Now()
		l.measuring.Store(true)
		l.run()
		waitSent(ctx, l)
		l.measuring.Store(false)
		res := &leanResult{ok: l.ok.Load(), failed: l.failed.Load(), elapsed: time.Since(start)}
		usage := pm.stop()
		res.genCPU = self.stop().cpu
		l.finish(res, 10*time.Second)
		return res, usage, l.err
	}
	l.run()
	sleepCtx(ctx, o.warmup)
	var pm, self *procMeter
	res := l.measure(ctx, o.duration, func() { pm, self = startProcMeter(o.pid), startProcMeter(os.Getpid()) })
	usage := pm.stop()
	res.genCPU = self.stop().cpu
	l.finish(res, 10*time.Second)
	if l.err != nil && res.ok == 0 {
		return nil, usage, l.err
	}
	return res, usage, nil
}

// waitSent returns once l has issued its quantity and every response is in.
func waitSent(ctx context.Context, l *leanLoad) {
	for ctx.Err() == nil && l.err == nil {
		if l.issued.Load() >= l.quantity && l.ok.Load()+l.failed.Load() >= l.quantity {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func printSendResult(w io.Writer, o *options, r *leanResult, u procUsage) {
	kind := "send"
	if o.mode == "echo" {
		kind = "echo"
	}
	fmt.Fprintf(w, "[Lean %s] %d×%d %s %d-byte: %d ok %d failed in %.1fs TPS: %.0f p50 %.3f ms p99 %.3f ms max %.3f ms; server CPU/msg %.1f µs RSS %d kB (anon %d, file %d)\n",
		kind, o.connections, o.inflight, strings.ToUpper(o.ser), o.size, r.ok, r.failed, r.elapsed.Seconds(), r.tps(),
		ms(r.quantile(0.5)), ms(r.quantile(0.99)), ms(r.quantile(1)), u.perMsg(r.ok), u.rssKB, u.anonKB, u.fileKB)
	fmt.Fprintf(w, "RESULT mode=%s conns=%d inflight=%d ok=%d failed=%d secs=%.3f tps=%.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f cpu_us_per_msg=%.2f rss_kb=%d anon_kb=%d file_kb=%d gen_cpu_us_per_msg=%.2f\n",
		kind, o.connections, o.inflight, r.ok, r.failed, r.elapsed.Seconds(), r.tps(), ms(r.quantile(0.5)), ms(r.quantile(0.99)),
		ms(r.quantile(1)), u.perMsg(r.ok), u.rssKB, u.anonKB, u.fileKB, procUsage{cpu: r.genCPU}.perMsg(r.ok))
}

// runPullMode drains the backlog (-q: wait until that many are
// dispatched first) and prints the drain rate.
func runPullMode(ctx context.Context, o *options, out io.Writer) error {
	ends, err := queueEnds(ctx, o.broker, o.topic, max(o.queues, 1), o.quantity, 60*time.Second)
	if err != nil {
		return err
	}
	var backlog int64
	for _, e := range ends {
		backlog += e
	}
	pm := startProcMeter(o.pid)
	start := time.Now()
	n, err := drain(ctx, o.broker, o, ends, max(o.connections, 1), o.duration)
	r := pullResult{msgs: n, elapsed: time.Since(start), usage: pm.stop()}
	if err != nil {
		return fmt.Errorf("after %d of %d messages: %w", n, backlog, err)
	}
	rate := float64(r.msgs) / r.elapsed.Seconds()
	fmt.Fprintf(out, "[Lean pull] %d connections drained %d of %d messages in %.2fs: %.0f msg/s; server CPU/msg %.2f µs RSS %d kB (anon %d, file %d)\n",
		o.connections, r.msgs, backlog, r.elapsed.Seconds(), rate, r.usage.perMsg(r.msgs), r.usage.rssKB, r.usage.anonKB, r.usage.fileKB)
	fmt.Fprintf(out, "RESULT mode=pull conns=%d backlog=%d ok=%d secs=%.3f tps=%.0f cpu_us_per_msg=%.2f rss_kb=%d anon_kb=%d file_kb=%d\n",
		o.connections, backlog, r.msgs, r.elapsed.Seconds(), rate, r.usage.perMsg(r.msgs), r.usage.rssKB, r.usage.anonKB, r.usage.fileKB)
	return nil
}
