package proxy_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// shortPolls lets tests poll for 100 ms and hide messages for 100 ms+.
func shortPolls(cfg *proxy.Config) {
	cfg.GRPCClientConsumerMinLongPollingTimeoutMillis = 100
	cfg.MinInvisibleTimeMillsForRecv = 100
}

// TestProxyACLFilteredMessageAckedAsClient: a message the broker's tag-code
// filter lets through but the subscription's tag does not take ("BB" and
// "Aa" share a hash code) is acked by the proxy on an aclEnable=true broker
// with the receiving client's account, so it never comes back, even for a
// subscription that takes it.
func TestProxyACLFilteredMessageAckedAsClient(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startACLEnv(t, mode, shortPolls)
		cli := newClientID()
		m := newMsg("TAuth", "filtered")
		tag := "BB"
		m.SystemProperties.Tag = &tag
		if r, err := e.cli.SendMessage(signedCtx(t, cli, "rocketmq", "12345678"), &apiv2.SendMessageRequest{Messages: []*apiv2.Message{m}}); err != nil || r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("signed send: %v %v", r, err)
		}
		testutil.Eventually(t, 15*time.Second, func() error {
			req := e.receiveReq("TAuth", "GAuthFilter", time.Second, 300*time.Millisecond)
			req.FilterExpression = &apiv2.FilterExpression{Type: apiv2.FilterType_TAG, Expression: "Aa"}
			r, err := e.tryReceive(signedCtx(t, cli, "rocketmq", "12345678"), req)
			if err != nil {
				return err
			}
			if len(r.msgs) > 0 {
				t.Fatalf("message with tag %q delivered to a subscription of Aa", tag)
			}
			if r.status.GetMessage() != "no match message" {
				return fmt.Errorf("not screened yet (status %v)", r.status)
			}
			return nil
		})
		// Well past its 1 s invisible time: acked, so not redelivered.
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
			r, err := e.tryReceive(signedCtx(t, cli, "rocketmq", "12345678"), e.receiveReq("TAuth", "GAuthFilter", time.Second, 300*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			if len(r.msgs) > 0 {
				t.Fatalf("filtered-out message came back: the proxy's ack of it was refused (%s)", r.msgs[0].GetBody())
			}
		}
	})
}

// signedTelemetry opens a Telemetry stream signed as ak and sends st.
func (e *env) signedTelemetry(t *testing.T, clientID, ak, sk string, st *apiv2.Settings) {
	t.Helper()
	stream, err := e.cli.Telemetry(signedCtx(t, clientID, ak, sk))
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&apiv2.TelemetryCommand{Command: &apiv2.TelemetryCommand_Settings{Settings: st}}); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatalf("telemetry answer: %v", err)
	}
}

// TestProxyACLSharedHeartbeatSignedAsClients: in cluster mode the proxy's
// shared registration of its clients' groups with an aclEnable=true broker
// is signed as the clients' accounts (one heartbeat per account, since no
// one account may subscribe to every client's topics), so the broker lists
// the groups; a terminated client's group is unregistered, also signed.
func TestProxyACLSharedHeartbeatSignedAsClients(t *testing.T) {
	t.Parallel()
	e := startACLEnv(t, proxy.ModeCluster)
	e.createACLTopic(t, "TOther")
	a, b := newClientID(), newClientID()
	e.signedTelemetry(t, a, "rocketmq", "12345678", consumerSettings("GAuthShared", "TAuth"))
	e.signedTelemetry(t, b, "allButTAuth", "allSecret", consumerSettings("GAuthOther", "TOther"))
	testutil.Eventually(t, 15*time.Second, func() error {
		for _, g := range []string{"GAuthShared", "GAuthOther"} {
			if e.b.Consumers().GetConsumerGroupInfo(g) == nil {
				return fmt.Errorf("group %s not registered with the broker", g)
			}
		}
		return nil
	})
	if r, err := e.cli.NotifyClientTermination(signedCtx(t, a, "rocketmq", "12345678"),
		&apiv2.NotifyClientTerminationRequest{Group: &apiv2.Resource{Name: "GAuthShared"}}); err != nil || r.GetStatus().GetCode() != apiv2.Code_OK {
		t.Fatalf("terminate: %v %v", r, err)
	}
	testutil.Eventually(t, 15*time.Second, func() error {
		if gi := e.b.Consumers().GetConsumerGroupInfo("GAuthShared"); gi != nil {
			return fmt.Errorf("group GAuthShared still registered")
		}
		return nil
	})
	if e.b.Consumers().GetConsumerGroupInfo("GAuthOther") == nil {
		t.Fatal("the other client's group was unregistered")
	}
}

