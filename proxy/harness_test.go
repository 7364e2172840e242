package proxy_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// env is an in-process name server, broker and gRPC proxy.
type env struct {
	nsAddr string
	b      *broker.Broker
	srv    *proxy.Server
	conn   *grpc.ClientConn
	cli    apiv2.MessagingServiceClient
	mode   string
	logs   *observer.ObservedLogs // the proxy's log entries
	be     proxy.Backend
}

// modes runs f once per proxy mode.
func modes(t *testing.T, f func(t *testing.T, mode string)) {
	for _, m := range []string{proxy.ModeLocal, proxy.ModeCluster} {
		t.Run(m, func(t *testing.T) {
			t.Parallel()
			f(t, m)
		})
	}
}

func startEnv(t testing.TB, mode string, opts ...func(*proxy.Config)) *env {
	t.Helper()
	return startEnvB(t, mode, nil, opts...)
}

// startEnvB is startEnv with broker options.
func startEnvB(t testing.TB, mode string, bopts []testutil.BrokerOption, opts ...func(*proxy.Config)) *env {
	t.Helper()
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String(), bopts...)
	e := &env{nsAddr: ns.Addr().String(), b: b, mode: mode}
	core, logs := observer.New(zapcore.DebugLevel)
	e.logs = logs
	lg := zaptest.NewLogger(t, zaptest.WrapOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return zapcore.NewTee(c, core) }))).Named("proxy")
	var (
		be  proxy.Backend
		err error
	)
	if mode == proxy.ModeLocal {
		be, err = proxy.NewLocalBackend(b, lg)
	} else {
		be, err = proxy.NewClusterBackend([]string{e.nsAddr}, nil, lg)
	}
	if err != nil {
		t.Fatalf("backend: %v", err)
	}
	e.be = be
	cfg := proxy.NewConfig()
	cfg.GRPCServerHost, cfg.GRPCServerPort = "127.0.0.1", 0
	cfg.ProxyMode = mode
	for _, o := range opts {
		o(cfg)
	}
	srv, err := proxy.New(cfg, be, lg)
	if err != nil {
		t.Fatalf("proxy.New: %v", err)
	}
	if err := srv.Start(); err != nil {
		t.Fatalf("proxy.Start: %v", err)
	}
	e.srv = srv
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = be.Close(ctx)
	})
	e.conn, err = grpc.NewClient(srv.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("grpc dial: %v", err)
	}
	t.Cleanup(func() { _ = e.conn.Close() })
	e.cli = apiv2.NewMessagingServiceClient(e.conn)
	return e
}

// createTopic creates topic on the broker with n read/write queues and
// waits until the name server routes it.
func (e *env) createTopic(t testing.TB, topic string, n int32) {
	t.Helper()
	tc := body.NewTopicConfig(topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = n, n, 6
	e.b.Topics().UpdateTopicConfig(tc)
	e.b.RegisterBrokerAll(false)
	testutil.Eventually(t, 10*time.Second, func() error {
		_, err := e.cli.QueryRoute(e.ctx(t, "route-waiter"), &apiv2.QueryRouteRequest{Topic: &apiv2.Resource{Name: topic}})
		return err
	})
}

var clientSeq atomic.Int64

// newClientID returns a unique client id, like the SDKs' host@pid@n.
func newClientID() string { return "test@" + strconv.FormatInt(clientSeq.Add(1), 10) }

// ctx is a call context with the client id metadata and a deadline.
func (e *env) ctx(t testing.TB, clientID string) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return metadata.AppendToOutgoingContext(ctx, proxy.MetaClientID, clientID, proxy.MetaLanguage, "GOLANG")
}

// endpoints is the proxy's address as a client would configure it.
func (e *env) endpoints() *apiv2.Endpoints {
	host, port, _ := net.SplitHostPort(e.srv.Addr().String())
	p, _ := strconv.Atoi(port)
	return &apiv2.Endpoints{Scheme: apiv2.AddressScheme_IPv4, Addresses: []*apiv2.Address{{Host: host, Port: int32(p)}}}
}

// newMessageID returns a message id as 5.x SDKs make them (hex, 34 chars).
func newMessageID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("01%X", b[:])
}

// newMsg is a message to topic with a fresh id.
func newMsg(topic, body string) *apiv2.Message {
	return &apiv2.Message{
		Topic:            &apiv2.Resource{Name: topic},
		Body:             []byte(body),
		SystemProperties: &apiv2.SystemProperties{MessageId: newMessageID(), MessageType: apiv2.MessageType_NORMAL},
	}
}

// send sends msgs as clientID and fails the test on a transport error.
func (e *env) send(t *testing.T, clientID string, msgs ...*apiv2.Message) *apiv2.SendMessageResponse {
	t.Helper()
	resp, err := e.cli.SendMessage(e.ctx(t, clientID), &apiv2.SendMessageRequest{Messages: msgs})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	return resp
}

// stored waits for n messages in queue q of topic on the broker and
// returns them.
func (e *env) stored(t *testing.T, topic string, q int32, n int) []*message.MessageExt {
	t.Helper()
	var out []*message.MessageExt
	testutil.Eventually(t, 10*time.Second, func() error {
		out = out[:0]
		r := e.b.Store().GetMessage("proxy_test", topic, q, 0, 64, nil)
		for _, raw := range r.Messages {
			m, err := message.DecodeRecord(raw, true)
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		if len(out) != n {
			return fmt.Errorf("queue %d has %d messages, want %d", q, len(out), n)
		}
		return nil
	})
	return out
}
