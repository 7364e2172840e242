package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/procstat"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// The -topics mode measures how a broker copes with many topics: N topics
// of -queues queues each on the first master, loaded with raw async sends
// over -conns connections with -inflight sends outstanding on each,
// round-robin over every queue. It prints send TPS and latency, and for the
// broker process (-pid, or this process when embedded) the CPU time per
// message including the time the broker needs to dispatch the backlog to
// its consume queues afterwards, its open descriptors and its RSS.
//
// Phases: create the missing topics (UPDATE_AND_CREATE_TOPIC, -conns in
// parallel), prime (one message to every queue, so every consume-queue file
// exists), then the measured run of -duration and the dispatch catch-up.

// topicSetupTimeout bounds topic creation and priming.
const topicSetupTimeout = 10 * time.Minute

// topicsRun is the state shared by the -topics phases.
type topicsRun struct {
	o      *options
	admin  *remoting.Client
	broker string   // the master every topic lives on
	names  []string // topic names
	tpl    *msgTemplate
	seq    atomic.Uint64 // next queue, round-robin over names × queues
	uniq   atomic.Uint64
	pfx    string
}

// topicsResult is what a -topics run measured.
type topicsResult struct {
	created      int   // topics created (the others existed)
	sent, failed int64 // measured sends
	after        procSample
}

func runTopics(ctx context.Context, o *options) (*topicsResult, error) {
	if o.pid == 0 {
		o.pid = os.Getpid()
	}
	r := &topicsRun{o: o, admin: remoting.NewClient(remoting.NewNettyClientConfig(), nil), tpl: newTemplate(o),
		pfx: fmt.Sprintf("7F000001%04X%08X", os.Getpid()&0xFFFF, uint32(time.Now().Unix()))}
	defer func() { _ = r.admin.Shutdown(context.Background()) }()
	for i := range o.topics {
		r.names = append(r.names, fmt.Sprintf("%s_%05d", o.topic, i))
	}
	var err error
	if r.broker, err = firstMaster(ctx, r.admin, o.namesrv); err != nil {
		return nil, err
	}
	if !loopback(r.broker) {
		return nil, fmt.Errorf("broker %s is not a loopback address", r.broker)
	}
	fmt.Printf("topics: %d × %d queues on %s, %d connections × %d in flight, %d-byte bodies; broker pid %d%s\n",
		o.topics, o.queues, r.broker, o.conns, o.inflight, o.size, o.pid, embeddedNote(o))
	setup, cancel := context.WithTimeout(ctx, topicSetupTimeout)
	defer cancel()
	start, before := time.Now(), sampleProc(o.pid)
	created, err := r.createTopics(setup)
	if err != nil {
		return nil, err
	}
	fmt.Printf("[Topics] created %d (of %d) in %.1fs, broker CPU %v; %s\n",
		created, o.topics, time.Since(start).Seconds(), sampleProc(o.pid).cpu-before.cpu, sampleProc(o.pid))
	if err := r.prime(setup); err != nil {
		return nil, err
	}
	res, err := r.measure(ctx)
	if res != nil {
		res.created = created
	}
	return res, err
}

func embeddedNote(o *options) string {
	if o.embedded {
		return " (embedded: CPU and RSS include the clients)"
	}
	return ""
}

// firstMaster returns the address of a master broker (brokerId 0),
// choosing the smallest broker name for a stable pick.
func firstMaster(ctx context.Context, c *remoting.Client, ns string) (string, error) {
	resp, err := invoke(ctx, c, ns, codec.NewRequest(code.GetBrokerClusterInfo, nil, nil))
	if err != nil {
		return "", err
	}
	ci, err := body.DecodeClusterInfo(resp.Body)
	if err != nil {
		return "", fmt.Errorf("cluster info: %w", err)
	}
	name, addr := "", ""
	for n, bd := range ci.BrokerAddrTable {
		if a := bd.BrokerAddrs[0]; a != "" && (name == "" || n < name) {
			name, addr = n, a
		}
	}
	if addr == "" {
		return "", fmt.Errorf("no master broker registered with %s", ns)
	}
	return addr, nil
}