// TestProxyACLOfflineClientHandlesGivenBackSigned: the held messages of a
// push consumer that terminated are made visible again (after a second) on
// an aclEnable=true broker, by a give-back signed as the account the
// messages were received as (the client's session, and its account, are
// gone by then): another client gets the message well before its 60 s
// invisible time.
func TestProxyACLOfflineClientHandlesGivenBackSigned(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startACLEnv(t, mode, shortPolls, func(cfg *proxy.Config) { cfg.RenewSchedulePeriodMillis = 100 })
		gone, other := newClientID(), newClientID()
		e.signedTelemetry(t, gone, "rocketmq", "12345678", consumerSettings("GAuthGone", "TAuth"))
		if r, err := e.cli.SendMessage(signedCtx(t, gone, "rocketmq", "12345678"), &apiv2.SendMessageRequest{Messages: []*apiv2.Message{newMsg("TAuth", "held")}}); err != nil || r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("signed send: %v %v", r, err)
		}
		testutil.Eventually(t, 15*time.Second, func() error {
			req := e.receiveReq("TAuth", "GAuthGone", time.Second, 300*time.Millisecond)
			req.AutoRenew = true
			r, err := e.tryReceive(signedCtx(t, gone, "rocketmq", "12345678"), req)
			if err != nil {
				return err
			}
			if len(r.msgs) == 0 {
				return fmt.Errorf("nothing received yet (status %v)", r.status)
			}
			return nil
		})
		if r, err := e.cli.NotifyClientTermination(signedCtx(t, gone, "rocketmq", "12345678"),
			&apiv2.NotifyClientTerminationRequest{Group: &apiv2.Resource{Name: "GAuthGone"}}); err != nil || r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("terminate: %v %v", r, err)
		}
		testutil.Eventually(t, 10*time.Second, func() error {
			r, err := e.tryReceive(signedCtx(t, other, "rocketmq", "12345678"), e.receiveReq("TAuth", "GAuthGone", time.Second, 300*time.Millisecond))
			if err != nil {
				return err
			}
			if len(r.msgs) == 0 || string(r.msgs[0].GetBody()) != "held" {
				return fmt.Errorf("the gone client's message is not back yet")
			}
			return nil
		})
	})
}

// sendReconsumed stores a message in topic over remoting, signed as
// rocketmq, as a message already delivered reconsumeTimes times.
func (e *env) sendReconsumed(t *testing.T, topic, bodyText string, reconsumeTimes int32) {
	t.Helper()
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("client"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rc.Shutdown(ctx)
	})
	props := map[string]string{"UNIQ_KEY": newMessageID()}
	h := &header.SendMessageRequestHeader{ProducerGroup: "pg", Topic: topic, DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, BornTimestamp: time.Now().UnixMilli(), ReconsumeTimes: &reconsumeTimes,
		Properties: message.MarshalProperties(props)}
	req := codec.NewRequest(code.SendMessage, h.ToExtFields(), []byte(bodyText))
	acl.SignRequest(req.ExtFields, req.Body, "rocketmq", "12345678")
	resp, err := rc.InvokeSync(e.ctx(t, "sender"), e.b.BrokerAddr(), req)
	if err != nil || resp.Code != code.Success {
		t.Fatalf("send over remoting: %v %v", resp, err)
	}
}

// TestProxyACLMaxAttemptsToDLQAsClient: a message whose delivery attempts
// reached its group's max (retryMaxTimes 0: one attempt) is forwarded by
// the proxy to %DLQ%<group> on an aclEnable=true broker, signed as the
// receiving client's account, instead of being delivered. (Cluster mode
// reads the group's retryMaxTimes from the broker, also signed.)
func TestProxyACLMaxAttemptsToDLQAsClient(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startACLEnv(t, mode, shortPolls)
		sg := body.NewSubscriptionGroupConfig("GAuthDLQ")
		sg.RetryMaxTimes = 0
		e.b.Subscriptions().UpdateSubscriptionGroupConfig(sg)
		e.sendReconsumed(t, "TAuth", "dead", 1)
		cli := newClientID()
		// Popped for 60 s: the broker's own revive (which also moves
		// messages past retryMaxTimes to the DLQ) cannot be what put it there.
		testutil.Eventually(t, 10*time.Second, func() error {
			r, err := e.tryReceive(signedCtx(t, cli, "rocketmq", "12345678"), e.receiveReq("TAuth", "GAuthDLQ", time.Minute, 300*time.Millisecond))
			if err != nil {
				return err
			}
			if len(r.msgs) > 0 {
				t.Fatalf("message past its max attempts delivered: %s", r.msgs[0].GetBody())
			}
			if res := e.b.Store().GetMessage("proxy_test", "%DLQ%GAuthDLQ", 0, 0, 4, nil); len(res.Messages) == 0 {
				return fmt.Errorf("not in the DLQ yet (status %v)", r.status)
			}
			return nil
		})
	})
}
