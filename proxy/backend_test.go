package proxy_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// heldPull is a PULL_MESSAGE on an empty queue that the broker holds for
// about a second (long polling) before answering PULL_NOT_FOUND.
func heldPull(topic string) *codec.RemotingCommand {
	h := &header.PullMessageRequestHeader{ConsumerGroup: "HoldGroup", Topic: topic, MaxMsgNums: 1,
		SysFlag: 0x2 | 0x4, SuspendTimeoutMillis: 1000, Subscription: "*", SubVersion: time.Now().UnixMilli(), ExpressionType: "TAG"}
	return codec.NewRequest(code.PullMessage, h.ToExtFields(), nil)
}

// TestProxyBackendCallerHangUpSparesConnection: a broker call whose caller
// goes away (its gRPC client hung up: the context is cancelled) does not
// close the connection the proxy shares with every other client; another
// call in flight on it still gets its answer. Likewise when the caller's
// deadline passes first.
func TestProxyBackendCallerHangUpSparesConnection(t *testing.T) {
	for name, gone := range map[string]func() context.Context{
		"cancelled": func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx
		},
		"deadline": func() context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			time.AfterFunc(time.Second, cancel)
			return ctx
		},
	} {
		t.Run(name, func(t *testing.T) { testCallerGone(t, gone) })
	}
}

func testCallerGone(t *testing.T, gone func() context.Context) {
	modes(t, func(t *testing.T, mode string) {
		e := startEnv(t, mode)
		e.createTopic(t, "HoldTopic", 1)
		addr := e.b.BrokerAddr()
		other := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			resp, err := e.be.Invoke(ctx, addr, heldPull("HoldTopic"))
			if err == nil && resp.Code != code.PullNotFound {
				err = &codeError{resp.Code}
			}
			other <- err
		}()
		if _, err := e.be.Invoke(gone(), addr, heldPull("HoldTopic")); err == nil {
			t.Fatal("cancelled call answered")
		}
		if err := <-other; err != nil {
			t.Fatalf("the other call failed: %v", err)
		}
	})
}

type codeError struct{ code int32 }

func (e *codeError) Error() string { return "unexpected response code " + strconv.Itoa(int(e.code)) }
