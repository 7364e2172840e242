package remoting

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func TestRemotingRoundTrip(t *testing.T) {
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 2, 16))
	})
	c := newTestClient(t)
	for _, st := range []codec.SerializeType{codec.JSON, codec.RocketMQ} {
		t.Run(st.String(), func(t *testing.T) {
			req := codec.NewRequest(testCodeEcho, map[string]string{"k": "v-" + st.String()}, []byte("body"))
			req.SerializeType = st
			resp, err := c.InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Code != code.Success || !resp.IsResponse() || resp.Opaque != req.Opaque {
				t.Fatalf("resp code %d flag %d opaque %d, want 0, response, %d", resp.Code, resp.Flag, resp.Opaque, req.Opaque)
			}
			if resp.SerializeType != st {
				t.Fatalf("resp serialize type %v, want the request's %v", resp.SerializeType, st)
			}
			if resp.Ext("k") != "v-"+st.String() || string(resp.Body) != "body" {
				t.Fatalf("resp ext %v body %q", resp.ExtFields, resp.Body)
			}
		})
	}
}

func TestRemotingForcedSerializeType(t *testing.T) {
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, ProcessorFunc(func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			ctx.ForceSerializeType(codec.JSON)
			return echo(ctx, req)
		}), NewPool("echo", 1, 16))
	})
	req := codec.NewRequest(testCodeEcho, nil, nil)
	req.SerializeType = codec.RocketMQ
	resp, err := newTestClient(t).InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.SerializeType != codec.JSON {
		t.Fatalf("resp serialize type %v, want forced JSON", resp.SerializeType)
	}
}

func TestRemotingPipelinedResponsesOneConnection(t *testing.T) {
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 4, 256))
	})
	r := dialRaw(t, s.Addr())
	var batch []byte
	for i := range 100 {
		req := codec.NewRequest(testCodeEcho, map[string]string{"k": fmt.Sprint(i)}, nil)
		req.Opaque = int32(i + 1)
		var err error
		if batch, err = codec.AppendFrame(batch, req); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Write(batch); err != nil { // all frames in one segment
		t.Fatal(err)
	}
	seen := map[int32]bool{}
	for range 100 {
		resp, err := r.recv()
		if err != nil {
			t.Fatal(err)
		}
		if resp.Ext("k") != fmt.Sprint(resp.Opaque-1) || seen[resp.Opaque] {
			t.Fatalf("opaque %d ext %v (dup %v)", resp.Opaque, resp.ExtFields, seen[resp.Opaque])
		}
		seen[resp.Opaque] = true
	}
}

func TestRemotingOversizeFrameClosesOnlyItsConnection(t *testing.T) {
	cfg := testServerConfig()
	cfg.MaxFrameLength = 4096
	s := startServer(t, cfg, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 16))
	})
	good := dialRaw(t, s.Addr())
	cases := map[string]uint32{"oversize": 1 << 20, "impossible header length": 1}
	for name, length := range cases {
		t.Run(name, func(t *testing.T) {
			bad := dialRaw(t, s.Addr())
			var hdr [8]byte
			binary.BigEndian.PutUint32(hdr[:], length)
			if _, err := bad.Write(hdr[:]); err != nil {
				t.Fatal(err)
			}
			if _, err := bad.recv(); !errors.Is(err, io.EOF) && !isConnReset(err) {
				t.Fatalf("bad connection read: %v, want EOF", err)
			}
			good.send(codec.NewRequest(testCodeEcho, map[string]string{"k": name}, nil))
			resp, err := good.recv()
			if err != nil || resp.Ext("k") != name {
				t.Fatalf("other connection: %v %v", resp, err)
			}
		})
	}
}

func isConnReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

