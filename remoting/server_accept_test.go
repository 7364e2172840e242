package remoting

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// faultyListener fails Accept with EMFILE, as accept4 does at the
// descriptor limit, while failing is set; it counts the failures.
type faultyListener struct {
	net.Listener
	mu       sync.Mutex
	failing  bool
	failures int
}

func (l *faultyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.failing {
		l.failures++
		l.mu.Unlock()
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	l.mu.Unlock()
	return l.Listener.Accept()
}

func (l *faultyListener) set(failing bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failing = failing
	return l.failures
}

// TestRemotingAcceptErrorKeepsServing: accept errors neither stop the
// server nor touch open connections; accepting resumes once they stop, and
// the error is logged at most once a second, not once per retry.
func TestRemotingAcceptErrorKeepsServing(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	lg := zap.New(zapcore.NewTee(core, zaptest.NewLogger(t).Core()))
	fl := &faultyListener{}
	s, err := NewServer(testServerConfig(), lg)
	if err != nil {
		t.Fatal(err)
	}
	s.wrapLn = func(ln net.Listener) net.Listener { fl.Listener = ln; return fl }
	s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 2, 16))
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(ctxT(t, 5*time.Second)) })
	addr := s.Addr().String()
	old := newTestClient(t)
	ping := func(c *Client) error {
		resp, err := c.InvokeSync(ctxT(t, wait.Scale(5*time.Second)), addr, codec.NewRequest(testCodeEcho, nil, []byte("x")))
		if err == nil && string(resp.Body) != "x" {
			err = fmt.Errorf("echo body %q", resp.Body)
		}
		return err
	}
	if err := ping(old); err != nil { // its connection is accepted before the faults
		t.Fatal(err)
	}

	fl.set(true)
	// The accept goroutine is blocked in the listener's Accept: one more
	// connection releases it, and the Accepts after it fail. Wait for
	// several failures, i.e. several back-off rounds.
	kick, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kick.Close() })
	wait.Eventually(t, 5*time.Second, func() error {
		if n := fl.set(true); n < 5 {
			return fmt.Errorf("%d accept failures so far", n)
		}
		return nil
	})
	if err := ping(old); err != nil {
		t.Fatalf("open connection during accept failures: %v", err)
	}
	failures := fl.set(false)

	fresh := newTestClient(t)
	if err := ping(fresh); err != nil {
		t.Fatalf("new connection after accept failures: %v", err)
	}
	lines := logs.FilterMessage("accept failed, retrying").Len()
	if lines < 1 || lines >= failures {
		t.Fatalf("%d accept-failure log lines for %d failures, want at least 1 and fewer than the failures", lines, failures)
	}
	wait.Eventually(t, 5*time.Second, func() error { // logged once Enroll returned
		if n := logs.FilterMessage("accept resumed").Len(); n != 1 {
			return fmt.Errorf("accept resumed logged %d times, want 1", n)
		}
		return nil
	})
}

// TestRemotingAcceptBackoff: the retry delay doubles from 5 ms to at most 1 s.
func TestRemotingAcceptBackoff(t *testing.T) {
	var got []time.Duration
	var d time.Duration
	for range 10 {
		d = nextAcceptDelay(d)
		got = append(got, d)
	}
	want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("delays %v, want %v ms", got, want)
		}
	}
}

// TestRemotingRateLogHoldsBackWithinInterval: one line per interval; the
// next line carries the count held back.
func TestRemotingRateLogHoldsBackWithinInterval(t *testing.T) {
	var r rateLog
	t0 := time.Unix(100, 0)
	steps := []struct {
		at   time.Duration
		ok   bool
		held int
	}{{0, true, 0}, {10 * time.Millisecond, false, 0}, {999 * time.Millisecond, false, 0}, {time.Second, true, 2}, {1500 * time.Millisecond, false, 0}, {3 * time.Second, true, 1}}
	for _, st := range steps {
		ok, held := r.allow(t0.Add(st.at), time.Second)
		if ok != st.ok || held != st.held {
			t.Fatalf("at %v: allow = %v, %d; want %v, %d", st.at, ok, held, st.ok, st.held)
		}
	}
}

// BenchmarkRemotingConnect: a new connection per op (dial, one echo
// round trip, close), i.e. the accept and hand-over path.
func BenchmarkRemotingConnect(b *testing.B) {
	s, err := NewServer(testServerConfig(), zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 2, 1024))
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	frame, err := codec.Encode(codec.NewRequest(testCodeEcho, nil, []byte("x")))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Write(frame); err != nil {
			b.Fatal(err)
		}
		var hdr [4]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			b.Fatal(err)
		}
		_ = c.Close()
	}
}
