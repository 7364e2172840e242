package integration

import (
	"context"
	"os"
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
	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/namesrv"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// newTLSEnv starts a name server and a broker whose servers run in the
// given tls.server.mode (test mode: self-signed certificates), the broker
// talking to the name server with TLS as BrokerStartup derives it.
func newTLSEnv(t *testing.T, mode string, opts ...testutil.BrokerOption) *consumeEnv {
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
	cfg, scfg := testutil.NewBrokerConfigs(t, e.nsAddr, opts...)
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

// goClientTLS works around rocketmq-client-go/v2 keeping every client's
// RemotingClientConfig in one package variable (internal.DefaultClientOptions
// points at remote.DefaultRemotingClientConfig): WithTls(x) switches TLS
// for every client of the process, already created ones included. The
// tests using it are not parallel (so no parallel test runs meanwhile) and
// switch it back off when they end.
func goClientTLS(t *testing.T) {
	t.Helper()
	reset := func() {
		// Never started: the resolver is not asked; the option does the
		// reset. The client registers itself in the Go client's process-wide
		// table by IP@instance at creation, and a later client of the same
		// id but another name server fails with "GetOrNewRocketMQClient
		// faild": a unique instance and Shutdown leave no entry behind (the
		// default instance, IP@pid, once broke every later test whose client
		// kept it, TestMetricsHASlaveLag).
		p, err := producer.NewDefaultProducer(producer.WithTls(false), producer.WithInstanceName(uniqueName("tlsreset")),
			producer.WithNsResolver(primitive.NewPassthroughResolver([]string{"127.0.0.1:9876"})))
		if err != nil {
			t.Error(err)
			return
		}
		if err := p.Shutdown(); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(reset)
}

// The official Go client with WithTls(true) produces and consumes through
// an enforcing name server and broker; a plain producer gets nowhere.
func TestIntegrationTLSEnforcingProduceConsume(t *testing.T) {
	goClientTLS(t)
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

// Permissive: plain clients (this repository's remoting client: the Go
// client cannot have a plain and a TLS instance at once, see goClientTLS)
// and the Go client over TLS side by side on the same ports; the TLS
// consumer gets what both sent.
func TestIntegrationTLSPermissivePlainAndTLS(t *testing.T) {
	goClientTLS(t)
	e := newTLSEnv(t, "permissive")
	plain := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = plain.Shutdown(context.Background()) })
	sendPlain := func(prefix string, n int) {
		t.Helper()
		for i := range n {
			req := codec.NewRequest(code.SendMessageV2, map[string]string{
				"a": "tls_pg", "b": e.topic, "c": "TBW102", "d": "4", "e": strconv.Itoa(i % 4), "f": "0",
				"g": strconv.FormatInt(time.Now().UnixMilli(), 10), "h": "0", "i": "", "j": "0", "k": "false", "m": "false",
			}, []byte(prefix+"-"+strconv.Itoa(i)))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			resp, err := plain.InvokeSync(ctx, e.b.BrokerAddr(), req)
			cancel()
			if err != nil || resp.Code != code.Success {
				t.Fatalf("plain send %d: %v %+v", i, err, resp)
			}
		}
	}
	sendPlain("plain", 10)
	p, err := e.newProducerTLS(true)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() error { return e.sendWith(p, "tls-warm", 1) })
	if err := e.sendWith(p, "tls", 10); err != nil {
		t.Fatal(err)
	}
	sendPlain("plain-again", 10) // the plain connection still served beside TLS ones
	route := codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": e.topic}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if resp, err := plain.InvokeSync(ctx, e.nsAddr, route); err != nil || resp.Code != code.Success {
		t.Fatalf("plain route query to the permissive name server: %v %+v", err, resp)
	}
	r := newReceived()
	e.startPush(pushOpts{group: uniqueName("cg"), extra: []consumer.Option{consumer.WithTls(true)}}, r)
	for _, prefix := range []string{"plain", "tls", "plain-again"} {
		r.waitAll(t, prefix, 10, 30*time.Second)
	}
}

// ACL applies on TLS connections as on plain ones: the check wraps the
// processors, which both transports share.
func TestIntegrationTLSWithACL(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "conf", "plain_acl.yml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(aclYml), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newTLSEnv(t, "enforcing", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.ACLEnable, c.RocketmqHome = true, home
	})
	topic := body.NewTopicConfig("AclTopic")
	topic.ReadQueueNums, topic.WriteQueueNums, topic.Perm = 4, 4, 6
	e.b.Topics().UpdateTopicConfig(topic)
	cc := remoting.NewNettyClientConfig()
	cc.UseTLS = true
	cl := remoting.NewClient(cc, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = cl.Shutdown(context.Background()) })
	send := func(cred *primitive.Credentials) *codec.RemotingCommand {
		t.Helper()
		ext := map[string]string{
			"a": "acl_pubonly_group", "b": "AclTopic", "c": "TBW102", "d": "4", "e": "0", "f": "0",
			"g": strconv.FormatInt(time.Now().UnixMilli(), 10), "h": "0", "i": "", "j": "0", "k": "false", "m": "false",
		}
		data := []byte("over tls")
		if cred != nil {
			acl.SignRequest(ext, data, cred.AccessKey, cred.SecretKey)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := cl.InvokeSync(ctx, e.b.BrokerAddr(), codec.NewRequest(code.SendMessageV2, ext, data))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := send(&aclUser); resp.Code != code.Success {
		t.Fatalf("signed send over tls: %d %s", resp.Code, resp.Remark)
	}
	if resp := send(nil); resp.Code == code.Success {
		t.Fatal("unsigned send over tls accepted by an aclEnable broker")
	}
	wrong := aclUser
	wrong.SecretKey = "not-the-secret"
	if resp := send(&wrong); resp.Code == code.Success {
		t.Fatal("badly signed send over tls accepted by an aclEnable broker")
	}
}
