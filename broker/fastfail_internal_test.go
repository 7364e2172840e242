package broker

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// fastFailFixture serves code 1 through a timedExecutor with one worker
// whose processor blocks until release is closed.
type fastFailFixture struct {
	b       *Broker
	q       *timedExecutor
	addr    string
	cli     *remoting.Client
	release chan struct{}
	started chan struct{} // one value per request the worker begins
	reject  atomic.Bool
}

func newFastFailFixture(t *testing.T, capacity int) *fastFailFixture {
	t.Helper()
	lg := zaptest.NewLogger(t)
	f := &fastFailFixture{
		b:       &Broker{lg: lg, stopCh: make(chan struct{})},
		release: make(chan struct{}),
		started: make(chan struct{}, 10),
	}
	f.q = newTimedExecutor("test", capacity, func() time.Duration { return 20 * time.Millisecond })
	blocking := remoting.ProcessorFunc(func(*remoting.Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		f.started <- struct{}{}
		<-f.release
		return codec.NewResponse(code.Success, ""), nil
	})
	cfg := remoting.NewNettyServerConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	srv, err := remoting.NewServer(cfg, lg)
	if err != nil {
		t.Fatal(err)
	}
	srv.RegisterProcessor(1, f.b.timed(f.q, blocking, f.reject.Load), remoting.NewPool("intake", 1, 100))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	f.b.startTimedExecutor(f.q, 1)
	f.addr = srv.Addr().String()
	f.cli = remoting.NewClient(remoting.NewNettyClientConfig(), lg)
	t.Cleanup(func() {
		select {
		case <-f.release:
		default:
			close(f.release)
		}
		close(f.b.stopCh)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = f.cli.Shutdown(ctx)
		_ = srv.Shutdown(ctx)
		f.b.wg.Wait()
	})
	return f
}

// send issues a request asynchronously; the answer arrives on the channel.
func (f *fastFailFixture) send(t *testing.T) <-chan *codec.RemotingCommand {
	t.Helper()
	ch := make(chan *codec.RemotingCommand, 1)
	err := f.cli.InvokeAsync(context.Background(), f.addr, codec.NewRequest(1, nil, nil), func(r *codec.RemotingCommand, err error) {
		if err != nil {
			t.Errorf("invoke: %v", err)
		}
		ch <- r
	})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func (f *fastFailFixture) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-f.started:
	case <-time.After(5 * time.Second):
		t.Fatal("worker did not start the first request")
	}
}

func (f *fastFailFixture) waitQueued(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(wait.Scale(5 * time.Second))
	for f.q.Len() != n {
		if time.Now().After(deadline) {
			t.Fatalf("queue length %d, want %d", f.q.Len(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func recv(t *testing.T, ch <-chan *codec.RemotingCommand) *codec.RemotingCommand {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no response")
		return nil
	}
}

func TestBrokerFastFailureTimeoutCleanQueue(t *testing.T) {
	f := newFastFailFixture(t, 10)
	first := f.send(t)
	f.waitStarted(t) // the worker took the first request and blocks
	second, third := f.send(t), f.send(t)
	f.waitQueued(t, 2)
	time.Sleep(25 * time.Millisecond) // both waited longer than 20 ms
	f.b.cleanExpired(f.q, func() bool { return false })
	for i, ch := range []<-chan *codec.RemotingCommand{second, third} {
		r := recv(t, ch)
		if r.Code != code.SystemBusy || !strings.HasPrefix(r.Remark, "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: ") ||
			!strings.HasSuffix(r.Remark, "ms, size of queue: "+[]string{"1", "0"}[i]) {
			t.Fatalf("queued request %d: code %d remark %q", i, r.Code, r.Remark)
		}
	}
	close(f.release)
	if r := recv(t, first); r.Code != code.Success {
		t.Fatalf("running request: %d %q", r.Code, r.Remark)
	}
}

func TestBrokerFastFailurePageCacheBusy(t *testing.T) {
	f := newFastFailFixture(t, 10)
	first := f.send(t)
	f.waitStarted(t)
	queued := f.send(t)
	f.waitQueued(t, 1)
	f.b.cleanExpired(f.q, func() bool { return true }) // drained at once, however short the wait
	r := recv(t, queued)
	if r.Code != code.SystemBusy || !strings.HasPrefix(r.Remark, "[PCBUSY_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: ") {
		t.Fatalf("code %d remark %q", r.Code, r.Remark)
	}
	// While the page cache is busy new requests are rejected at intake.
	f.reject.Store(true)
	r = recv(t, f.send(t))
	if r.Code != code.SystemBusy || r.Remark != "[REJECTREQUEST]system busy, start flow control for a while" {
		t.Fatalf("intake rejection: %d %q", r.Code, r.Remark)
	}
	f.reject.Store(false)
	close(f.release)
	recv(t, first)
}

func TestBrokerFastFailureQueueFull(t *testing.T) {
	f := newFastFailFixture(t, 1)
	first := f.send(t)
	f.waitStarted(t)
	queued := f.send(t)
	f.waitQueued(t, 1)
	r := recv(t, f.send(t))
	if r.Code != code.SystemBusy || r.Remark != "[OVERLOAD]system busy, start flow control for a while" {
		t.Fatalf("full queue: %d %q", r.Code, r.Remark)
	}
	close(f.release)
	for _, ch := range []<-chan *codec.RemotingCommand{first, queued} {
		if r := recv(t, ch); r.Code != code.Success {
			t.Fatalf("served request: %d %q", r.Code, r.Remark)
		}
	}
}
