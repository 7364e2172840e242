package remoting

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestRemotingBatchesAnswersQueuedWhileLoopBusy: answers that pool workers
// complete for one connection while its event loop is busy leave together
// with that loop's own (inline) answers in a single socket write, and every
// one of them reaches the client.
func TestRemotingBatchesAnswersQueuedWhileLoopBusy(t *testing.T) {
	const n = 16
	var ep *endpoint // set by setup, before Start
	// The inline request runs on the event loop after the n pooled ones were
	// dispatched, and keeps the loop busy until every pooled answer is
	// queued on the channel (the endpoint's task count drops to zero once
	// run has handed its answer over).
	holdLoop := InlineProcessorFunc(func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		deadline := time.Now().Add(wait.Scale(5 * time.Second))
		for ep.tasks.Load() > 0 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Microsecond)
		}
		return echo(ctx, req)
	})
	srv := startServer(t, nil, func(s *Server) {
		ep = s.ep
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", n, 64))
		s.RegisterProcessor(testCodeInline, holdLoop, NewPool("inline", 1, 1))
	})
	r := dialRaw(t, srv.Addr())
	var batch []byte
	for i := range n + 1 {
		c := testCodeEcho
		if i == n {
			c = testCodeInline
		}
		req := codec.NewRequest(c, map[string]string{"k": fmt.Sprint(i)}, []byte(fmt.Sprint("body-", i)))
		req.Opaque = int32(i + 1)
		var err error
		if batch, err = codec.AppendFrame(batch, req); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Write(batch); err != nil { // one segment: one OnTraffic
		t.Fatal(err)
	}
	seen := map[int32]bool{}
	for range n + 1 {
		resp, err := r.recv()
		if err != nil {
			t.Fatal(err)
		}
		i := resp.Opaque - 1
		if seen[resp.Opaque] || resp.Ext("k") != fmt.Sprint(i) || string(resp.Body) != fmt.Sprint("body-", i) {
			t.Fatalf("opaque %d: ext %v body %q (dup %v)", resp.Opaque, resp.ExtFields, resp.Body, seen[resp.Opaque])
		}
		seen[resp.Opaque] = true
	}
	chs := srv.Channels()
	if len(chs) != 1 {
		t.Fatalf("%d channels, want 1", len(chs))
	}
	// The loop counts a write after the syscall returns, so the client can
	// hold every answer a moment before the count moves.
	w := chs[0].writes.Load()
	for deadline := time.Now().Add(wait.Scale(5 * time.Second)); w == 0 && time.Now().Before(deadline); w = chs[0].writes.Load() {
		time.Sleep(time.Millisecond)
	}
	if w != 1 {
		t.Fatalf("%d answers left in %d socket writes, want 1", n+1, w)
	}
}

// TestRemotingOutOfOrderAnswersOneConnection: many requests in flight on one
// connection, completed by pool workers in scrambled order (and some inline
// on the event loop, some large enough to fill the socket buffer), are each
// answered exactly once with their own body.
func TestRemotingOutOfOrderAnswersOneConnection(t *testing.T) {
	const n = 600
	body := func(i int) []byte {
		size := 16 + i%7*97
		if i%50 == 0 {
			size = 256 << 10 // fills the socket buffer: gnet queues the rest
		}
		return bytes.Repeat([]byte{byte('a' + i%26)}, size)
	}
	scrambled := ProcessorFunc(func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		time.Sleep(time.Duration(req.Opaque*7919%13) * 100 * time.Microsecond)
		return echo(ctx, req)
	})
	srv := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, scrambled, NewPool("scrambled", 8, n))
		s.RegisterProcessor(testCodeInline, InlineProcessorFunc(echo), NewPool("inline", 1, 1))
	})
	r := dialRaw(t, srv.Addr())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // write while reading: the answers may fill the socket first
		defer wg.Done()
		for i := range n {
			c := testCodeEcho
			if i%5 == 0 {
				c = testCodeInline
			}
			req := codec.NewRequest(c, map[string]string{"k": fmt.Sprint(i)}, body(i))
			req.Opaque = int32(i + 1)
			b, err := codec.Encode(req)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := r.Write(b); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	defer wg.Wait()
	seen := make(map[int32]bool, n)
	for range n {
		resp, err := r.recv()
		if err != nil {
			t.Fatal(err)
		}
		i := int(resp.Opaque) - 1
		if i < 0 || i >= n || seen[resp.Opaque] {
			t.Fatalf("opaque %d unexpected (dup %v)", resp.Opaque, seen[resp.Opaque])
		}
		if resp.Code != code.Success || resp.Ext("k") != fmt.Sprint(i) || !bytes.Equal(resp.Body, body(i)) {
			t.Fatalf("opaque %d: code %d ext %v body of %d bytes, want %d", resp.Opaque, resp.Code, resp.ExtFields, len(resp.Body), len(body(i)))
		}
		seen[resp.Opaque] = true
	}
}

// TestRemotingDispatchReportsHandOff: a read whose frames went to other
// goroutines (a pool, or an inline processor that only queued the request)
// is reported, so that the event loop yields to them before it blocks in
// epoll_wait (yieldToHandedWork); a read answered entirely inline is not.
func TestRemotingDispatchReportsHandOff(t *testing.T) {
	deferred := InlineProcessorFunc(func(ctx *Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		go ctx.Respond(codec.NewResponse(code.Success, "later"))
		return nil, nil
	})
	srv := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 16))
		s.RegisterProcessor(testCodeInline, InlineProcessorFunc(echo), NewPool("inline", 1, 1))
		s.RegisterProcessor(testCodeInlineLate, deferred, NewPool("late", 1, 1))
	})
	ch := newChannel(srv.ep, "127.0.0.1:1", "127.0.0.1:2")
	ch.kick = func() {}
	ch.closeFn = func() error { return nil }
	for _, tc := range []struct {
		name  string
		codes []int32
		want  bool
	}{
		{"inline only", []int32{testCodeInline, testCodeInline}, false},
		{"pool", []int32{testCodeEcho}, true},
		{"inline then pool", []int32{testCodeInline, testCodeEcho}, true},
		{"inline, queued for later", []int32{testCodeInlineLate}, true},
	} {
		var data []byte
		for i, c := range tc.codes {
			req := codec.NewRequest(c, nil, nil)
			req.Opaque = int32(i + 1)
			var err error
			if data, err = codec.AppendFrame(data, req); err != nil {
				t.Fatal(err)
			}
		}
		if _, handed := dispatchFrames(srv.ep, ch, data); handed != tc.want {
			t.Errorf("%s: handed %v, want %v", tc.name, handed, tc.want)
		}
	}
}
