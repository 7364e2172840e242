package proxy_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // the wire's signature algorithm
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// authYml: rocketmq may do anything on TAuth, pubOnly only send to it,
// subOnly only consume from it.
const authYml = `accounts:
  - accessKey: rocketmq
    secretKey: 12345678
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - TAuth=PUB|SUB
  - accessKey: pubOnly
    secretKey: pubSecret
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - TAuth=PUB
  - accessKey: subOnly
    secretKey: subSecret
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - TAuth=SUB
  - accessKey: allButTAuth
    secretKey: allSecret
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
    topicPerms:
      - TAuth=DENY
`

// startACLEnv is startEnv with an aclEnable=true broker whose home holds
// authYml and topic TAuth. Local mode uses the broker's accounts; cluster
// mode loads the same file as a separate proxy would. opts adjust the
// proxy's config.
func startACLEnv(t *testing.T, mode string, opts ...func(*proxy.Config)) *env {
	t.Helper()
	home := t.TempDir()
	file := filepath.Join(home, "conf", "plain_acl.yml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(authYml), 0o644); err != nil {
		t.Fatal(err)
	}
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String(), func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.ACLEnable, c.RocketmqHome = true, home
		c.ReviveInterval = 20 // popped messages come back soon after their invisible time
	})
	e := &env{nsAddr: ns.Addr().String(), b: b, mode: mode}
	e.createACLTopic(t, "TAuth")
	lg := zaptest.NewLogger(t).Named("proxy")
	cfg := proxy.NewConfig()
	cfg.GRPCServerHost, cfg.GRPCServerPort, cfg.ProxyMode = "127.0.0.1", 0, mode
	cfg.NamesrvAddr = e.nsAddr
	for _, o := range opts {
		o(cfg)
	}
	var (
		px  *proxy.Running
		err error
	)
	if mode == proxy.ModeLocal {
		px, err = proxy.StartLocal(b, cfg, nil, lg) // the broker's own accounts
	} else {
		cfg.EnableACL, cfg.RocketmqHome = true, home // the same file, loaded by the proxy
		px, err = proxy.StartCluster(cfg, nil, nil, lg)
	}
	if err != nil {
		t.Fatalf("start proxy: %v", err)
	}
	e.srv = px.Server
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = px.Shutdown(ctx)
	})
	if e.conn, err = grpc.NewClient(e.srv.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials())); err != nil {
		t.Fatalf("grpc dial: %v", err)
	}
	t.Cleanup(func() { _ = e.conn.Close() })
	e.cli = apiv2.NewMessagingServiceClient(e.conn)
	testutil.Eventually(t, 10*time.Second, func() error {
		_, err := e.cli.QueryRoute(signedCtx(t, "route-waiter", "rocketmq", "12345678"), &apiv2.QueryRouteRequest{Topic: &apiv2.Resource{Name: "TAuth"}})
		return err
	})
	return e
}

// createACLTopic creates topic (one queue) on the broker and registers it.
func (e *env) createACLTopic(t *testing.T, topic string) {
	t.Helper()
	tc := body.NewTopicConfig(topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 1, 1, 6
	e.b.Topics().UpdateTopicConfig(tc)
	e.b.RegisterBrokerAll(false)
}

// signedCtx is a call context carrying what a 5.x SDK with session
// credentials sends: x-mq-date-time and the MQv2-HMAC-SHA1 authorization.
func signedCtx(t *testing.T, clientID, ak, sk string) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	dt := time.Now().UTC().Format("20060102T150405Z")
	m := hmac.New(sha1.New, []byte(sk))
	m.Write([]byte(dt))
	auth := "MQv2-HMAC-SHA1 Credential=" + ak + ", SignedHeaders=x-mq-date-time, Signature=" + strings.ToUpper(hex.EncodeToString(m.Sum(nil)))
	return metadata.AppendToOutgoingContext(ctx, proxy.MetaClientID, clientID, proxy.MetaLanguage, "GOLANG",
		proxy.MetaDateTime, dt, proxy.MetaAuthorization, auth)
}

func wantDenied(t *testing.T, what string, err error) {
	t.Helper()
	if status.Code(err) != codes.PermissionDenied {
		t.Errorf("%s: got %v, want gRPC PERMISSION_DENIED", what, err)
	}
}

