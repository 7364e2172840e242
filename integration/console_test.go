package integration

// The web console (namesrv/console) in a real headless Chromium: the name
// server serves it (consoleListenAddr), the official Go client produces and
// consumes, and the rendered pages must show the topic and the group's lag.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/namesrv"
)

// findChromium returns Debian's chromium, or skips (fails under CI).
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is required in CI for the console test (.ci/run installs Debian's chromium)")
	}
	t.Skip("chromium not found on PATH: install Debian's chromium (apt-get install chromium) to run the console browser test")
	return ""
}

// render loads page in one headless Chromium run and returns the DOM once
// the page's script has settled; with shot != "" the same run saves a
// 1280x900 PNG screenshot under t.TempDir() (path logged, copied to
// $RMQ_TEST_ARTIFACTS/<test>/ when that is set).
func render(t *testing.T, bin, page, shot string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait.Scale(60*time.Second))
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=8000", "--dump-dom"}
	var path string
	if shot != "" {
		path = filepath.Join(t.TempDir(), shot)
		args = append(args, "--hide-scrollbars", "--window-size=1280,900", "--screenshot="+path)
	}
	cmd := exec.CommandContext(ctx, bin, append(args, page)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", page, err, stderr.String())
	}
	if shot != "" {
		keepScreenshot(t, page, path)
	}
	return string(out)
}

// consoleEnv is a name server with its console, a broker with one 4-queue
// topic, and a Go producer.
func newConsoleEnv(t *testing.T) (*consumeEnv, string) {
	t.Helper()
	rlog.SetLogLevel("error")
	ns := testutil.StartNamesrv(t, func(c *namesrv.NamesrvConfig) { c.ConsoleListenAddr = "127.0.0.1:0" })
	e := &consumeEnv{t: t, nsAddr: ns.Addr().String(), topic: uniqueName("ConsoleT")}
	e.b = testutil.StartBroker(t, e.nsAddr)
	e.createTopic(e.b)
	e.p = e.newProducer()
	return e, "http://" + ns.ConsoleAddr().String() + "/"
}

func TestConsoleChromium(t *testing.T) {
	t.Parallel()
	bin := findChromium(t)
	e, base := newConsoleEnv(t)
	// 20 messages (5 a queue) the group consumes, then 8 (2 a queue) its
	// handler holds: the committed offsets stop at 5, the lag is 8.
	e.send("first", 20, "TagA", nil)
	group := uniqueName("ConsoleCG")
	release := make(chan struct{})
	var releaseOnce sync.Once
	r := newReceived()
	e.startPush(pushOpts{group: group, handler: func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		for _, m := range msgs {
			if strings.HasPrefix(string(m.Body), "second-") {
				<-release
			}
		}
		r.add(msgs...)
		return consumer.ConsumeSuccess, nil
	}}, r)
	// Registered after startPush's, so it runs first: the held handlers
	// return before the consumer shuts down.
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	r.waitAll(t, "first", 20, 30*time.Second)
	e.send("second", 8, "TagA", nil)

	// The API first: the group's lag settles at 8 once the client commits
	// (every 5 s).
	testutil.Eventually(t, 30*time.Second, func() error {
		answer, err := httpGet(t, base+"api/group?name="+url.QueryEscape(group))
		if err != nil || !strings.Contains(answer, `"totalLag":8,`) || !strings.Contains(answer, `"clientId"`) {
			return fmt.Errorf("group answer: %.300s %v", answer, err)
		}
		return nil
	})

	t.Run("topics", func(t *testing.T) {
		t.Parallel() // one Chromium each, side by side
		dom := render(t, bin, base+"#topics", "console-topics.png")
		wantLoaded(t, dom, "topics")
		if !strings.Contains(dom, `data-topic="`+e.topic+`"`) || !strings.Contains(dom, ">"+e.topic+"</a>") {
			t.Errorf("topics page does not list %s:\n%s", e.topic, dom)
		}
	})
	t.Run("topic", func(t *testing.T) {
		t.Parallel() // one Chromium each, side by side
		dom := render(t, bin, base+"#topic/"+e.topic, "console-topic.png")
		wantLoaded(t, dom, "topic")
		wantField(t, dom, "totalMessages", "28")
	})
	t.Run("groups", func(t *testing.T) {
		t.Parallel() // one Chromium each, side by side
		dom := render(t, bin, base+"#groups", "console-groups.png")
		wantLoaded(t, dom, "groups")
		row := regexp.MustCompile(`<tr data-group="` + regexp.QuoteMeta(group) + `"[^>]*>(.*?)</tr>`).FindStringSubmatch(dom)
		if row == nil {
			t.Fatalf("groups page has no row for %s:\n%s", group, dom)
		}
		if !regexp.MustCompile(`data-col="totalLag">8<`).MatchString(row[1]) || !regexp.MustCompile(`data-col="members">1<`).MatchString(row[1]) {
			t.Errorf("group row shows no lag 8 / 1 member: %s", row[1])
		}
	})
	t.Run("group", func(t *testing.T) {
		t.Parallel() // one Chromium each, side by side
		dom := render(t, bin, base+"#group/"+group, "console-group.png")
		wantLoaded(t, dom, "group")
		wantField(t, dom, "totalLag", "8")
		wantField(t, dom, "members", "1")
		for q := range 4 {
			key := fmt.Sprintf(`data-queue="%s:broker-a:%d"`, e.topic, q)
			row := regexp.MustCompile(regexp.QuoteMeta(key) + `>(.*?)</tr>`).FindStringSubmatch(dom)
			if row == nil || !strings.Contains(row[1], `data-col="lag">2<`) {
				t.Errorf("queue %d: no lag 2 in %v", q, row)
			}
		}
	})
	t.Run("cluster", func(t *testing.T) {
		t.Parallel() // one Chromium each, side by side
		dom := render(t, bin, base+"#cluster", "console-cluster.png")
		wantLoaded(t, dom, "cluster")
		if !strings.Contains(dom, `data-broker="broker-a:0"`) || !strings.Contains(dom, ">V4_9_8<") || !strings.Contains(dom, "<canvas") {
			t.Errorf("cluster page lacks the broker, its version or the charts:\n%s", dom)
		}
	})
}

