package remoting

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestRemotingServerInvokesClient: a broker-style request (CHECK_TRANSACTION_STATE)
// travels server→client on the client's connection and the reply is matched by opaque.
func TestRemotingServerInvokesClient(t *testing.T) {
	rec := &eventRecorder{}
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 16))
		s.SetChannelEventListener(rec)
	})
	c := newTestClient(t)
	c.RegisterProcessor(code.CheckTransactionState, ProcessorFunc(func(_ *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		resp := codec.NewResponse(code.Success, "checked "+req.Ext("tx"))
		return resp, nil
	}), NewPool("client", 2, 16))
	if _, err := c.InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(), codec.NewRequest(testCodeEcho, nil, nil)); err != nil {
		t.Fatal(err)
	}
	var ch *Channel
	wait.Eventually(t, 5*time.Second, func() error {
		_, chans := rec.snapshot()
		if len(chans) == 0 {
			return errors.New("no connect event")
		}
		ch = chans[0]
		return nil
	})
	for i := range 5 {
		tx := strconv.Itoa(i)
		resp, err := ch.InvokeSync(ctxT(t, 5*time.Second), codec.NewRequest(code.CheckTransactionState, map[string]string{"tx": tx}, nil))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Remark != "checked "+tx || resp.Code != code.Success {
			t.Fatalf("reply %d: code %d remark %q", i, resp.Code, resp.Remark)
		}
	}
	// Oneway server→client (e.g. NOTIFY_CONSUMER_IDS_CHANGED) does not break the connection.
	if err := ch.InvokeOneway(codec.NewRequest(code.CheckTransactionState, nil, nil)); err != nil {
		t.Fatal(err)
	}
	if n := s.ep.pending.len(); n != 0 {
		t.Fatalf("server pending table has %d entries", n)
	}
}

func TestRemotingClientDropsUnknownOpaqueReply(t *testing.T) {
	rec := &eventRecorder{}
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, ProcessorFunc(func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			stray := codec.NewResponse(code.Success, "stray")
			stray.Opaque = req.Opaque + 1_000_000
			if err := ctx.Channel.WriteCommand(stray); err != nil {
				return nil, err
			}
			return echo(ctx, req)
		}), NewPool("echo", 1, 16))
		s.SetChannelEventListener(rec)
	})
	c := newTestClient(t)
	for i := range 3 {
		resp, err := c.InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(), codec.NewRequest(testCodeEcho, map[string]string{"k": fmt.Sprint(i)}, nil))
		if err != nil || resp.Ext("k") != fmt.Sprint(i) {
			t.Fatalf("request %d after stray replies: %+v %v", i, resp, err)
		}
	}
	if ev, _ := rec.snapshot(); slices.Contains(ev, "close") {
		t.Fatalf("stray reply closed the connection: %v", ev)
	}
}

func TestRemotingInvokeAsyncTimeout(t *testing.T) {
	b := newBlocker()
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeBlock, b, NewPool("block", 1, 4))
	})
	defer close(b.release)
	c := newTestClient(t)
	errc := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := c.InvokeAsync(ctx, s.Addr().String(), codec.NewRequest(testCodeBlock, nil, nil),
		func(resp *codec.RemotingCommand, err error) { errc <- err }); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("callback err %v, want ErrTimeout", err)
		}
	case <-time.After(wait.Scale(5 * time.Second)):
		t.Fatal("async callback never called")
	}
}

func TestRemotingInvokeSyncTimeoutClosesChannel(t *testing.T) {
	b := newBlocker()
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeBlock, b, NewPool("block", 1, 4))
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 4))
	})
	defer close(b.release)
	c := newTestClient(t)
	addr := s.Addr().String()
	first, err := c.Channel(ctxT(t, 5*time.Second), addr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.InvokeSync(ctxT(t, 100*time.Millisecond), addr, codec.NewRequest(testCodeBlock, nil, nil))
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want ErrTimeout wrapping DeadlineExceeded", err)
	}
	if !first.IsClosed() {
		t.Fatal("channel left open after a sync timeout (clientCloseSocketIfTimeout)")
	}
	resp, err := c.InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeEcho, nil, nil))
	if err != nil || resp.Code != code.Success {
		t.Fatalf("after redial: %+v %v", resp, err)
	}
}

