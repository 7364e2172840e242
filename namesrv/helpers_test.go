package namesrv

import (
	"context"
	"hash/crc32"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// startNamesrv starts a name server on 127.0.0.1:0 with its files in a temp dir.
func startNamesrv(t *testing.T, edit func(c *NamesrvConfig)) *Namesrv {
	t.Helper()
	dir := t.TempDir()
	cfg := NewNamesrvConfig()
	cfg.KVConfigPath = filepath.Join(dir, "kvConfig.json")
	cfg.ConfigStorePath = filepath.Join(dir, "namesrv.properties")
	if edit != nil {
		edit(cfg)
	}
	srvCfg := NewNettyServerConfig()
	srvCfg.ListenAddr = "127.0.0.1:0"
	ns, err := New(cfg, srvCfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = ns.Shutdown(ctx)
	})
	return ns
}

// newClient returns a remoting client shut down at test end.
func newClient(t *testing.T) *remoting.Client {
	t.Helper()
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Shutdown(ctx)
	})
	return c
}

func invoke(t *testing.T, c *remoting.Client, addr string, req *codec.RemotingCommand) *codec.RemotingCommand {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.InvokeSync(ctx, addr, req)
	if err != nil {
		t.Fatalf("invoke %s: %v", code.RequestName(req.Code), err)
	}
	return resp
}

// registerReq builds a REGISTER_BROKER request as a 4.9.8 broker sends it.
func registerReq(t *testing.T, name, addr string, id int64, compressed bool, w *body.TopicConfigSerializeWrapper) *codec.RemotingCommand {
	t.Helper()
	b, err := (&body.RegisterBrokerBody{TopicConfigSerializeWrapper: *w, FilterServerList: []string{}}).Encode(compressed)
	if err != nil {
		t.Fatal(err)
	}
	h := &header.RegisterBrokerRequestHeader{
		BrokerName: name, BrokerAddr: addr, ClusterName: "DefaultCluster", HAServerAddr: addr + "-ha",
		BrokerID: id, Compressed: compressed, BodyCrc32: int32(crc32.ChecksumIEEE(b) & 0x7FFFFFFF),
	}
	return codec.NewRequest(code.RegisterBroker, h.ToExtFields(), b)
}

func routeReq(topic string, version int32) *codec.RemotingCommand {
	req := codec.NewRequest(code.GetRouteinfoByTopic, (&header.GetRouteInfoRequestHeader{Topic: topic}).ToExtFields(), nil)
	req.Version = version
	return req
}