// Markup in message data is shown as text: never parsed, never run.
func TestConsoleChromiumEscapesMessage(t *testing.T) {
	t.Parallel()
	bin := findChromium(t)
	e, base := newConsoleEnv(t)
	const key = `<script>document.body.setAttribute("data-pwned","1")</script>`
	m := primitive.NewMessage(e.topic, []byte(`<img src=x onerror="document.body.setAttribute('data-pwned','2')">`))
	m.WithKeys([]string{key})
	m.WithProperty("note", `<b onmouseover="x()">bold</b>`)
	m.Queue = &primitive.MessageQueue{Topic: e.topic, BrokerName: e.b.Config().BrokerName, QueueId: 0}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	res, err := e.p.SendSync(ctx, m)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	page := base + "#message?" + url.Values{"topic": {e.topic}, "id": {res.OffsetMsgID}}.Encode()
	testutil.Eventually(t, 10*time.Second, func() error {
		answer, err := httpGet(t, base+"api/message?"+url.Values{"topic": {e.topic}, "id": {res.OffsetMsgID}}.Encode())
		if err != nil || !strings.Contains(answer, res.OffsetMsgID) {
			return fmt.Errorf("message answer: %.300s %v", answer, err)
		}
		return nil
	})
	dom := render(t, bin, page, "console-message.png")
	wantLoaded(t, dom, "message")
	if !strings.Contains(dom, `data-msgid="`+res.OffsetMsgID+`"`) {
		t.Fatalf("message %s not shown:\n%s", res.OffsetMsgID, dom)
	}
	if regexp.MustCompile(`<body[^>]*data-pwned`).MatchString(dom) {
		t.Fatalf("message data ran as script:\n%s", dom)
	}
	for _, want := range []string{"&lt;script&gt;document.body.setAttribute", "&lt;img src=x onerror=", "&lt;b onmouseover="} {
		if !strings.Contains(dom, want) {
			t.Errorf("page does not show %q as text:\n%s", want, dom)
		}
	}
	for _, bad := range []string{"<img", "<b ", "<script>document"} {
		if strings.Contains(dom, bad) {
			t.Errorf("page holds a %q element", bad)
		}
	}
}

// httpGet returns the body of a 200 answer.
func httpGet(t *testing.T, u string) (string, error) {
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %d", resp.StatusCode)
	}
	return string(b), err
}

func wantLoaded(t *testing.T, dom, page string) {
	t.Helper()
	if !strings.Contains(dom, `data-loaded="`+page+`"`) {
		t.Fatalf("page %s did not finish loading:\n%s", page, dom)
	}
	if strings.Contains(dom, `data-field="error"`) {
		t.Fatalf("page %s shows an error:\n%s", page, dom)
	}
}

func wantField(t *testing.T, dom, field, value string) {
	t.Helper()
	if !strings.Contains(dom, `data-field="`+field+`">`+value+`<`) {
		t.Errorf("field %s is not %s:\n%s", field, value, dom)
	}
}

// keepScreenshot checks the PNG at path, logs it and copies it to
// $RMQ_TEST_ARTIFACTS/<test>/ when that is set.
func keepScreenshot(t *testing.T, page, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil || st.Size() < 1000 {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	t.Logf("screenshot of %s: %s (%d bytes)", page, path, st.Size())
	dir := os.Getenv("RMQ_TEST_ARTIFACTS")
	if dir == "" {
		return
	}
	dst := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_"), filepath.Base(path))
	if err := copyFile(path, dst); err != nil {
		t.Errorf("copy screenshot: %v", err)
		return
	}
	t.Logf("screenshot copied to %s", dst)
}

func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
