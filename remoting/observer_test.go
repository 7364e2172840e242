package remoting

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

type rpcRecorder struct {
	mu   sync.Mutex
	recs []RPCRecord
}

func (r *rpcRecorder) observe(rec RPCRecord) {
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.mu.Unlock()
}

func (r *rpcRecorder) find(reqCode int32) (RPCRecord, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rec := range r.recs {
		if rec.RequestCode == reqCode {
			return rec, true
		}
	}
	return RPCRecord{}, false
}

// The observer sees each answered request with its request and response
// codes, on the pool path, the inline path, the deferred path and for
// codes nobody serves; a request its processor parked is marked suspended.
func TestServerRPCObserverReportsAnswers(t *testing.T) {
	const (
		codeInline   int32 = 1010
		codeDeferred int32 = 1011
		codeUnknown  int32 = 1012
	)
	rec := &rpcRecorder{}
	s := startServer(t, nil, func(s *Server) {
		pool := NewPool("obs", 2, 16)
		s.RegisterProcessor(testCodeEcho, echo, pool)
		s.RegisterProcessor(codeInline, InlineProcessorFunc(func(*Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			return codec.NewResponse(code.TopicNotExist, ""), nil
		}), pool)
		s.RegisterProcessor(codeDeferred, ProcessorFunc(func(ctx *Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			ctx.MarkSuspended()
			go func() {
				time.Sleep(20 * time.Millisecond) // answered after the processor returned, as a suspended pull
				ctx.Respond(codec.NewResponse(code.PullNotFound, ""))
			}()
			return nil, nil
		}), pool)
		s.SetRPCObserver(rec.observe)
	})
	c := newTestClient(t)
	addr := s.Addr().String()
	for _, rc := range []int32{testCodeEcho, codeInline, codeDeferred, codeUnknown} {
		if _, err := c.InvokeSync(ctxT(t, 5*time.Second), addr, codec.NewRequest(rc, nil, nil)); err != nil {
			t.Fatalf("code %d: %v", rc, err)
		}
	}
	want := map[int32]struct {
		resp      int32
		suspended bool
	}{
		testCodeEcho: {code.Success, false},
		codeInline:   {code.TopicNotExist, false},
		codeDeferred: {code.PullNotFound, true},
		codeUnknown:  {code.RequestCodeNotSupported, false},
	}
	for rc, w := range want {
		wait.Eventually(t, 5*time.Second, func() error {
			if _, ok := rec.find(rc); !ok {
				return errors.New("not reported yet")
			}
			return nil
		})
		got, _ := rec.find(rc)
		if got.ResponseCode != w.resp || got.Suspended != w.suspended || got.Oneway || got.WriteFailed || got.Latency <= 0 {
			t.Errorf("code %d: got %+v, want response %d suspended %v", rc, got, w.resp, w.suspended)
		}
	}
	if got, _ := rec.find(codeDeferred); got.Latency < 20*time.Millisecond {
		t.Errorf("deferred latency %v, want >= 20ms (until the answer)", got.Latency)
	}
}
