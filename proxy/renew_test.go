package proxy_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// startRenewEnv is startConsumeEnv whose proxy pops auto_renew receives
// for a second and renews held handles 700 ms ahead, looking every 100 ms.
func startRenewEnv(t *testing.T, mode string) *env {
	t.Helper()
	revive := func(cfg *broker.BrokerConfig, _ *store.MessageStoreConfig) { cfg.ReviveInterval = 20 }
	return startEnvB(t, mode, []testutil.BrokerOption{revive}, func(cfg *proxy.Config) {
		cfg.GRPCClientConsumerMinLongPollingTimeoutMillis = 100
		cfg.MinInvisibleTimeMillsForRecv = 100
		cfg.DefaultInvisibleTimeMills = 1000
		cfg.RenewAheadTimeMillis = 700
		cfg.RenewSchedulePeriodMillis = 100
	})
}

// receiveHeld receives one message of topic as clientID with auto renewal.
func (e *env) receiveHeld(t *testing.T, clientID, topic, group string) *apiv2.Message {
	t.Helper()
	var got *apiv2.Message
	testutil.Eventually(t, 15*time.Second, func() error {
		req := e.receiveReq(topic, group, time.Second, 300*time.Millisecond)
		req.AutoRenew = true
		r := e.receive(t, clientID, req)
		if len(r.msgs) == 0 {
			return fmt.Errorf("nothing received yet (status %v)", r.status)
		}
		got = r.msgs[0]
		return nil
	})
	return got
}

// waitExpired waits until the handle h (as handed out) is past its
// invisible time.
func waitExpired(t *testing.T, h string) {
	t.Helper()
	rh, err := proxy.ParseReceiptHandle(h)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		if !rh.Expired(time.Now()) {
			return fmt.Errorf("handle not expired yet")
		}
		return nil
	})
}

// TestProxyGRPCHeldHandleOnlyForItsClient: a push consumer's held message
// (auto renewal) is released only by that client with the handle it got,
// as 5.x keys held handles by client and handle. Another client of the
// group sending the (by now expired) handle gets INVALID_RECEIPT_HANDLE
// and does not stop the renewal: the holder's own ack afterwards succeeds
// and the message never comes back.
func TestProxyGRPCHeldHandleOnlyForItsClient(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startRenewEnv(t, mode)
		e.createTopic(t, "THeld", 1)
		e.sendN(t, "THeld", "held-", 1)
		holder, other := newClientID(), newClientID()
		m := e.receiveHeld(t, holder, "THeld", "GHeld")
		h := m.GetSystemProperties().GetReceiptHandle()
		waitExpired(t, h) // only the proxy's renewals keep the message now
		if r := e.ack(t, other, "THeld", "GHeld", m); r.GetEntries()[0].GetStatus().GetCode() != apiv2.Code_INVALID_RECEIPT_HANDLE {
			t.Fatalf("another client's ack with the expired handle: %v, want INVALID_RECEIPT_HANDLE", r)
		}
		e.expectNothing(t, other, "THeld", "GHeld", time.Second) // still renewed
		if r := e.ack(t, holder, "THeld", "GHeld", m); r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("the holder's ack: %v, want OK (the renewed handle)", r)
		}
		e.expectNothing(t, other, "THeld", "GHeld", 2*time.Second)
	})
}
