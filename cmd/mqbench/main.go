// Command mqbench is a load generator modelled on Apache RocketMQ's
// example/benchmark Producer and Consumer: N sending threads (sync or async,
// single or batch sends, optional tags and keys) print send TPS, average,
// p99 and max RT and failures every interval; consumer mode prints receive
// TPS and end-to-end latency (born timestamp → receipt). Runs stop by
// themselves after -duration or -q messages.
//
// Clients: -client go uses the official rocketmq-client-go/v2 producer and
// push consumer; -client raw uses this repository's remoting client
// (SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE / PULL_MESSAGE by hand), which puts
// far less load on the client side.
//
// -topics N measures a broker holding N topics (× -queues queues): raw
// async sends round-robin over every queue from -conns connections with
// -inflight outstanding on each, then prints TPS, p99, the broker's CPU per
// message including its dispatch catch-up, its open descriptors and RSS.
//
// -embedded starts an in-process name server and broker on 127.0.0.1 with a
// temporary store, so it runs anywhere; the RSS printed then is that of this
// process (broker and clients). -pid reports another process's RSS instead
// (e.g. a separately started mqbroker).
//
//	mqbench -embedded -mode producer -w 64 -s 1024 -duration 30s
//	mqbench -n 127.0.0.1:9876 -mode consumer -client raw -from first
//	mqbench -n 127.0.0.1:9876 -pid $(pgrep -n mqbroker) -topics 1000 -queues 8 -conns 16 -inflight 16 -s 1024 -duration 20s
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"
)

// options are the command-line settings (Apache benchmark letters where
// one exists).
type options struct {
	namesrv      string
	topic        string
	group        string
	mode         string
	client       string
	threads      int
	size         int
	keys         bool
	tagCount     int
	quantity     int64
	async        bool
	inflight     int
	batch        int
	queues       int
	interval     time.Duration
	duration     time.Duration
	from         string
	embedded     bool
	flushDisk    string
	storeDir     string
	pid          int
	cpuProfile   string
	sendTimeout  time.Duration
	prefillCount int64
	warmup       time.Duration
	topics       int
	conns        int
	connections  int
	broker       string
	listen       string
	ser          string
	results      string
	points       string
}