// TestProxyACLSendReceiveAck: a client signing as an account with PUB|SUB
// on the topic sends, receives and acks through an aclEnable=true broker.
func TestProxyACLSendReceiveAck(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startACLEnv(t, mode)
		cli := newClientID()
		resp, err := e.cli.SendMessage(signedCtx(t, cli, "rocketmq", "12345678"), &apiv2.SendMessageRequest{Messages: []*apiv2.Message{newMsg("TAuth", "hello")}})
		if err != nil || resp.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("signed send: %v %v", resp, err)
		}
		var got []*apiv2.Message
		testutil.Eventually(t, 15*time.Second, func() error {
			r, err := e.tryReceive(signedCtx(t, cli, "rocketmq", "12345678"), e.receiveReq("TAuth", "GAuth", 30*time.Second, 300*time.Millisecond))
			if err != nil {
				return err
			}
			got = append(got, r.msgs...)
			if len(got) == 0 {
				return fmt.Errorf("nothing received yet (status %v)", r.status)
			}
			return nil
		})
		if string(got[0].GetBody()) != "hello" {
			t.Fatalf("received %q", got[0].GetBody())
		}
		ack, err := e.cli.AckMessage(signedCtx(t, cli, "rocketmq", "12345678"), &apiv2.AckMessageRequest{
			Group: &apiv2.Resource{Name: "GAuth"}, Topic: &apiv2.Resource{Name: "TAuth"},
			Entries: []*apiv2.AckMessageEntry{{MessageId: got[0].GetSystemProperties().GetMessageId(),
				ReceiptHandle: got[0].GetSystemProperties().GetReceiptHandle()}}})
		if err != nil || ack.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("signed ack: %v %v", ack, err)
		}
	})
}

// TestProxyACLRefusals: unsigned calls, a wrong secret and missing
// permissions are refused with PERMISSION_DENIED, as 5.x's proxy does.
func TestProxyACLRefusals(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startACLEnv(t, mode)
		cli := newClientID()
		send := &apiv2.SendMessageRequest{Messages: []*apiv2.Message{newMsg("TAuth", "x")}}
		_, err := e.cli.SendMessage(e.ctx(t, cli), send)
		wantDenied(t, "unsigned send", err)
		_, err = e.cli.QueryRoute(e.ctx(t, cli), &apiv2.QueryRouteRequest{Topic: &apiv2.Resource{Name: "TAuth"}})
		wantDenied(t, "unsigned route", err)
		_, err = e.cli.SendMessage(signedCtx(t, cli, "rocketmq", "wrongSecret"), send)
		wantDenied(t, "send with a wrong secret", err)
		_, err = e.cli.SendMessage(signedCtx(t, cli, "nobody", "12345678"), send)
		wantDenied(t, "send as an unknown account", err)
		_, err = e.cli.SendMessage(signedCtx(t, cli, "subOnly", "subSecret"), send)
		wantDenied(t, "send without PUB", err)
		_, err = e.tryReceive(signedCtx(t, cli, "pubOnly", "pubSecret"), e.receiveReq("TAuth", "GAuth", 30*time.Second, 300*time.Millisecond))
		wantDenied(t, "receive without SUB", err)
		// A namespace must not move the check to another name than the one
		// the call uses (namespaces are ignored, so the check is on TAuth).
		nsMsg := newMsg("TAuth", "x")
		nsMsg.Topic.ResourceNamespace = "elsewhere"
		_, err = e.cli.SendMessage(signedCtx(t, cli, "allButTAuth", "allSecret"), &apiv2.SendMessageRequest{Messages: []*apiv2.Message{nsMsg}})
		wantDenied(t, "send to a denied topic under a namespace", err)
		// The same accounts within their permissions pass.
		resp, err := e.cli.SendMessage(signedCtx(t, cli, "pubOnly", "pubSecret"), send)
		if err != nil || resp.GetStatus().GetCode() != apiv2.Code_OK {
			t.Errorf("send as pubOnly: %v %v", resp, err)
		}
		if _, err := e.tryReceive(signedCtx(t, cli, "subOnly", "subSecret"), e.receiveReq("TAuth", "GAuth", 30*time.Second, 300*time.Millisecond)); err != nil {
			t.Errorf("receive as subOnly: %v", err)
		}
	})
}

// TestProxyACLConsumerRegisteredWithBroker: in local mode the proxy's own
// heartbeat registering a signed-in consumer with the aclEnable=true broker
// is signed as that consumer's account, so the broker lists the group.
// Telemetry settings need SUB on the group and topic (pubOnly is refused).
func TestProxyACLConsumerRegisteredWithBroker(t *testing.T) {
	t.Parallel()
	e := startACLEnv(t, proxy.ModeLocal)
	open := func(clientID, ak, sk string) (apiv2.MessagingService_TelemetryClient, error) {
		stream, err := e.cli.Telemetry(signedCtx(t, clientID, ak, sk))
		if err != nil {
			return nil, err
		}
		// A refused stream ends: Send then sees io.EOF, Recv the status.
		_ = stream.Send(&apiv2.TelemetryCommand{Command: &apiv2.TelemetryCommand_Settings{Settings: consumerSettings("GAuthReg", "TAuth")}})
		_, err = stream.Recv()
		return stream, err
	}
	_, err := open(newClientID(), "pubOnly", "pubSecret")
	wantDenied(t, "consumer settings without SUB", err)
	if _, err := open(newClientID(), "rocketmq", "12345678"); err != nil {
		t.Fatalf("signed telemetry: %v", err)
	}
	testutil.Eventually(t, 15*time.Second, func() error {
		if e.b.Consumers().GetConsumerGroupInfo("GAuthReg") == nil {
			return fmt.Errorf("group GAuthReg not registered with the broker")
		}
		return nil
	})
}