func TestRemotingUnknownCode(t *testing.T) {
	s := startServer(t, nil, nil)
	resp, err := newTestClient(t).InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(), codec.NewRequest(9999, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Code != code.RequestCodeNotSupported || resp.Remark != " request type 9999 not supported" {
		t.Fatalf("got code %d remark %q", resp.Code, resp.Remark)
	}
}

func TestRemotingDefaultProcessor(t *testing.T) {
	s := startServer(t, nil, func(s *Server) {
		s.RegisterDefaultProcessor(echo, NewPool("default", 1, 16))
	})
	resp, err := newTestClient(t).InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(),
		codec.NewRequest(4242, map[string]string{"k": "d"}, nil))
	if err != nil || resp.Code != code.Success || resp.Ext("k") != "d" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

func TestRemotingProcessorErrors(t *testing.T) {
	s := startServer(t, nil, func(s *Server) {
		pool := NewPool("p", 2, 16)
		s.RegisterProcessor(testCodePanic, ProcessorFunc(func(*Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			panic("boom in processor")
		}), pool)
		s.RegisterProcessor(testCodeBlock, ProcessorFunc(func(_ *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			if req.Ext("wire") == "true" {
				return nil, NewError(code.TopicNotExist, "topic[x] not exist")
			}
			return nil, errors.New("disk on fire")
		}), pool)
		s.RegisterProcessor(testCodeEcho, echo, pool)
	})
	c := newTestClient(t)
	cases := []struct {
		name   string
		req    *codec.RemotingCommand
		code   int32
		remark string
	}{
		{"panic", codec.NewRequest(testCodePanic, nil, nil), code.SystemError, "boom in processor"},
		{"wire error", codec.NewRequest(testCodeBlock, map[string]string{"wire": "true"}, nil), code.TopicNotExist, "topic[x] not exist"},
		{"plain error", codec.NewRequest(testCodeBlock, nil, nil), code.SystemError, "disk on fire"},
		{"after them", codec.NewRequest(testCodeEcho, nil, nil), code.Success, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := c.InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Code != tc.code || !strings.Contains(resp.Remark, tc.remark) {
				t.Fatalf("got code %d remark %q, want %d containing %q", resp.Code, resp.Remark, tc.code, tc.remark)
			}
		})
	}
}

// blocker is a processor that parks until release is closed.
type blocker struct {
	started chan struct{}
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{started: make(chan struct{}, 100), release: make(chan struct{})}
}

func (b *blocker) ProcessRequest(*Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	b.started <- struct{}{}
	<-b.release
	return codec.NewResponse(code.Success, "released"), nil
}

func TestRemotingPoolFullSystemBusy(t *testing.T) {
	b := newBlocker()
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeBlock, b, NewPool("block", 1, 1))
	})
	c := newTestClient(t)
	addr := s.Addr().String()
	results := make(chan *codec.RemotingCommand, 2)
	for i := range 2 { // one runs, then one waits in the queue
		if i == 1 {
			<-b.started
		}
		if err := c.InvokeAsync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeBlock, nil, nil),
			func(r *codec.RemotingCommand, err error) {
				if err != nil {
					t.Error(err)
				}
				results <- r
			}); err != nil {
			t.Fatal(err)
		}
	}
	var resp *codec.RemotingCommand
	wait.Eventually(t, 5*time.Second, func() error { // the second must have reached the queue
		var err error
		resp, err = c.InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeBlock, nil, nil))
		if err != nil {
			return err
		}
		if resp.Code != code.SystemBusy {
			return fmt.Errorf("code %d", resp.Code)
		}
		return nil
	})
	if resp.Remark != "[OVERLOAD]system busy, start flow control for a while" {
		t.Fatalf("remark %q", resp.Remark)
	}
	close(b.release)
	for range 2 {
		if r := <-results; r == nil || r.Code != code.Success {
			t.Fatalf("blocked request answered %+v", r)
		}
	}
}

