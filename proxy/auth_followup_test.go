package proxy_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
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
