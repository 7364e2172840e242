package remoting

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

const (
	testCodeEcho  int32 = 1001
	testCodeBlock int32 = 1002
	testCodePanic int32 = 1003
)

// echo answers SUCCESS with the request's "k" ext field and body.
var echo = ProcessorFunc(func(_ *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	resp := codec.NewResponse(code.Success, "")
	resp.ExtFields = map[string]string{"k": req.Ext("k")}
	resp.Body = req.Body
	return resp, nil
})

func testServerConfig() *NettyServerConfig {
	cfg := NewNettyServerConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	cfg.ServerSelectorThreads = 2
	return cfg
}

// startServer starts a server after setup registered its processors.
func startServer(t *testing.T, cfg *NettyServerConfig, setup func(s *Server)) *Server {
	t.Helper()
	if cfg == nil {
		cfg = testServerConfig()
	}
	s, err := NewServer(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(s)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return s
}

func newTestClient(t *testing.T) *Client {
	t.Helper()
	c := NewClient(nil, zaptest.NewLogger(t))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := c.Shutdown(ctx); err != nil {
			t.Errorf("client shutdown: %v", err)
		}
	})
	return c
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// rawConn is a bare TCP connection speaking frames by hand.
type rawConn struct {
	t *testing.T
	net.Conn
}

func dialRaw(t *testing.T, addr net.Addr) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{t: t, Conn: c}
}

func (r *rawConn) send(cmd *codec.RemotingCommand) {
	r.t.Helper()
	b, err := codec.Encode(cmd)
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.Write(b); err != nil {
		r.t.Fatal(err)
	}
}

// recv reads one frame within 5 s (scaled by wait.Scale).
func (r *rawConn) recv() (*codec.RemotingCommand, error) {
	_ = r.SetReadDeadline(time.Now().Add(wait.Scale(5 * time.Second)))
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	frame := make([]byte, 4+binary.BigEndian.Uint32(hdr[:]))
	copy(frame, hdr[:])
	if _, err := io.ReadFull(r, frame[4:]); err != nil {
		return nil, err
	}
	return codec.Decode(frame)
}

// eventRecorder is a ChannelEventListener keeping what it saw.
type eventRecorder struct {
	mu     sync.Mutex
	events []string
	chans  []*Channel
}

func (e *eventRecorder) add(kind string, ch *Channel) {
	e.mu.Lock()
	e.events = append(e.events, kind)
	e.chans = append(e.chans, ch)
	e.mu.Unlock()
}

func (e *eventRecorder) OnChannelConnect(ch *Channel) { e.add("connect", ch) }
func (e *eventRecorder) OnChannelClose(ch *Channel)   { e.add("close", ch) }
func (e *eventRecorder) OnChannelIdle(ch *Channel)    { e.add("idle", ch) }

func (e *eventRecorder) snapshot() ([]string, []*Channel) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.events...), append([]*Channel(nil), e.chans...)
}