func TestRemotingSlowProcessorDoesNotDelayOtherConnection(t *testing.T) {
	b := newBlocker()
	s := startServer(t, nil, func(s *Server) {
		pool := NewPool("shared", 4, 64)
		s.RegisterProcessor(testCodeBlock, b, pool)
		s.RegisterProcessor(testCodeEcho, echo, pool)
	})
	slow, fast := newTestClient(t), newTestClient(t)
	addr := s.Addr().String()
	done := make(chan error, 1)
	if err := slow.InvokeAsync(ctxT(t, 10*time.Second), addr, codec.NewRequest(testCodeBlock, nil, nil),
		func(_ *codec.RemotingCommand, err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	<-b.started
	for i := range 20 {
		resp, err := fast.InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(testCodeEcho, map[string]string{"k": fmt.Sprint(i)}, nil))
		if err != nil || resp.Ext("k") != fmt.Sprint(i) {
			t.Fatalf("fast request %d: %v %v", i, resp, err)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("slow request finished before release: %v", err)
	default:
	}
	close(b.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRemotingOnewayGetsNoReply(t *testing.T) {
	var calls atomic.Int32
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, ProcessorFunc(func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			calls.Add(1)
			return echo(ctx, req)
		}), NewPool("one", 1, 16)) // one worker: requests run in arrival order
	})
	r := dialRaw(t, s.Addr())
	ow := codec.NewRequest(testCodeEcho, map[string]string{"k": "oneway"}, nil)
	ow.Opaque, ow.Flag = 7, codec.FlagOneway
	r.send(ow)
	req := codec.NewRequest(testCodeEcho, map[string]string{"k": "sync"}, nil)
	req.Opaque = 8
	r.send(req)
	resp, err := r.recv()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Opaque != 8 || resp.Ext("k") != "sync" {
		t.Fatalf("first frame back has opaque %d ext %v: the oneway request was answered", resp.Opaque, resp.ExtFields)
	}
	if calls.Load() != 2 {
		t.Fatalf("processor ran %d times, want 2", calls.Load())
	}
	// Through the client API too: the oneway call returns and the processor runs.
	c := newTestClient(t)
	if err := c.InvokeOneway(ctxT(t, 5*time.Second), s.Addr().String(), codec.NewRequest(testCodeEcho, nil, nil)); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if calls.Load() != 3 {
			return fmt.Errorf("calls %d", calls.Load())
		}
		return nil
	})
}

func TestRemotingDeferredRespond(t *testing.T) {
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, ProcessorFunc(func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			go func() {
				time.Sleep(20 * time.Millisecond)
				resp, _ := echo(ctx, req)
				ctx.Respond(resp)
				ctx.Respond(codec.NewResponse(code.SystemError, "second answer must be dropped"))
			}()
			return nil, nil
		}), NewPool("later", 1, 16))
	})
	r := dialRaw(t, s.Addr())
	for i := range 3 {
		req := codec.NewRequest(testCodeEcho, map[string]string{"k": fmt.Sprint(i)}, nil)
		req.Opaque = int32(100 + i)
		r.send(req)
		resp, err := r.recv()
		if err != nil {
			t.Fatal(err)
		}
		if resp.Opaque != int32(100+i) || resp.Code != code.Success || resp.Ext("k") != fmt.Sprint(i) {
			t.Fatalf("deferred response %d: opaque %d code %d ext %v", i, resp.Opaque, resp.Code, resp.ExtFields)
		}
	}
}

func TestRemotingUnknownOpaqueReplyDropped(t *testing.T) {
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 16))
	})
	r := dialRaw(t, s.Addr())
	stray := codec.NewResponse(code.Success, "nobody asked")
	stray.Opaque = 424242
	r.send(stray)
	req := codec.NewRequest(testCodeEcho, map[string]string{"k": "after"}, nil)
	req.Opaque = 5
	r.send(req)
	resp, err := r.recv()
	if err != nil || resp.Opaque != 5 || resp.Ext("k") != "after" {
		t.Fatalf("after stray reply: %+v %v", resp, err)
	}
	if n := s.ep.pending.len(); n != 0 {
		t.Fatalf("pending table has %d entries", n)
	}
}