// createTopics creates the topics the name server does not list yet.
func (r *topicsRun) createTopics(ctx context.Context) (int, error) {
	resp, err := invoke(ctx, r.admin, r.o.namesrv, codec.NewRequest(code.GetAllTopicListFromNameserver, nil, nil))
	if err != nil {
		return 0, err
	}
	known := map[string]bool{}
	if resp.Code == code.Success {
		tl, err := body.DecodeTopicList(resp.Body)
		if err != nil {
			return 0, fmt.Errorf("topic list: %w", err)
		}
		for _, t := range tl.TopicList {
			known[t] = true
		}
	}
	var todo []string
	for _, n := range r.names {
		if !known[n] {
			todo = append(todo, n)
		}
	}
	err = r.parallel(ctx, len(todo), func(c *remoting.Client, i int) error {
		resp, err := invoke(ctx, c, r.broker, createTopicRequest(todo[i], r.o.queues))
		if err == nil && resp.Code != code.Success {
			err = fmt.Errorf("create topic %s: code %d %s", todo[i], resp.Code, resp.Remark)
		}
		return err
	})
	return len(todo), err
}

// parallel runs f(i) for i < n over o.conns connections, one call at a
// time per connection, and returns the first error.
func (r *topicsRun) parallel(ctx context.Context, n int, f func(c *remoting.Client, i int) error) error {
	var next atomic.Int64
	var first error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range max(r.o.conns, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
			defer func() { _ = c.Shutdown(context.Background()) }()
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				if err := f(c, i); err != nil {
					mu.Lock()
					first = cmpErr(first, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// prime sends one message to every queue, then waits for the dispatch.
func (r *topicsRun) prime(ctx context.Context) error {
	total := len(r.names) * r.o.queues
	start, before := time.Now(), sampleProc(r.o.pid)
	err := r.parallel(ctx, total, func(c *remoting.Client, _ int) error {
		resp, err := invoke(ctx, c, r.broker, r.request())
		return sendError(resp, err)
	})
	if err != nil {
		return fmt.Errorf("prime: %w (broker %s)", err, sampleProc(r.o.pid))
	}
	if err := r.waitDispatched(ctx); err != nil {
		return fmt.Errorf("prime: %w (broker %s)", err, sampleProc(r.o.pid))
	}
	if err := r.checkLastQueues(ctx); err != nil {
		return fmt.Errorf("prime: %w (broker %s)", err, sampleProc(r.o.pid))
	}
	fmt.Printf("[Prime] %d queues written once in %.1fs, broker CPU %v; %s\n",
		total, time.Since(start).Seconds(), sampleProc(r.o.pid).cpu-before.cpu, sampleProc(r.o.pid))
	return nil
}

// checkLastQueues asks for the max offset of the last topic's queues,
// written last by prime: 0 means the broker acknowledged the message but
// its consume queue was never written (e.g. the store gave up on EMFILE),
// which dispatchBehindBytes alone does not show.
func (r *topicsRun) checkLastQueues(ctx context.Context) error {
	topic := r.names[len(r.names)-1]
	for q := range r.o.queues {
		resp, err := invoke(ctx, r.admin, r.broker, codec.NewRequest(code.GetMaxOffset,
			map[string]string{"topic": topic, "queueId": strconv.Itoa(q)}, nil))
		if err != nil {
			return err
		}
		if off := resp.Ext("offset"); off == "" || off == "0" {
			return fmt.Errorf("%s/%d: message acknowledged but not in its consume queue (max offset %q)", topic, q, off)
		}
	}
	return nil
}

// measure runs the timed load and the dispatch catch-up and prints the
// summary line.
func (r *topicsRun) measure(ctx context.Context) (*topicsResult, error) {
	if r.o.warmup > 0 {
		fmt.Printf("warming up for %v\n", r.o.warmup)
		r.load(ctx, r.o.warmup, newMeter("Warmup"), true)
		if err := r.waitDispatched(ctx); err != nil {
			return nil, err
		}
	}
	m := newMeter("Send")
	before := sampleProc(r.o.pid)
	r.load(ctx, r.o.duration, m, false)
	sent := time.Now()
	if err := r.waitDispatched(ctx); err != nil {
		return nil, fmt.Errorf("after the run: %w (broker %s)", err, sampleProc(r.o.pid))
	}
	catchUp := time.Since(sent)
	after := sampleProc(r.o.pid)
	m.summary(os.Stdout, after.rss)
	n := m.total.ok.Load()
	perMsg := "n/a"
	if n > 0 && before.cpu >= 0 && after.cpu >= 0 {
		perMsg = fmt.Sprintf("%.1fµs", float64((after.cpu-before.cpu).Nanoseconds())/float64(n)/1e3)
	}
	s := m.total.snapshot()
	el := m.last.Sub(m.start).Seconds()
	fmt.Printf("[Topics %d] TPS: %.0f P99 RT(ms): %.3f CPU/msg: %s (dispatch catch-up %.2fs) FDs: %d RSS: %s\n",
		r.o.topics, float64(s.n)/el, ms(s.p99), perMsg, catchUp.Seconds(), after.fds, after.rss)
	return &topicsResult{sent: n, failed: m.total.failed.Load(), after: after}, nil
}

// load sends from o.conns connections for d, recording into m.
func (r *topicsRun) load(ctx context.Context, d time.Duration, m *meter, quiet bool) {
	stopReport := startReporter(m, r.o, quiet)
	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	take := func() bool { return runCtx.Err() == nil }
	var wg sync.WaitGroup
	for range max(r.o.conns, 1) {
		s := &topicSender{r: r, c: remoting.NewClient(remoting.NewNettyClientConfig(), nil)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.close()
			asyncLoop(context.WithoutCancel(runCtx), r.o, s, m, take)
		}()
	}
	wg.Wait()
	stopReport()
}

// dispatchTimeout bounds each wait for the broker's dispatch to catch up.
const dispatchTimeout = 2 * time.Minute

// waitDispatched polls the broker until its dispatch (CommitLog → consume
// queues) has caught up with the CommitLog, for at most dispatchTimeout.
func (r *topicsRun) waitDispatched(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, dispatchTimeout)
	defer cancel()
	for {
		resp, err := invoke(ctx, r.admin, r.broker, codec.NewRequest(code.GetBrokerRuntimeInfo, nil, nil))
		if err != nil {
			return fmt.Errorf("runtime info: %w", err)
		}
		kv, err := body.DecodeKVTable(resp.Body)
		if err != nil {
			return fmt.Errorf("runtime info: %w", err)
		}
		behind, ok := kv.Table["dispatchBehindBytes"]
		if !ok || behind == "0" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dispatch still %s bytes behind: %w", behind, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// request is a SEND_MESSAGE_V2 to the next queue in round-robin order.
func (r *topicsRun) request() *codec.RemotingCommand {
	q := r.seq.Add(1) - 1
	queues := uint64(r.o.queues)
	topic := r.names[(q/queues)%uint64(len(r.names))]
	props := message.PropertyUniqClientMessageIDKeyidx + "\x01" + r.pfx + fmt.Sprintf("%012X", r.uniq.Add(1)) +
		"\x02" + message.PropertyWaitStoreMsgOK + "\x01true"
	return codec.NewRequest(code.SendMessageV2, map[string]string{
		"a": "benchmark_producer", "b": topic, "c": "TBW102", "d": strconv.Itoa(r.o.queues), "e": strconv.FormatUint(q%queues, 10),
		"f": "0", "g": strconv.FormatInt(time.Now().UnixMilli(), 10), "h": "0", "i": props, "j": "0", "k": "false", "m": "false",
	}, r.tpl.body)
}

// topicSender is one connection of the measured run.
type topicSender struct {
	r *topicsRun
	c *remoting.Client
}

func (s *topicSender) sendSync(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, s.r.o.sendTimeout)
	defer cancel()
	resp, err := s.c.InvokeSync(ctx, s.r.broker, s.r.request())
	return 1, sendError(resp, err)
}

func (s *topicSender) sendAsync(ctx context.Context, done func(int, error)) error {
	ctx, cancel := context.WithTimeout(ctx, s.r.o.sendTimeout)
	err := s.c.InvokeAsync(ctx, s.r.broker, s.r.request(), func(resp *codec.RemotingCommand, err error) {
		cancel()
		done(1, sendError(resp, err))
	})
	if err != nil {
		cancel()
	}
	return err
}

func (s *topicSender) close() { _ = s.c.Shutdown(context.Background()) }

// procSample is one reading of a process's CPU time, open descriptors and
// memory from /proc.
type procSample struct {
	cpu time.Duration // user+system; -1 when unknown
	fds int           // entries in /proc/<pid>/fd; -1 when unknown
	rss string
}

func (p procSample) String() string {
	return fmt.Sprintf("FDs: %d RSS: %s", p.fds, p.rss)
}

func sampleProc(pid int) procSample {
	s := procSample{cpu: procstat.CPUTime(strconv.Itoa(pid)), fds: -1, rss: vmRSS(pid)}
	if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		s.fds = len(ents)
	}
	return s
}
