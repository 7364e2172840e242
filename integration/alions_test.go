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
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "rmq-go-test", "alions-"+hex.EncodeToString(h.Sum(nil))[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
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

// aliONSRun is one run of the Node driver against fresh in-process servers.
type aliONSRun struct {
	b          *broker.Broker
	topic      string
	group      string
	sent, got  []alionsEvent
	n, skip    int
	retryIndex int // -1: no retry
	brokerName string
}

// runAliONS starts a name server and a broker (opts adjust the broker), creates
// a 4-queue topic (ali-ons has no TBW102 fallback) and runs the driver to
// completion within 90 s.
func runAliONS(t *testing.T, n, skip, retryIndex int, opts ...testutil.BrokerOption) *aliONSRun {
	t.Helper()
	nodeModules := alionsNodeModules(t)
	ns := testutil.StartNamesrv(t)
	r := &aliONSRun{
		b: testutil.StartBroker(t, ns.Addr().String(), opts...), topic: uniqueName("AliONST"),
		group: uniqueName("alions_cg"), n: n, skip: skip, retryIndex: retryIndex,
	}
	r.brokerName = r.b.Config().BrokerName
	tc := body.NewTopicConfig(r.topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 4, 4, 6
	r.b.Topics().UpdateTopicConfig(tc)
	r.b.RegisterBrokerAll(false)
	checkAliONSRouteJSON(t, ns.Addr().String(), r.topic, r.b.BrokerAddr())

	args := []string{ns.Addr().String(), r.topic, uniqueName("alions_pg"), r.group, strconv.Itoa(n), strconv.Itoa(skip)}
	if retryIndex >= 0 {
		args = append(args, strconv.Itoa(retryIndex))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	events := runAlions(ctx, t, nodeModules, args...)
	if len(events) == 0 || events[len(events)-1].Event != "done" {
		t.Fatalf("driver did not finish: %+v", events)
	}
	for _, e := range events {
		switch e.Event {
		case "sent":
			r.sent = append(r.sent, e)
		case "received":
			r.got = append(r.got, e)
		}
	}
	return r
}

// checkCommitted asserts the group committed every queue of the topic up to
// its end.
func (r *aliONSRun) checkCommitted(t *testing.T) {
	t.Helper()
	for qid := range int32(4) {
		want := r.b.Store().MaxOffsetInQueue(r.topic, qid)
		if off := r.b.Offsets().QueryOffset(r.group, r.topic, qid); off != want {
			t.Errorf("group offset of queue %d = %d, want %d", qid, off, want)
		}
	}
}

// TestIntegrationAliONSProduceConsume runs ali-ons 3.12.0 (Node.js) against
// the in-process name server and broker: its producer sends messages with
// tags and keys, its push consumer (cluster mode, from the first offset,
// subscribed to two of three tags) receives each subscribed one once with
// its body, tag and key, and the broker keeps the group's committed offsets.
// ali-ons writes its own JSON headers (typed extFields, version 121) and
// reads routes in the old unquoted-key JSON.
func TestIntegrationAliONSProduceConsume(t *testing.T) {
	t.Parallel()
	r := runAliONS(t, 8, 2, -1)
	checkAliONSSent(t, r.sent, r.n+r.skip)
	checkAliONSReceived(t, r.topic, r.got, r.n, r.skip, -1)
	r.checkCommitted(t)
}

// TestIntegrationAliONSRetry has the ali-ons handler ask for one message to
// be consumed again: ali-ons sends it back (CONSUMER_SEND_MSG_BACK with its
// typed header: the 64-bit commit-log offset as a JSON number), the broker
// schedules it on the group's retry topic, and it comes back once, with
// reconsumeTimes 1 and its original topic, body, tag and key.
func TestIntegrationAliONSRetry(t *testing.T) {
	t.Parallel()
	fastDelay := func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) {
		s.MessageDelayLevel = "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s"
	}
	r := runAliONS(t, 4, 0, 1, fastDelay)
	checkAliONSSent(t, r.sent, r.n)
	checkAliONSReceived(t, r.topic, r.got, r.n, r.skip, 1)
	r.checkCommitted(t)
	// the second delivery is the broker's copy, not ali-ons's local retry
	// (its fallback when the send-back fails)
	var ids []string
	for _, g := range r.got {
		if g.Body == "alions-body-1" {
			ids = append(ids, g.MsgID)
		}
	}
	if len(ids) == 2 && ids[0] == ids[1] {
		t.Errorf("retried message came back with the same id %s: not sent back to the broker", ids[0])
	}
	if n := r.b.Store().MaxOffsetInQueue("%RETRY%"+r.group, 0); n != 1 {
		t.Errorf("retry topic of %s holds %d messages, want 1", r.group, n)
	}
}

func checkAliONSSent(t *testing.T, sent []alionsEvent, total int) {
	t.Helper()
	if len(sent) != total {
		t.Fatalf("sent %d messages, want %d: %+v", len(sent), total, sent)
	}
	perQueue := map[int32]int64{}
	for i, s := range sent {
		if s.I != i || s.Status != "SEND_OK" || s.MsgID == "" {
			t.Errorf("send %d: %+v", i, s)
		}
		// ali-ons spreads the sends round-robin; each queue counts from 0
		if s.QueueOffset != perQueue[s.QueueID] {
			t.Errorf("send %d went to queue %d offset %d, want offset %d", i, s.QueueID, s.QueueOffset, perQueue[s.QueueID])
		}
		perQueue[s.QueueID]++
	}
	if len(perQueue) != min(total, 4) {
		t.Errorf("sends used queues %v, want %d of the 4", perQueue, min(total, 4))
	}
}

// checkAliONSReceived expects messages skip..skip+n-1 once each (message
// retryIndex twice: first with reconsumeTimes 0, then 1) and none of the
// TagC ones before them.
func checkAliONSReceived(t *testing.T, topic string, got []alionsEvent, n, skip, retryIndex int) {
	t.Helper()
	byBody := map[string][]alionsEvent{}
	for _, g := range got {
		byBody[g.Body] = append(byBody[g.Body], g)
	}
	var missing []string
	for i := skip; i < skip+n; i++ {
		bodyText := "alions-body-" + strconv.Itoa(i)
		deliveries := byBody[bodyText]
		wantTimes := 1
		if i == retryIndex {
			wantTimes = 2
		}
		if len(deliveries) != wantTimes {
			missing = append(missing, fmt.Sprintf("%s delivered %d times, want %d", bodyText, len(deliveries), wantTimes))
			continue
		}
		wantTag := map[bool]string{true: "TagA", false: "TagB"}[i%2 == 0]
		for k, g := range deliveries {
			if g.Topic != topic || g.Tags != wantTag || g.Keys != "key-"+strconv.Itoa(i) || g.MsgID == "" || g.ReconsumeTimes != k {
				t.Errorf("message %d delivery %d: %+v, want tag %s key key-%d reconsumeTimes %d", i, k, g, wantTag, i, k)
			}
		}
	}
	for i := range skip {
		if g, ok := byBody["alions-body-"+strconv.Itoa(i)]; ok {
			t.Errorf("TagC message %d delivered to a TagA || TagB subscription: %+v", i, g)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		t.Errorf("%v (got %d deliveries)", missing, len(got))
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