func TestRemotingConnectionCloseFailsPendingCall(t *testing.T) {
	b := newBlocker()
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeBlock, b, NewPool("block", 1, 4))
	})
	defer close(b.release)
	c := newTestClient(t)
	errc := make(chan error, 1)
	go func() {
		_, err := c.InvokeSync(ctxT(t, 10*time.Second), s.Addr().String(), codec.NewRequest(testCodeBlock, nil, nil))
		errc <- err
	}()
	<-b.started
	for _, ch := range s.Channels() {
		_ = ch.Close()
	}
	if err := <-errc; !errors.Is(err, ErrChannelClosed) {
		t.Fatalf("err %v, want ErrChannelClosed", err)
	}
}

func TestRemotingServerBindError(t *testing.T) {
	s := startServer(t, nil, nil)
	cfg := testServerConfig()
	cfg.ListenAddr = "256.0.0.1:1"
	s2, err := NewServer(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Start(); err == nil {
		t.Fatal("start on a bad address succeeded")
	}
	_ = s
}

func TestRemotingLargeFrame(t *testing.T) {
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 16))
	})
	body := bytes.Repeat([]byte("0123456789abcdef"), 256<<10) // 4 MiB
	resp, err := newTestClient(t).InvokeSync(ctxT(t, 10*time.Second), s.Addr().String(), codec.NewRequest(testCodeEcho, nil, body))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(resp.Body, body) {
		t.Fatalf("body of %d bytes came back as %d bytes", len(body), len(resp.Body))
	}
}

func TestRemotingFrameSplitAcrossWrites(t *testing.T) {
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 16))
	})
	r := dialRaw(t, s.Addr())
	var frames []byte
	for i := range 3 {
		req := codec.NewRequest(testCodeEcho, map[string]string{"k": fmt.Sprint(i)}, bytes.Repeat([]byte{'x'}, 100))
		req.Opaque = int32(i + 1)
		var err error
		if frames, err = codec.AppendFrame(frames, req); err != nil {
			t.Fatal(err)
		}
	}
	for p := 0; p < len(frames); p += 7 { // 7-byte pieces: prefixes and headers split too
		if _, err := r.Write(frames[p:min(p+7, len(frames))]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		resp, err := r.recv()
		if err != nil || resp.Opaque != int32(i+1) || resp.Ext("k") != fmt.Sprint(i) || len(resp.Body) != 100 {
			t.Fatalf("response %d: %+v %v", i, resp, err)
		}
	}
}

func TestRemotingGarbageHeaderClosesConnection(t *testing.T) {
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 16))
	})
	bad := dialRaw(t, s.Addr())
	garbage := []byte{0, 0, 0, 12, 0, 0, 0, 8, '{', 'x', 'x', 'x', 'x', 'x', 'x', '}'}
	if _, err := bad.Write(garbage); err != nil {
		t.Fatal(err)
	}
	if _, err := bad.recv(); !errors.Is(err, io.EOF) && !isConnReset(err) {
		t.Fatalf("garbage header: read %v, want the connection closed", err)
	}
	resp, err := newTestClient(t).InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(), codec.NewRequest(testCodeEcho, nil, nil))
	if err != nil || resp.Code != code.Success {
		t.Fatalf("server after garbage: %+v %v", resp, err)
	}
}

func TestRemotingShutdownBeforeStartReleasesPools(t *testing.T) {
	pool := NewPool("unused", 1, 1)
	s, err := NewServer(testServerConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.RegisterProcessor(testCodeEcho, echo, pool)
	if err := s.Shutdown(ctxT(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if pool.Submit(func() {}) {
		t.Fatal("pool still running after its only server shut down")
	}
}

// Java answers REQUEST_CODE_NOT_SUPPORTED even to a oneway request.
func TestRemotingUnknownCodeOnewayStillAnswered(t *testing.T) {
	s := startServer(t, nil, nil)
	r := dialRaw(t, s.Addr())
	req := codec.NewRequest(777, nil, nil)
	req.Opaque, req.Flag = 31, codec.FlagOneway
	r.send(req)
	resp, err := r.recv()
	if err != nil || resp.Opaque != 31 || resp.Code != code.RequestCodeNotSupported || resp.Remark != " request type 777 not supported" {
		t.Fatalf("got %+v %v", resp, err)
	}
}
