package integration

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	"github.com/rocketmq-go/rmq/remoting"
)

// node5Dir holds the scripts driving the official RocketMQ 5.x Node.js SDK
// (rocketmq-client-nodejs, pinned by package-lock.json); `npm ci` installs
// it into node5Dir/node_modules, which git ignores.
const node5Dir = "node5"

// node5Marker, inside node_modules, records the lockfile hash of the last
// complete install, so an interrupted or outdated install is redone.
const node5Marker = ".rmq-lock-sha256"

// node5Install makes sure node5Dir/node_modules holds the SDK of the
// committed lockfile, running `npm ci` once per lockfile (a file lock keeps
// parallel tests and packages from installing at the same time). Without
// node or npm the test is skipped, except in CI (CI=true), where they must
// be present (.ci/run installs them when missing).
func node5Install(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required in CI for the Node.js 5.x SDK tests: %v", tool, err)
			}
			t.Skipf("the Node.js 5.x SDK tests need node and npm: %v", err)
		}
	}
	lock, err := os.ReadFile(filepath.Join(node5Dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	want := hex.EncodeToString(sum[:])
	unlock := lockFile(t, filepath.Join(os.TempDir(), "rmq-node5-npm.lock"))
	defer unlock()
	marker := filepath.Join(node5Dir, "node_modules", node5Marker)
	if got, err := os.ReadFile(marker); err == nil && string(got) == want {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	// npm ci removes any previous node_modules first; install scripts are
	// not needed (the SDK's native crc32 comes as a prebuilt package).
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	cmd.Dir = node5Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", node5Dir, err, out)
	}
	if err := os.WriteFile(marker, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
}

// node5Event is one JSON line written by a script of node5Dir (see
// node5/common.js); fields a script does not set stay zero.
type node5Event struct {
	Event             string            `json:"event"`
	MS                int64             `json:"ms"` // when the script wrote the line (Unix ms)
	I                 int               `json:"i"`
	ClientID          string            `json:"clientId"`
	MessageID         string            `json:"messageId"`
	TransactionID     string            `json:"transactionId"`
	Offset            int64             `json:"offset"`
	Topic             string            `json:"topic"`
	Body              string            `json:"body"`
	Tag               string            `json:"tag"`
	Keys              []string          `json:"keys"`
	Group             string            `json:"group"`
	Properties        map[string]string `json:"properties"`
	DeliveryAttempt   int               `json:"deliveryAttempt"`
	DeliveryTimestamp int64             `json:"deliveryTimestamp"`
	DeliverAt         int64             `json:"deliverAt"`
	Corrupted         bool              `json:"corrupted"`
	Result            string            `json:"result"`
	Resolution        string            `json:"resolution"`
	Action            string            `json:"action"`
	Count             int               `json:"count"`
	Error             string            `json:"error"`
	Cause             string            `json:"cause"`
}

// nodeProc is a running script: its events arrive on a channel as they are
// written, and are also kept for the final check.
type nodeProc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	stdin  interface{ Close() error }
	stderr *lockedBuffer
	events chan node5Event
	done   chan struct{} // closed when the process has exited and stdout is drained
	err    error         // the exit error, valid after done

	mu  sync.Mutex
	all []node5Event
}

// startNode starts `node node5/<script> <json args>` in a fresh home (the
// SDK logs under $HOME/logs). The process is killed when the test ends;
// its stderr (the SDK's log) is shown when the test fails, or always with
// RMQ_NODE5_VERBOSE set.
func startNode(t *testing.T, script string, args any) *nodeProc {
	t.Helper()
	return startNodeEnv(t, script, args, nil)
}

// startNodeEnv is startNode with extra environment variables (KEY=value).
func startNodeEnv(t *testing.T, script string, args any, env []string) *nodeProc {
	t.Helper()
	arg, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	path, err := filepath.Abs(filepath.Join(node5Dir, script))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command("node", path, string(arg))
	cmd.Dir = home
	cmd.Env = append(append(os.Environ(), "HOME="+home), env...)
	cmd.WaitDelay = 5 * time.Second
	p := &nodeProc{t: t, name: script, cmd: cmd, stderr: &lockedBuffer{},
		events: make(chan node5Event, 1024), done: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // no-op once it has exited
		<-p.done
		if t.Failed() || os.Getenv("RMQ_NODE5_VERBOSE") != "" {
			t.Logf("%s stderr:\n%s", p.name, p.stderr.String())
		}
	})
	go func() {
		defer close(p.done)
		defer close(p.events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var e node5Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				e = node5Event{Event: "badline", Error: sc.Text()}
			}
			p.mu.Lock()
			p.all = append(p.all, e)
			p.mu.Unlock()
			select {
			case p.events <- e:
			default: // nobody reads live events; they stay in all
			}
		}
		p.err = cmd.Wait()
	}()
	return p
}

