package remoting

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

const (
	testCodeInline     int32 = 1010
	testCodeNotInline  int32 = 1011
	testCodeInlineLate int32 = 1012
)

// selectiveInline runs inline only for testCodeInline and testCodeInlineLate.
type selectiveInline struct{ Processor }

func (selectiveInline) Inline(c int32) bool { return c == testCodeInline || c == testCodeInlineLate }

// inlineErrors answers by the "do" ext field: echo, wire error, plain error,
// panic, or a response sent later from another goroutine.
var inlineErrors = ProcessorFunc(func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	switch req.Ext("do") {
	case "wire":
		return nil, NewError(code.TopicNotExist, "topic[x] not exist")
	case "plain":
		return nil, errors.New("disk on fire")
	case "panic":
		panic("boom inline")
	case "late":
		go ctx.Respond(codec.NewResponse(code.Success, "late"))
		return nil, nil
	}
	return echo(ctx, req)
})

// startBlockedPoolServer registers p on a one-worker, zero-queue pool whose
// worker is parked, so only inline requests can be answered.
func startBlockedPoolServer(t *testing.T, p Processor) *Server {
	b := newBlocker()
	s := startServer(t, nil, func(s *Server) {
		pool := NewPool("blocked", 1, 0)
		s.RegisterProcessor(testCodeBlock, b, pool)
		s.RegisterProcessor(testCodeInline, p, pool)
		s.RegisterProcessor(testCodeNotInline, p, pool)
		s.RegisterProcessor(testCodeInlineLate, p, pool)
	})
	t.Cleanup(func() { close(b.release) }) // runs before the server's shutdown
	// The pool's one worker may not be parked on its zero-capacity queue yet
	// when the first request arrives (a loaded machine starts goroutines
	// late); the server then answers SYSTEM_BUSY and the blocker never runs.
	// Send again on each SYSTEM_BUSY until the worker takes the request.
	r := dialRaw(t, s.Addr())
	busy := make(chan struct{}, 1)
	go func() {
		for {
			resp, err := r.recv()
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			if err != nil {
				return // the connection is closed by the test's cleanup
			}
			if resp.Code == code.SystemBusy {
				select {
				case busy <- struct{}{}:
				default:
				}
			}
		}
	}()
	deadline := time.After(wait.Scale(5 * time.Second))
	for {
		r.send(codec.NewRequest(testCodeBlock, nil, nil))
		select {
		case <-b.started:
			return s
		case <-busy:
		case <-deadline:
			t.Fatal("blocker did not start")
		}
	}
}

func TestRemotingInlineBypassesPoolAndBatches(t *testing.T) {
	s := startBlockedPoolServer(t, selectiveInline{echo})
	r := dialRaw(t, s.Addr())
	var batch []byte
	for i := range 100 {
		req := codec.NewRequest(testCodeInline, map[string]string{"k": fmt.Sprint(i)}, nil)
		req.Opaque = int32(i + 1)
		if i%2 == 1 {
			req.SerializeType = codec.RocketMQ
		}
		var err error
		if batch, err = codec.AppendFrame(batch, req); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Write(batch); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		resp, err := r.recv()
		if err != nil {
			t.Fatal(err)
		}
		want := codec.JSON
		if i%2 == 1 {
			want = codec.RocketMQ
		}
		if resp.Opaque != int32(i+1) || resp.Ext("k") != fmt.Sprint(i) || !resp.IsResponse() || resp.SerializeType != want {
			t.Fatalf("response %d: opaque %d ext %v response %v serialize %v", i, resp.Opaque, resp.ExtFields, resp.IsResponse(), resp.SerializeType)
		}
	}
	// A code the processor does not declare inline still goes to the (full) pool.
	resp, err := newTestClient(t).InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(), codec.NewRequest(testCodeNotInline, nil, nil))
	if err != nil || resp.Code != code.SystemBusy {
		t.Fatalf("non-inline code: %v %v", resp, err)
	}
}

func TestRemotingInlineErrorsOnewayAndLateResponse(t *testing.T) {
	s := startBlockedPoolServer(t, selectiveInline{inlineErrors})
	c := newTestClient(t)
	cases := []struct {
		do     string
		code   int32
		remark string
		ser    codec.SerializeType
	}{
		{"wire", code.TopicNotExist, "topic[x] not exist", codec.RocketMQ},
		{"plain", code.SystemError, "disk on fire", codec.JSON},
		{"panic", code.SystemError, "boom inline", codec.JSON},
		{"late", code.Success, "late", codec.RocketMQ},
		{"echo", code.Success, "", codec.RocketMQ},
	}
	for _, tc := range cases {
		t.Run(tc.do, func(t *testing.T) {
			req := codec.NewRequest(testCodeInline, map[string]string{"do": tc.do}, nil)
			req.SerializeType = codec.RocketMQ
			resp, err := c.InvokeSync(ctxT(t, 5*time.Second), s.Addr().String(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Code != tc.code || resp.Remark != tc.remark || resp.SerializeType != tc.ser {
				t.Fatalf("got %d %q %v, want %d %q %v", resp.Code, resp.Remark, resp.SerializeType, tc.code, tc.remark, tc.ser)
			}
		})
	}
	r := dialRaw(t, s.Addr())
	ow := codec.NewRequest(testCodeInline, map[string]string{"k": "oneway"}, nil)
	ow.Opaque = 7
	ow.MarkOneway()
	next := codec.NewRequest(testCodeInline, map[string]string{"k": "next"}, nil)
	next.Opaque = 8
	r.send(ow)
	r.send(next)
	resp, err := r.recv()
	if err != nil || resp.Opaque != 8 || resp.Ext("k") != "next" {
		t.Fatalf("after oneway: %v %v", resp, err)
	}
}
