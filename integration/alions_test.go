package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// alionsDir holds the Node driver and the pinned ali-ons dependency.
const alionsDir = "testdata/alions"

// alionsNodeModules returns a node_modules folder with the dependencies of
// testdata/alions/package-lock.json installed by `npm ci`. It is kept in the
// user cache under the hash of the lockfile, so the install happens once per
// machine and lockfile; a file lock serialises parallel tests and packages.
// Without node or npm the test is skipped, except in CI (CI=true), where
// they must be present.
func alionsNodeModules(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required in CI for the ali-ons test: %v", tool, err)
			}
			t.Skipf("ali-ons test needs node and npm: %v", err)
		}
	}
	h := sha256.New()
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(alionsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	name := filepath.Join("rmq-go-test", "alions-"+hex.EncodeToString(h.Sum(nil))[:16])
	cache, err := os.UserCacheDir()
	dir := filepath.Join(cache, name)
	if err != nil || os.MkdirAll(dir, 0o755) != nil {
		dir = filepath.Join(os.TempDir(), name) // no usable user cache (e.g. HOME unset)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	unlock := lockFile(t, dir+".lock")
	defer unlock()

	done := filepath.Join(dir, ".installed")
	if _, err := os.Stat(done); err == nil {
		return filepath.Join(dir, "node_modules")
	}
	// a partial install from an interrupted run is redone from scratch
	if err := os.RemoveAll(filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(alionsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "node_modules")
}

// lockFile takes an exclusive flock on path and returns its release.
func lockFile(t *testing.T, path string) func() {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// alionsEvent is one JSON line of testdata/alions/alions.js.
type alionsEvent struct {
	Event       string `json:"event"`
	I           int    `json:"i"`
	Status      string `json:"status"`
	MsgID       string `json:"msgId"`
	QueueID     int32  `json:"queueId"`
	QueueOffset int64  `json:"queueOffset"`
	Topic       string `json:"topic"`
	Body        string `json:"body"`
	Tags        string `json:"tags"`
	Keys        string `json:"keys"`
	// ReconsumeTimes counts earlier deliveries of a received message.
	ReconsumeTimes int `json:"reconsumeTimes"`
}

// lockedBuffer collects the node process's stderr for the failure message.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runAlions runs the Node driver to completion within ctx and returns its
// events; the process is killed when ctx ends or the test fails.
func runAlions(ctx context.Context, t *testing.T, nodeModules string, args ...string) []alionsEvent {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(alionsDir, "alions.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
	home := t.TempDir() // the client keeps nothing of the user's
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodeModules, "HOME="+home)
	cmd.WaitDelay = 5 * time.Second
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // no-op once it has exited
	var events []alionsEvent
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var e alionsEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Errorf("bad line from node %q: %v", sc.Text(), err)
			continue
		}
		events = append(events, e)
	}
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		cause := err
		if ctx.Err() != nil {
			cause = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		t.Fatalf("node %v: %v\nevents so far: %+v\nstderr:\n%s", args, cause, events, stderr.String())
	}
	if s := stderr.String(); s != "" {
		t.Logf("node stderr:\n%s", s)
	}
	return events
}

// aliONSEnv is a name server and a broker with one 4-queue topic (ali-ons
// has no TBW102 fallback), for runs of the Node driver.
type aliONSEnv struct {
	nodeModules string
	nsAddr      string
	b           *broker.Broker
	topic       string
}

// aliONSConfig is the driver's configuration (see alions.js).
type aliONSConfig struct {
	NameSrv       string `json:"nameSrv"`
	Topic         string `json:"topic"`
	ProducerGroup string `json:"producerGroup"`
	ConsumerGroup string `json:"consumerGroup"`
	First         int    `json:"first"`
	N             int    `json:"n"`
	Skip          int    `json:"skip"`
	RetryIndex    int    `json:"retryIndex"`
}

// aliONSResult is what one run sent and received.
type aliONSResult struct {
	cfg       aliONSConfig
	sent, got []alionsEvent
}

func newAliONSEnv(t *testing.T, opts ...testutil.BrokerOption) *aliONSEnv {
	t.Helper()
	e := &aliONSEnv{nodeModules: alionsNodeModules(t), topic: uniqueName("AliONST")}
	ns := testutil.StartNamesrv(t)
	e.nsAddr = ns.Addr().String()
	e.b = testutil.StartBroker(t, e.nsAddr, opts...)
	tc := body.NewTopicConfig(e.topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 4, 4, 6
	e.b.Topics().UpdateTopicConfig(tc)
	e.b.RegisterBrokerAll(false)
	checkAliONSRouteJSON(t, e.nsAddr, e.topic, e.b.BrokerAddr())
	return e
}

// run runs the driver to completion within 90 s; cfg's servers and topic
// are filled in.
func (e *aliONSEnv) run(t *testing.T, cfg aliONSConfig) *aliONSResult {
	t.Helper()
	cfg.NameSrv, cfg.Topic = e.nsAddr, e.topic
	arg, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	events := runAlions(ctx, t, e.nodeModules, string(arg))
	if len(events) == 0 || events[len(events)-1].Event != "done" {
		t.Fatalf("driver did not finish: %+v", events)
	}
	r := &aliONSResult{cfg: cfg}
	for _, ev := range events {
		switch ev.Event {
		case "sent":
			r.sent = append(r.sent, ev)
		case "received":
			r.got = append(r.got, ev)
		}
	}
	return r
}

// checkCommitted asserts the group committed every queue of the topic up to
// its end.
func (e *aliONSEnv) checkCommitted(t *testing.T, group string) {
	t.Helper()
	for qid := range int32(4) {
		want := e.b.Store().MaxOffsetInQueue(e.topic, qid)
		if off := e.b.Offsets().QueryOffset(group, e.topic, qid); off != want {
			t.Errorf("group offset of queue %d = %d, want %d", qid, off, want)
		}
	}
}

// TestIntegrationAliONSProduceConsume runs ali-ons 3.12.0 (Node.js) against
// the in-process name server and broker: its producer sends messages with
// tags and keys, its push consumer (cluster mode, from the first offset,
// subscribed to two of three tags) receives each subscribed one once with
// its body, tag and key, and the broker keeps the group's committed offsets.
// A second consumer process of the same group then gets only the messages
// sent after them. ali-ons writes its own JSON headers (typed extFields,
// version 121) and reads routes in the old unquoted-key JSON.
func TestIntegrationAliONSProduceConsume(t *testing.T) {
	t.Parallel()
	e := newAliONSEnv(t)
	cfg := aliONSConfig{ProducerGroup: uniqueName("alions_pg"), ConsumerGroup: uniqueName("alions_cg"), N: 8, Skip: 2, RetryIndex: -1}
	r := e.run(t, cfg)
	r.checkSent(t)
	r.checkReceived(t)
	e.checkCommitted(t, cfg.ConsumerGroup)

	cfg.First = 100
	r = e.run(t, cfg)
	r.checkSent(t)
	r.checkReceived(t)
	e.checkCommitted(t, cfg.ConsumerGroup)
}

// TestIntegrationAliONSRetry has the ali-ons handler ask for one message to
// be consumed again: ali-ons sends it back (CONSUMER_SEND_MSG_BACK with its
// typed header: the 64-bit commit-log offset as a JSON number), the broker
// schedules it on the group's retry topic, and it comes back once, with
// reconsumeTimes 1 and its original topic, body, tag and key.
func TestIntegrationAliONSRetry(t *testing.T) {
	t.Parallel()
	e := newAliONSEnv(t, func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) {
		s.MessageDelayLevel = "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s"
	})
	cfg := aliONSConfig{ProducerGroup: uniqueName("alions_pg"), ConsumerGroup: uniqueName("alions_cg"), N: 4, RetryIndex: 1}
	r := e.run(t, cfg)
	r.checkSent(t)
	r.checkReceived(t)
	e.checkCommitted(t, cfg.ConsumerGroup)
	// the second delivery is the broker's copy, not ali-ons's local retry
	// (its fallback when the send-back fails)
	var ids []string
	for _, g := range r.got {
		if g.Body == aliONSBody(1) {
			ids = append(ids, g.MsgID)
		}
	}
	if len(ids) == 2 && ids[0] == ids[1] {
		t.Errorf("retried message came back with the same id %s: not sent back to the broker", ids[0])
	}
	if n := e.b.Store().MaxOffsetInQueue("%RETRY%"+cfg.ConsumerGroup, 0); n != 1 {
		t.Errorf("retry topic of %s holds %d messages, want 1", cfg.ConsumerGroup, n)
	}
}

// checkSent expects every message sent in order, SEND_OK, spread
// round-robin over the queues with consecutive offsets per queue.
func (r *aliONSResult) checkSent(t *testing.T) {
	t.Helper()
	total := r.cfg.N + r.cfg.Skip
	if len(r.sent) != total {
		t.Fatalf("sent %d messages, want %d: %+v", len(r.sent), total, r.sent)
	}
	last := map[int32]int64{} // queue → offset of its latest send
	for i, s := range r.sent {
		if s.I != r.cfg.First+i || s.Status != "SEND_OK" || s.MsgID == "" {
			t.Errorf("send %d: %+v", r.cfg.First+i, s)
		}
		if prev, ok := last[s.QueueID]; ok && s.QueueOffset != prev+1 {
			t.Errorf("send %d went to queue %d offset %d, after offset %d", s.I, s.QueueID, s.QueueOffset, prev)
		}
		last[s.QueueID] = s.QueueOffset
	}
	if len(last) != min(total, 4) {
		t.Errorf("sends used queues %v, want %d of the 4", last, min(total, 4))
	}
}

// aliONSBody is the body of message i, as alions.js's bodyOf: every fifth
// one is past ali-ons's 4 KiB compression threshold.
func aliONSBody(i int) string {
	if i%5 == 3 {
		return "alions-body-" + strconv.Itoa(i) + "-" + strings.Repeat("z", 5000)
	}
	return "alions-body-" + strconv.Itoa(i)
}

// checkReceived expects the n subscribed messages once each (message
// retryIndex twice: first with reconsumeTimes 0, then 1), with their topic,
// tag and key, and nothing else: no TagC message, none of an earlier run.
func (r *aliONSResult) checkReceived(t *testing.T) {
	t.Helper()
	byBody := map[string][]alionsEvent{}
	for _, g := range r.got {
		byBody[g.Body] = append(byBody[g.Body], g)
	}
	var problems []string
	want := 0
	for i := r.cfg.First + r.cfg.Skip; i < r.cfg.First+r.cfg.Skip+r.cfg.N; i++ {
		bodyText := aliONSBody(i)
		deliveries := byBody[bodyText]
		delete(byBody, bodyText)
		wantTimes := 1
		if i == r.cfg.RetryIndex {
			wantTimes = 2
		}
		want += wantTimes
		if len(deliveries) != wantTimes {
			problems = append(problems, fmt.Sprintf("%.40s delivered %d times, want %d", bodyText, len(deliveries), wantTimes))
			continue
		}
		wantTag := map[bool]string{true: "TagA", false: "TagB"}[i%2 == 0]
		for k, g := range deliveries {
			if g.Topic != r.cfg.Topic || g.Tags != wantTag || g.Keys != "key-"+strconv.Itoa(i) || g.MsgID == "" || g.ReconsumeTimes != k {
				g.Body = fmt.Sprintf("%.40s", g.Body)
				t.Errorf("message %d delivery %d: %+v, want tag %s key key-%d reconsumeTimes %d", i, k, g, wantTag, i, k)
			}
		}
	}
	for bodyText, g := range byBody {
		problems = append(problems, fmt.Sprintf("unexpected %.40s: %d deliveries", bodyText, len(g)))
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		t.Errorf("%v (got %d deliveries, want %d)", problems, len(r.got), want)
	}
}

// checkAliONSRouteJSON asks the name server for the route as ali-ons 3.12.0
// does (version 121) and expects the old fastjson form with unquoted
// integer keys, which Java 4.9.8 sends to clients older than 4.9.4.
func checkAliONSRouteJSON(t *testing.T, nsAddr, topic, brokerAddr string) {
	t.Helper()
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	req := codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil)
	req.Version = 121
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	resp, err := rc.InvokeSync(ctx, nsAddr, req)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"brokerAddrs":{0:"` + brokerAddr + `"}`; resp.Code != code.Success || !strings.Contains(string(resp.Body), want) {
		t.Fatalf("route for version 121: code %d body %s, want it to contain %s", resp.Code, resp.Body, want)
	}
}
