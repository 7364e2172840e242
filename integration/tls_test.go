package integration

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/namesrv"
	"github.com/rocketmq-go/rmq/remoting"
)

// newTLSEnv starts a name server and a broker whose servers run in the
// given tls.server.mode (test mode: self-signed certificates), the broker
// talking to the name server with TLS as BrokerStartup derives it.
func newTLSEnv(t *testing.T, mode string) *consumeEnv {
	t.Helper()
	rlog.SetLogLevel("error")
	tc := remoting.NewTLSConfig()
	tc.ServerMode = mode
	nsCfg := namesrv.NewNamesrvConfig()
	nsCfg.KVConfigPath = filepath.Join(t.TempDir(), "kvConfig.json")
	nsSrv := namesrv.NewNettyServerConfig()
	nsSrv.ListenAddr, nsSrv.TLS = "127.0.0.1:0", tc
	ns, err := namesrv.New(nsCfg, nsSrv, zaptest.NewLogger(t).Named("namesrv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ns.Shutdown(context.Background()) })
	e := &consumeEnv{t: t, nsAddr: ns.Addr().String(), topic: uniqueName("TLST")}
	cfg, scfg := testutil.NewBrokerConfigs(t, e.nsAddr)
	srv := broker.NewNettyServerConfig()
	srv.ListenAddr, srv.TLS = "127.0.0.1:0", tc
	cli := remoting.NewNettyClientConfig()
	cli.UseTLS, cli.TLS = tc.Mode() == remoting.TLSEnforcing, tc
	b, err := broker.New(cfg, scfg, broker.Options{ServerConfig: srv, ClientConfig: cli, FastListenAddr: "127.0.0.1:0",
		Logger: zaptest.NewLogger(t).Named("broker")})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Shutdown(context.Background()) })
	e.b = b
	e.createTopic(b)
	return e
}

type tlsProducer interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
}

func (e *consumeEnv) newProducerTLS(useTLS bool) (tlsProducer, error) {
	p, err := producer.NewDefaultProducer(
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
		producer.WithGroupName(uniqueName("pg")),
		producer.WithInstanceName(uniqueName("p")),
		producer.WithRetry(0),
		producer.WithSendMsgTimeout(3*time.Second),
		producer.WithTls(useTLS),
	)
	if err != nil {
		return nil, err
	}
	if err := p.Start(); err != nil {
		return nil, err
	}
	e.t.Cleanup(func() { _ = p.Shutdown() })
	return p, nil
}

func (e *consumeEnv) sendWith(p tlsProducer, prefix string, n int) error {
	for i := range n {
		m := primitive.NewMessage(e.topic, []byte(prefix+"-"+strconv.Itoa(i)))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, err := p.SendSync(ctx, m)
		cancel()
		if err != nil {
			return err
		}
		if r.Status != primitive.SendOK {
			e.t.Fatalf("send %s-%d: %v", prefix, i, r)
		}
	}
	return nil
}

// The official Go client with WithTls(true) produces and consumes through
// an enforcing name server and broker; a plain producer gets nowhere.
func TestIntegrationTLSEnforcingProduceConsume(t *testing.T) {
	e := newTLSEnv(t, "enforcing")
	p, err := e.newProducerTLS(true)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() error { return e.sendWith(p, "warm", 1) })
	if err := e.sendWith(p, "tls", 20); err != nil {
		t.Fatal(err)
	}
	r := newReceived()
	e.startPush(pushOpts{group: uniqueName("cg"), extra: []consumer.Option{consumer.WithTls(true)}}, r)
	r.waitAll(t, "tls", 20, 30*time.Second)

	plain, err := e.newProducerTLS(false)
	if err == nil {
		err = e.sendWith(plain, "plain", 1)
	}
	if err == nil {
		t.Fatal("a plain producer sent through an enforcing name server and broker")
	}
}

// Permissive: plain and TLS clients side by side on the same ports.
func TestIntegrationTLSPermissivePlainAndTLS(t *testing.T) {
	e := newTLSEnv(t, "permissive")
	for _, useTLS := range []bool{false, true} {
		p, err := e.newProducerTLS(useTLS)
		if err != nil {
			t.Fatal(err)
		}
		prefix := "tls=" + strconv.FormatBool(useTLS)
		testutil.Eventually(t, 10*time.Second, func() error { return e.sendWith(p, prefix+"-warm", 1) })
		if err := e.sendWith(p, prefix, 10); err != nil {
			t.Fatal(err)
		}
	}
	for _, useTLS := range []bool{false, true} {
		r := newReceived()
		e.startPush(pushOpts{group: uniqueName("cg"), extra: []consumer.Option{consumer.WithTls(useTLS)}}, r)
		r.waitAll(t, "tls=false", 10, 30*time.Second)
		r.waitAll(t, "tls=true", 10, 30*time.Second)
	}
}
