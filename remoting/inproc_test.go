package remoting

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestInProcServeConnAndDialer: a client whose dialer hands out one end of
// a net.Pipe served by Server.ServeConn gets answers from the server's
// processors, and the server can call the client back on that channel.
func TestInProcServeConnAndDialer(t *testing.T) {
	back := make(chan *Channel, 1)
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, ProcessorFunc(func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			select {
			case back <- ctx.Channel:
			default:
			}
			return echo(ctx, req)
		}), NewPool("test", 2, 16))
	})
	c := NewClient(NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	dialed := 0
	c.SetDialer(func(_ context.Context, addr string) (net.Conn, error) {
		if addr != "inproc" {
			return nil, nil // TCP
		}
		dialed++
		cli, srv := net.Pipe()
		return cli, s.ServeConn(srv)
	})
	c.RegisterProcessor(testCodeBlock, ProcessorFunc(func(_ *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		return codec.NewResponse(code.Success, "client:"+req.Ext("k")), nil
	}), NewPool("testClient", 1, 16))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := range 3 {
		resp, err := c.InvokeSync(ctx, "inproc", codec.NewRequest(testCodeEcho, map[string]string{"k": "v"}, []byte("body")))
		if err != nil || resp.Ext("k") != "v" || string(resp.Body) != "body" {
			t.Fatalf("call %d: %v %+v", i, err, resp)
		}
	}
	if dialed != 1 {
		t.Fatalf("dialled %d times, want 1 (one channel reused)", dialed)
	}
	srvCh := <-back
	resp, err := srvCh.InvokeSync(ctx, codec.NewRequest(testCodeBlock, map[string]string{"k": "x"}, nil))
	if err != nil || resp.Remark != "client:x" {
		t.Fatalf("server to client: %v %+v", err, resp)
	}
	// TCP still works for other addresses.
	if resp, err := c.InvokeSync(ctx, s.Addr().String(), codec.NewRequest(testCodeEcho, map[string]string{"k": "tcp"}, nil)); err != nil || resp.Ext("k") != "tcp" {
		t.Fatalf("tcp: %v %+v", err, resp)
	}
}

// TestRemotingInvokeSyncCancelKeepsChannel: a cancelled call (the caller
// gave up; no deadline passed) ends only itself: the connection stays open
// for the calls sharing it.
func TestRemotingInvokeSyncCancelKeepsChannel(t *testing.T) {
	b := newBlocker()
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeBlock, b, NewPool("block", 1, 4))
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 4))
	})
	defer close(b.release)
	c := NewClient(NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	addr := s.Addr().String()
	first, err := c.Channel(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := c.InvokeSync(ctx, addr, codec.NewRequest(testCodeBlock, nil, nil)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want one wrapping context.Canceled", err)
	}
	if first.IsClosed() {
		t.Fatal("a cancelled call closed the shared channel")
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if resp, err := c.InvokeSync(ctx2, addr, codec.NewRequest(testCodeEcho, nil, nil)); err != nil || resp.Code != code.Success {
		t.Fatalf("after the cancelled call: %+v %v", resp, err)
	}
}
