package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/body"
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

// TestIntegrationAliONSProduceConsume runs ali-ons 3.12.0 (Node.js) against
// the in-process name server and broker: its producer sends messages with
// tags and keys, its push consumer (cluster mode, from the first offset,
// subscribed to two of three tags) receives each subscribed one with its
// body, tag and key, and the broker keeps the group's committed offsets.
// ali-ons writes its own JSON headers (typed extFields, version 121) and
// reads routes in the old unquoted-key JSON.
func TestIntegrationAliONSProduceConsume(t *testing.T) {
	t.Parallel()
	nodeModules := alionsNodeModules(t)
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String())
	topic := uniqueName("AliONST")
	tc := body.NewTopicConfig(topic) // ali-ons has no TBW102 fallback
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 4, 4, 6
	b.Topics().UpdateTopicConfig(tc)
	b.RegisterBrokerAll(false)

	const n, skip = 8, 2
	group := uniqueName("alions_cg")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	events := runAlions(ctx, t, nodeModules, ns.Addr().String(), topic, uniqueName("alions_pg"), group,
		strconv.Itoa(n), strconv.Itoa(skip))

	var sent, got []alionsEvent
	for _, e := range events {
		switch e.Event {
		case "sent":
			sent = append(sent, e)
		case "received":
			got = append(got, e)
		}
	}
	if len(events) == 0 || events[len(events)-1].Event != "done" {
		t.Fatalf("driver did not finish: %+v", events)
	}
	checkAliONSSent(t, b.Config().BrokerName, sent, n+skip)
	checkAliONSReceived(t, topic, got, n, skip)

	// the consumer committed its progress: every queue's offset is its end
	for qid := range int32(4) {
		want := b.Store().MaxOffsetInQueue(topic, qid)
		if off := b.Offsets().QueryOffset(group, topic, qid); off != want {
			t.Errorf("group offset of queue %d = %d, want %d", qid, off, want)
		}
	}
}

func checkAliONSSent(t *testing.T, brokerName string, sent []alionsEvent, total int) {
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
	if len(perQueue) != 4 {
		t.Errorf("sends used queues %v of broker %s, want all 4", perQueue, brokerName)
	}
}

func checkAliONSReceived(t *testing.T, topic string, got []alionsEvent, n, skip int) {
	t.Helper()
	byBody := map[string]alionsEvent{}
	for _, g := range got {
		if _, dup := byBody[g.Body]; dup {
			t.Errorf("received %q twice", g.Body)
		}
		byBody[g.Body] = g
	}
	var missing []string
	for i := skip; i < skip+n; i++ {
		bodyText := "alions-body-" + strconv.Itoa(i)
		g, ok := byBody[bodyText]
		if !ok {
			missing = append(missing, bodyText)
			continue
		}
		wantTag := map[bool]string{true: "TagA", false: "TagB"}[i%2 == 0]
		if g.Topic != topic || g.Tags != wantTag || g.Keys != "key-"+strconv.Itoa(i) || g.MsgID == "" {
			t.Errorf("message %d received as %+v, want tag %s key key-%d", i, g, wantTag, i)
		}
	}
	for i := range skip {
		if g, ok := byBody["alions-body-"+strconv.Itoa(i)]; ok {
			t.Errorf("TagC message %d delivered to a TagA || TagB subscription: %+v", i, g)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		t.Errorf("not received: %v (got %d messages)", missing, len(got))
	}
	if len(got) != n {
		t.Error(errors.New("received " + strconv.Itoa(len(got)) + " messages, want " + strconv.Itoa(n)))
	}
}