func TestRemotingClientReconnectsAfterServerRestart(t *testing.T) {
	setup := func(s *Server) { s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 16)) }
	cfg := testServerConfig()
	s1, err := NewServer(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	setup(s1)
	if err := s1.Start(); err != nil {
		t.Fatal(err)
	}
	addr := s1.Addr().String()
	c := newTestClient(t)
	if _, err := c.InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeEcho, nil, nil)); err != nil {
		t.Fatal(err)
	}
	if err := s1.Shutdown(ctxT(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeEcho, nil, nil)); err == nil {
		t.Fatal("request to a stopped server succeeded")
	}
	cfg2 := testServerConfig()
	cfg2.ListenAddr = addr
	startServer(t, cfg2, setup)
	wait.Eventually(t, 5*time.Second, func() error {
		resp, err := c.InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeEcho, map[string]string{"k": "again"}, nil))
		if err != nil {
			return err
		}
		if resp.Ext("k") != "again" {
			return fmt.Errorf("ext %v", resp.ExtFields)
		}
		return nil
	})
}

func TestRemotingConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	_, err = newTestClient(t).InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeEcho, nil, nil))
	if !errors.Is(err, ErrConnect) {
		t.Fatalf("err %v, want ErrConnect", err)
	}
}

func TestRemotingGracefulShutdownFinishesInflight(t *testing.T) {
	b := newBlocker()
	rec := &eventRecorder{}
	cfg := testServerConfig()
	s, err := NewServer(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	pool := NewPool("block", 1, 4)
	s.RegisterProcessor(testCodeBlock, b, pool)
	s.SetChannelEventListener(rec)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t)
	respc := make(chan *codec.RemotingCommand, 1)
	go func() {
		resp, err := c.InvokeSync(ctxT(t, 10*time.Second), s.Addr().String(), codec.NewRequest(testCodeBlock, nil, nil))
		if err != nil {
			t.Error(err)
		}
		respc <- resp
	}()
	<-b.started
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(ctxT(t, 10*time.Second)) }()
	time.Sleep(50 * time.Millisecond) // give Shutdown the chance to (wrongly) cut the connection
	close(b.release)
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	if resp := <-respc; resp == nil || resp.Code != code.Success || resp.Remark != "released" {
		t.Fatalf("in-flight request answered %+v", resp)
	}
	if err := s.Shutdown(ctxT(t, time.Second)); err != nil {
		t.Fatalf("second shutdown: %v", err)
	}
	if pool.Submit(func() {}) {
		t.Fatal("pool still accepts tasks after shutdown")
	}
	if ev, _ := rec.snapshot(); !slices.Equal(ev, []string{"connect", "close"}) {
		t.Fatalf("events %v, want connect then close", ev)
	}
}

func TestRemotingIdleChannelClosed(t *testing.T) {
	rec := &eventRecorder{}
	cfg := testServerConfig()
	cfg.ServerChannelMaxIdleTimeSeconds = 1
	s := startServer(t, cfg, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 16))
		s.SetChannelEventListener(rec)
	})
	c := newTestClient(t)
	ch, err := c.Channel(ctxT(t, 5*time.Second), s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.InvokeSync(ctxT(t, 5*time.Second), codec.NewRequest(testCodeEcho, nil, nil)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch.Done():
	case <-time.After(wait.Scale(10 * time.Second)):
		t.Fatal("idle connection not closed by the server")
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if ev, _ := rec.snapshot(); !slices.Equal(ev, []string{"connect", "idle", "close"}) {
			return fmt.Errorf("events %v", ev)
		}
		return nil
	})
}

func TestRemotingPoolSharedBetweenServers(t *testing.T) {
	pool := NewPool("shared", 1, 16)
	setup := func(s *Server) { s.RegisterProcessor(testCodeEcho, echo, pool) }
	s1 := startServer(t, nil, setup)
	s2 := startServer(t, nil, setup)
	if err := s1.Shutdown(ctxT(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := newTestClient(t).InvokeSync(ctxT(t, 5*time.Second), s2.Addr().String(), codec.NewRequest(testCodeEcho, nil, nil))
	if err != nil || resp.Code != code.Success {
		t.Fatalf("second server after the first stopped: %+v %v", resp, err)
	}
}
