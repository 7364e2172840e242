package remoting

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestLocalConnInvoke: a LocalConn call reaches the server's processor as a
// command (no frame: the processor sees the very body slice) on the same
// dispatch as a socket: answers with ext fields and body, unknown codes
// get REQUEST_CODE_NOT_SUPPORTED, a panic SYSTEM_ERROR, a full pool
// SYSTEM_BUSY, and the observer records each call; the channel is
// announced to the listener under the given peer address.
func TestLocalConnInvoke(t *testing.T) {
	b := newBlocker()
	defer close(b.release)
	var body []byte
	blockPool := NewPool("block", 1, 1)
	recs := make(chan RPCRecord, 64)
	ev := &eventRecorder{}
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, ProcessorFunc(func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			body = req.Body
			if ctx.Channel.RemoteAddr() != "10.0.0.1:1" {
				return nil, NewError(code.SystemError, "remote "+ctx.Channel.RemoteAddr())
			}
			return echo(ctx, req)
		}), NewPool("echo", 1, 4))
		s.RegisterProcessor(testCodePanic, ProcessorFunc(func(*Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			panic("boom")
		}), NewPool("panic", 1, 4))
		s.RegisterProcessor(testCodeBlock, b, blockPool)
		s.SetRPCObserver(func(r RPCRecord) { recs <- r })
		s.SetChannelEventListener(ev)
	})
	lc := s.NewLocalConn("10.0.0.1:1")
	t.Cleanup(func() { _ = lc.Close() })
	ctx := ctxT(t, 5*time.Second)

	payload := []byte("payload")
	resp, err := lc.Invoke(ctx, codec.NewRequest(testCodeEcho, map[string]string{"k": "v"}, payload))
	if err != nil || resp.Code != code.Success || resp.Ext("k") != "v" || string(resp.Body) != "payload" {
		t.Fatalf("echo: %v %+v", err, resp)
	}
	if &body[0] != &payload[0] {
		t.Fatal("the processor got a copy of the body: the request went through a frame")
	}
	if r := <-recs; r.RequestCode != testCodeEcho || r.ResponseCode != code.Success {
		t.Fatalf("observer: %+v", r)
	}
	poll(t, func() bool { ev, _ := ev.snapshot(); return len(ev) > 0 })
	if evs, chs := ev.snapshot(); len(chs) != 1 || evs[0] != "connect" || chs[0].RemoteAddr() != "10.0.0.1:1" {
		t.Fatalf("channel events: %v %v", evs, chs)
	}

	if resp, err := lc.Invoke(ctx, codec.NewRequest(4242, nil, nil)); err != nil || resp.Code != code.RequestCodeNotSupported {
		t.Fatalf("unknown code: %v %+v", err, resp)
	}
	if resp, err := lc.Invoke(ctx, codec.NewRequest(testCodePanic, nil, nil)); err != nil || resp.Code != code.SystemError {
		t.Fatalf("panic: %v %+v", err, resp)
	}

	// One call runs, one waits in the queue, the third is refused.
	errs := make(chan error, 2)
	call := func() {
		_, err := lc.Invoke(ctx, codec.NewRequest(testCodeBlock, nil, nil))
		errs <- err
	}
	go call()
	<-b.started
	go call()
	poll(t, func() bool { return blockPool.QueueLen() == 1 })
	if resp, err := lc.Invoke(ctx, codec.NewRequest(testCodeBlock, nil, nil)); err != nil || resp.Code != code.SystemBusy {
		t.Fatalf("full pool: %v %+v", err, resp)
	}
	b.release <- struct{}{}
	b.release <- struct{}{}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestLocalConnTimeoutKeepsChannel: a call whose ctx ends gets ErrTimeout
// and leaves the channel to the other calls; Close fails the waiting calls
// with ErrChannelClosed and a later call opens a new channel.
func TestLocalConnTimeoutKeepsChannel(t *testing.T) {
	b := newBlocker()
	defer close(b.release)
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeBlock, b, NewPool("block", 1, 4))
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 4))
	})
	lc := s.NewLocalConn("127.0.0.1:0")
	t.Cleanup(func() { _ = lc.Close() })
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := lc.Invoke(short, codec.NewRequest(testCodeBlock, nil, nil)); !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout: %v", err)
	}
	<-b.started
	ch, _ := lc.channel()
	if resp, err := lc.Invoke(ctxT(t, 5*time.Second), codec.NewRequest(testCodeEcho, map[string]string{"k": "after"}, nil)); err != nil || resp.Ext("k") != "after" {
		t.Fatalf("after timeout: %v %+v", err, resp)
	}
	if ch2, _ := lc.channel(); ch2 != ch {
		t.Fatal("a timed-out call replaced the channel")
	}
	done := make(chan error, 1)
	go func() {
		_, err := lc.Invoke(ctxT(t, 5*time.Second), codec.NewRequest(testCodeBlock, nil, nil))
		done <- err
	}()
	poll(t, func() bool { return s.ep.pending.len() == 1 })
	_ = lc.Close()
	if err := <-done; !errors.Is(err, ErrChannelClosed) {
		t.Fatalf("closed: %v", err)
	}
	if resp, err := lc.Invoke(ctxT(t, 5*time.Second), codec.NewRequest(testCodeEcho, map[string]string{"k": "again"}, nil)); err != nil || resp.Ext("k") != "again" {
		t.Fatalf("reopen: %v %+v", err, resp)
	}
}

// poll waits up to 10 s for cond.
func poll(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("condition not met in time")
		}
	}
}