// wait waits for the script to exit within timeout and returns all its
// events; it fails the test when the script failed or reported an error.
func (p *nodeProc) wait(timeout time.Duration) []node5Event {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		p.t.Fatalf("%s did not finish within %v\nevents: %+v", p.name, timeout, p.snapshot())
	}
	evs := p.snapshot()
	for _, e := range evs {
		if e.Event == "error" || e.Event == "badline" {
			p.t.Fatalf("%s: %s %s (cause: %s)\nevents: %+v", p.name, e.Event, e.Error, e.Cause, evs)
		}
	}
	if p.err != nil {
		p.t.Fatalf("%s: %v\nevents: %+v", p.name, p.err, evs)
	}
	return evs
}

// waitError waits for the script to fail within timeout and returns its
// error event; it fails the test when the script succeeds.
func (p *nodeProc) waitError(timeout time.Duration) node5Event {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		p.t.Fatalf("%s did not finish within %v\nevents: %+v", p.name, timeout, p.snapshot())
	}
	evs := p.snapshot()
	for _, e := range evs {
		if e.Event == "error" {
			return e
		}
	}
	p.t.Fatalf("%s succeeded (%v), want an error\nevents: %+v", p.name, p.err, evs)
	return node5Event{}
}

// waitFor reads live events until one satisfies ok, and returns it; it
// fails the test on timeout, on an error line or when the script exits.
func (p *nodeProc) waitFor(timeout time.Duration, what string, ok func(node5Event) bool) node5Event {
	p.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case e, open := <-p.events:
			if !open {
				p.t.Fatalf("%s exited (%v) before %s\nevents: %+v", p.name, p.err, what, p.snapshot())
			}
			if e.Event == "error" || e.Event == "badline" {
				p.t.Fatalf("%s before %s: %s %s (cause: %s)", p.name, what, e.Event, e.Error, e.Cause)
			}
			if ok(e) {
				return e
			}
		case <-deadline:
			p.t.Fatalf("%s: no %s within %v\nevents: %+v", p.name, what, timeout, p.snapshot())
		}
	}
}

func (p *nodeProc) snapshot() []node5Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.all)
}

// node5Filter returns the events named event.
func node5Filter(evs []node5Event, event string) []node5Event {
	var out []node5Event
	for _, e := range evs {
		if e.Event == event {
			out = append(out, e)
		}
	}
	return out
}

// node5Env is a name server, a broker with the gRPC front end in local
// mode (5.x's `mqbroker --enable-proxy`) and a topic with 4 queues; the
// embedded consumeEnv gives the official Go remoting client for the mixed
// tests.
type node5Env struct {
	*consumeEnv
	endpoint string // the gRPC front end's host:port, the SDK's endpoints
}

// newNode5Env installs the SDK (or skips, see node5Install) and starts
// the servers on ephemeral ports.
func newNode5Env(t *testing.T, opts ...testutil.BrokerOption) *node5Env {
	t.Helper()
	return newNode5EnvWith(t, node5Setup{}, opts...)
}

// node5Setup varies the gRPC front end of a node5Env.
type node5Setup struct {
	tls     *remoting.TLSConfig // the listener's tls.* settings; nil: plaintext only
	cluster bool                // cluster mode (mqproxy: brokers over remoting, routes from the name server)
}

// newNode5EnvWith is newNode5Env with the front end set up as s says.
func newNode5EnvWith(t *testing.T, s node5Setup, opts ...testutil.BrokerOption) *node5Env {
	t.Helper()
	node5Install(t)
	ce := newConsumeEnv(t, opts...)
	lg := zaptest.NewLogger(t).Named("proxy")
	cfg := proxy.NewConfig()
	cfg.ProxyMode, cfg.NamesrvAddr = proxy.ModeLocal, ce.nsAddr
	var be proxy.Backend
	var err error
	if s.cluster {
		cfg.ProxyMode = proxy.ModeCluster
		be, err = proxy.NewClusterBackend([]string{ce.nsAddr}, nil, lg)
	} else {
		be, err = proxy.NewLocalBackend(ce.b, lg)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // runs after the server's shutdown below
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := be.Close(ctx); err != nil {
			t.Errorf("proxy backend close: %v", err)
		}
	})
	cfg.GRPCServerHost, cfg.GRPCServerPort = "127.0.0.1", 0
	srv, err := proxy.New(cfg, be, lg)
	if err != nil {
		t.Fatal(err)
	}
	srv.SetTLS(s.tls)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("proxy shutdown: %v", err)
		}
	})
	return &node5Env{consumeEnv: ce, endpoint: srv.Addr().String()}
}
