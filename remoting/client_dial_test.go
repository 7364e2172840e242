package remoting

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// stuckDialer is a Dialer whose connect never completes: it returns when
// its ctx ends (reporting that through aborted) or when release closes.
func stuckDialer(aborted chan<- error, release <-chan struct{}) Dialer {
	return func(ctx context.Context, _ string) (net.Conn, error) {
		select {
		case <-ctx.Done():
			aborted <- ctx.Err()
			return nil, ctx.Err()
		case <-release:
			return nil, errors.New("released")
		}
	}
}

// TestRemotingClientDialHonoursCallerCtx: a call whose connect hangs
// returns when its own ctx ends, also for the caller that started the
// dial (before, that caller waited for the dial, up to
// connectTimeoutMillis, whatever its deadline).
func TestRemotingClientDialHonoursCallerCtx(t *testing.T) {
	cfg := NewNettyClientConfig()
	cfg.ConnectTimeoutMillis = 60_000
	c := NewClient(cfg, zaptest.NewLogger(t))
	aborted := make(chan error, 1)
	release := make(chan struct{})
	defer close(release)
	c.SetDialer(stuckDialer(aborted, release))
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })

	got := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := c.InvokeSync(ctx, "192.0.2.1:10911", codec.NewRequest(testCodeEcho, nil, nil))
		got <- err
	}()
	select {
	case err := <-got:
		if !errors.Is(err, ErrConnect) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v, want ErrConnect and the caller's deadline", err)
		}
	case <-time.After(wait.Scale(5 * time.Second)):
		t.Fatal("InvokeSync still waiting for the connect 5 s after its 100 ms deadline")
	}
}

// TestRemotingClientShutdownAbortsDial: Shutdown aborts a connect in
// flight, and its waiter is answered.
func TestRemotingClientShutdownAbortsDial(t *testing.T) {
	c := NewClient(nil, zaptest.NewLogger(t))
	aborted := make(chan error, 1)
	release := make(chan struct{})
	defer close(release)
	c.SetDialer(stuckDialer(aborted, release))

	got := make(chan error, 1)
	go func() {
		_, err := c.Channel(context.Background(), "192.0.2.1:10911")
		got <- err
	}()
	wait.Eventually(t, 5*time.Second, func() error {
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.dialing) == 0 {
			return errors.New("dial not started")
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait.Scale(5*time.Second))
	defer cancel()
	if err := c.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	select {
	case err := <-aborted:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("dial ended with %v, want cancelled", err)
		}
	case <-time.After(wait.Scale(5 * time.Second)):
		t.Fatal("the connect in flight was not aborted by Shutdown")
	}
	select {
	case err := <-got:
		if !errors.Is(err, ErrConnect) {
			t.Fatalf("waiter got %v, want ErrConnect", err)
		}
	case <-time.After(wait.Scale(5 * time.Second)):
		t.Fatal("the dial's waiter was never answered")
	}
}

// TestRemotingClientShutdownAbortsTLSHandshake: Shutdown also aborts a TLS
// handshake in flight (the dial runs on a goroutine Shutdown waits for;
// before, the handshake ran to connectTimeoutMillis whatever Shutdown did,
// so Shutdown waited that long or failed on its own deadline).
func TestRemotingClientShutdownAbortsTLSHandshake(t *testing.T) {
	cfg := NewNettyClientConfig()
	cfg.UseTLS = true
	cfg.TLS = NewTLSConfig()
	cfg.ConnectTimeoutMillis = 60_000
	c := NewClient(cfg, zaptest.NewLogger(t))
	connected := make(chan net.Conn, 1)
	c.SetDialer(func(context.Context, string) (net.Conn, error) {
		ours, peer := net.Pipe() // the peer never answers the ClientHello
		t.Cleanup(func() { _ = peer.Close() })
		connected <- peer
		return ours, nil
	})
	go func() { _, _ = c.Channel(context.Background(), "192.0.2.1:10911") }()
	peer := <-connected
	go func() { _, _ = io.Copy(io.Discard, peer) }() // take the ClientHello, answer nothing

	ctx, cancel := context.WithTimeout(context.Background(), wait.Scale(5*time.Second))
	defer cancel()
	if err := c.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown waited for the TLS handshake: %v", err)
	}
}