func parseFlags() *options {
	o := &options{}
	flag.StringVar(&o.namesrv, "n", os.Getenv("NAMESRV_ADDR"), "name server address (loopback only; ignored with -embedded)")
	flag.StringVar(&o.topic, "t", "BenchmarkTest", "topic")
	flag.StringVar(&o.group, "g", "benchmark_consumer", "consumer group (consumer mode)")
	flag.StringVar(&o.mode, "mode", "producer", "producer, consumer or both; lean modes (see leanmode.go): send, pull, echo, echo-server")
	flag.StringVar(&o.client, "client", "raw", "go (rocketmq-client-go/v2) or raw (this repo's remoting client)")
	flag.IntVar(&o.threads, "w", 64, "sending threads (consumer: pulling goroutines for -client raw)")
	flag.IntVar(&o.size, "s", 128, "message body size in bytes")
	flag.BoolVar(&o.keys, "k", false, "set a message key")
	flag.IntVar(&o.tagCount, "l", 0, "tag count (0: no tag)")
	flag.Int64Var(&o.quantity, "q", 0, "stop after this many messages (0: only -duration)")
	flag.BoolVar(&o.async, "y", false, "async sends")
	flag.IntVar(&o.inflight, "inflight", 32, "max in-flight async sends per thread")
	flag.IntVar(&o.batch, "b", 1, "messages per send (>1: batch send)")
	flag.IntVar(&o.queues, "queues", 8, "queues when mqbench creates the topic")
	flag.DurationVar(&o.interval, "i", time.Second, "report interval")
	flag.DurationVar(&o.duration, "duration", 30*time.Second, "run time (capped at 10m)")
	flag.StringVar(&o.from, "from", "first", "consumer start: first or last offset")
	flag.BoolVar(&o.embedded, "embedded", false, "start an in-process name server and broker")
	flag.StringVar(&o.flushDisk, "flush", "ASYNC_FLUSH", "embedded broker flushDiskType")
	flag.StringVar(&o.storeDir, "store", "", "embedded broker store directory (default: a temporary one, removed at exit)")
	flag.IntVar(&o.pid, "pid", 0, "report this process's RSS (default: own process)")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile here")
	flag.DurationVar(&o.sendTimeout, "timeout", 3*time.Second, "per-request timeout")
	flag.Int64Var(&o.prefillCount, "prefill", 0, "consumer mode: first send this many messages with the raw client (backlog)")
	flag.DurationVar(&o.warmup, "warmup", 0, "producer: send unmeasured for this long first (file allocation, JIT-like warm-up)")
	flag.IntVar(&o.topics, "topics", 0, "many-topics mode: this many topics of -queues queues, raw async sends over -conns connections × -inflight (see topics.go)")
	flag.IntVar(&o.conns, "conns", 16, "-topics mode: connections to the broker")
	flag.IntVar(&o.connections, "c", 16, "lean modes (send, pull, echo): connections")
	flag.StringVar(&o.broker, "broker", "", "lean modes: server address (default: the name server's first master; echo: an in-process echo server)")
	flag.StringVar(&o.listen, "listen", "127.0.0.1:0", "echo-server mode: listen address")
	flag.StringVar(&o.ser, "ser", "JSON", "lean send: header serialize type, JSON or ROCKETMQ")
	flag.StringVar(&o.results, "results", "", "versus-table mode: the results directory of versus.sh")
	flag.StringVar(&o.points, "points", "1x1 16x1 4x16 16x16 64x16", "versus-table mode: the points, in order")
	flag.Parse()
	topicSet := false
	flag.Visit(func(f *flag.Flag) { topicSet = topicSet || f.Name == "t" })
	if leanModes[o.mode] && !topicSet {
		o.topic = leanTopic // BenchmarkTest is a system topic to a 4.9.8 broker: not creatable
	}
	o.duration = min(o.duration, 10*time.Minute)
	return o
}

func main() {
	o := parseFlags()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "mqbench:", err)
		os.Exit(1)
	}
}

func run(o *options) error {
	if o.mode == "versus-table" {
		writeVersusTable(os.Stdout, o.results, strings.Fields(o.points))
		return nil
	}
	if o.embedded {
		e, err := startEmbedded(o)
		if err != nil {
			return err
		}
		defer e.stop()
		o.namesrv = e.namesrvAddr
	}
	lean := leanModes[o.mode]
	if o.namesrv == "" && !lean {
		return fmt.Errorf("no name server: set -n, NAMESRV_ADDR or -embedded")
	}
	if o.namesrv != "" && !loopback(o.namesrv) {
		return fmt.Errorf("name server %s is not a loopback address", o.namesrv)
	}
	if o.pid == 0 {
		o.pid = os.Getpid()
	}
	if !lean {
		fmt.Printf("topic: %s mode: %s client: %s threads: %d messageSize: %d batch: %d async: %v keyEnable: %v tagCount: %d namesrv: %s\n",
			o.topic, o.mode, o.client, o.threads, o.size, o.batch, o.async, o.keys, o.tagCount, o.namesrv)
	}
	if o.cpuProfile != "" {
		if f, err := os.Create(o.cpuProfile); err == nil {
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	if lean {
		return runLean(ctx, o, os.Stdout)
	}
	return runMode(ctx, o)
}

// loopback accepts only 127.0.0.0/8, ::1 and localhost name servers.
func loopback(list string) bool {
	for _, a := range strings.Split(list, ";") {
		if !strings.HasPrefix(a, "127.") && !strings.HasPrefix(a, "localhost:") && !strings.HasPrefix(a, "[::1]:") {
			return false
		}
	}
	return true
}
