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
