package broker_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// ckGate is a message-arriving listener that, once armed, holds the
// dispatcher on the next checkpoint record of the revive log until
// released: every record written after it (the ack) stays out of the
// consume queues meanwhile, as when the dispatcher falls behind on a
// loaded machine.
type ckGate struct {
	armed   atomic.Bool
	held    chan struct{} // closed when the dispatcher is held
	release chan struct{} // closed to let it go on
}

func (g *ckGate) Arriving(topic string, _ int32, _, _, _ int64, _ []byte, props map[string]string) {
	if topic == "rmq_sys_REVIVE_LOG_DefaultCluster" && props["TAGS"] == pop.CkTag && g.armed.CompareAndSwap(true, false) {
		close(g.held)
		<-g.release
	}
}

// TestBrokerPopAckNotRevivedWhileDispatchLags: an ack answered SUCCESS
// before the invisible time ends is honoured even when the dispatcher has
// not yet put it in the revive queue by then: the revive service waits for
// the dispatcher to reach what was written before it revives anything, so
// the acked message never comes back through the retry topic.
func TestBrokerPopAckNotRevivedWhileDispatchLags(t *testing.T) {
	t.Parallel()
	gate := &ckGate{held: make(chan struct{}), release: make(chan struct{})}
	released := false
	defer func() {
		if !released {
			close(gate.release)
		}
	}()
	cfg, scfg := testutil.NewBrokerConfigs(t, "", fastRevive)
	srv := broker.NewNettyServerConfig()
	srv.ListenPort, srv.ListenAddr = 0, "127.0.0.1:0"
	b, err := broker.New(cfg, scfg, broker.Options{ServerConfig: srv, FastListenAddr: "127.0.0.1:0",
		Logger:       zaptest.NewLogger(t).Named("broker"),
		StoreOptions: []store.Option{store.WithMessageArrivingListener(gate)}})
	if err != nil {
		t.Fatalf("broker.New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = b.Shutdown(ctx)
	})
	if err := b.Start(); err != nil {
		t.Fatalf("broker.Start: %v", err)
	}
	e := envFor(t, b)
	e.send("PopLag", 0, nil, "m0")
	e.waitDispatched("PopLag", 0, 1)

	gate.armed.Store(true)
	invisible := ackSlack()
	_, rh, got := e.pop("lagg", "PopLag", 0, 1, invisible, 0)
	if len(got) != 1 {
		t.Fatalf("popped %d", len(got))
	}
	select {
	case <-gate.held:
	case <-time.After(wait.Scale(5 * time.Second)):
		t.Fatal("the checkpoint was never dispatched")
	}
	e.expect(e.ack("lagg", got[0]), code.Success, "")
	if late := time.Now().UnixMilli() - (rh.PopTime + invisible); late >= 0 {
		t.Skipf("ack answered %d ms after the invisible time: too loaded to tell", late)
	}
	// Keep the ack undispatched until past the invisible time and three
	// revive passes after it (a pass revives up to the clock snapshot of
	// the pass before: the third would revive the message).
	time.Sleep(time.Until(time.UnixMilli(rh.PopTime + invisible)))
	from := b.PopRevivePasses()
	testutil.Eventually(t, 10*time.Second, func() error {
		if n := b.PopRevivePasses(); n < from+3 {
			return fmt.Errorf("revive passes past the invisible time: %d", n-from)
		}
		return nil
	})
	close(gate.release)
	released = true

	retry := "%RETRY%lagg_PopLag"
	testutil.Eventually(t, 10*time.Second, func() error {
		if n := b.Store().DispatchBehindBytes(); n != 0 {
			return fmt.Errorf("dispatch behind %d bytes", n)
		}
		if !b.PopReviveCaughtUp() {
			return fmt.Errorf("revive service behind")
		}
		return nil
	})
	if n := b.Store().MaxOffsetInQueue(retry, 0); n != 0 {
		t.Fatalf("the acked message was revived: %s holds %d", retry, n)
	}
	if _, _, more := e.pop("lagg", "PopLag", -1, 32, 60_000, 0); len(more) != 0 {
		t.Fatalf("acked message delivered again: %q reconsumeTimes %d", more[0].m.Body, more[0].m.ReconsumeTimes)
	}
}
