package integration

import (
	"context"
	"hash/crc32"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/namesrv"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// nsStartNamesrv runs a name server on 127.0.0.1:0 with a short broker expiry.
func nsStartNamesrv(t *testing.T, expiry time.Duration) *namesrv.Namesrv {
	t.Helper()
	cfg := namesrv.NewNamesrvConfig()
	cfg.KVConfigPath = filepath.Join(t.TempDir(), "kvConfig.json")
	cfg.ConfigStorePath = filepath.Join(t.TempDir(), "namesrv.properties")
	cfg.ScanNotActiveBrokerInterval = 50
	cfg.BrokerChannelExpiredTime = expiry.Milliseconds()
	nc := namesrv.NewNettyServerConfig()
	nc.ListenAddr = "127.0.0.1:0"
	ns, err := namesrv.New(cfg, nc, zaptest.NewLogger(t))
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

// nsRegisterFakeBroker registers a master over our own remoting client, as a
// Java broker's first REGISTER_BROKER does.
func nsRegisterFakeBroker(t *testing.T, c *remoting.Client, nsAddr, brokerAddr string, topics map[string]int32) {
	t.Helper()
	w := body.TopicConfigSerializeWrapper{DataVersion: body.DataVersion{Timestamp: time.Now().UnixMilli(), Counter: 1}, TopicConfigTable: map[string]body.TopicConfig{}}
	for name, q := range topics {
		tc := body.NewTopicConfig(name)
		tc.ReadQueueNums, tc.WriteQueueNums = q, q
		w.TopicConfigTable[name] = tc
	}
	b, err := (&body.RegisterBrokerBody{TopicConfigSerializeWrapper: w, FilterServerList: []string{}}).Encode(false)
	if err != nil {
		t.Fatal(err)
	}
	h := &header.RegisterBrokerRequestHeader{BrokerName: "broker-a", BrokerAddr: brokerAddr, ClusterName: "DefaultCluster",
		HAServerAddr: "127.0.0.1:10912", BodyCrc32: int32(crc32.ChecksumIEEE(b) & 0x7FFFFFFF)}
	resp, err := c.InvokeSync(t.Context(), nsAddr, codec.NewRequest(code.RegisterBroker, h.ToExtFields(), b))
	if err != nil || resp.Code != code.Success {
		t.Fatalf("register: %v %+v", err, resp)
	}
}

func TestNamesrvGoClientAdminAndRoutes(t *testing.T) {
	rlog.SetLogLevel("error")
	ns := nsStartNamesrv(t, 700*time.Millisecond)
	addr := ns.Addr().String()
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	nsRegisterFakeBroker(t, rc, addr, "127.0.0.1:10911", map[string]int32{"TopicA": 4, "TopicB": 2})

	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{addr})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = adm.Close() })

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	list, err := adm.FetchAllTopicList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(list.TopicList)
	slices.Sort(got)
	if !slices.Equal(got, []string{"TopicA", "TopicB"}) {
		t.Fatalf("topic list = %v", list.TopicList)
	}
	mqs, err := adm.FetchPublishMessageQueues(ctx, "TopicA")
	if err != nil {
		t.Fatal(err)
	}
	if len(mqs) != 4 || mqs[0].BrokerName != "broker-a" || mqs[0].Topic != "TopicA" {
		t.Fatalf("publish queues = %v", mqs)
	}
	if _, err := adm.FetchPublishMessageQueues(ctx, "NoSuchTopic"); err == nil {
		t.Fatal("unknown topic resolved")
	}

	// The fake broker now stays silent: after the expiry its topics vanish
	// from the (uncached) topic list, and a first lookup of TopicB fails.
	deadline := time.Now().Add(wait.Scale(10 * time.Second))
	for {
		l, err := adm.FetchAllTopicList(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.TopicList) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("silent broker still routed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := adm.FetchPublishMessageQueues(ctx, "TopicB"); err == nil {
		t.Fatal("expired broker's topic still resolves")
	}
	list, err = adm.FetchAllTopicList(ctx)
	if err != nil || len(list.TopicList) != 0 {
		t.Fatalf("topics after expiry: %v %v", list, err)
	}
}

// nsStartFakeBroker is a remoting server that accepts every send (queue offset
// counting up) and answers SUCCESS to anything else: enough for a producer.
func nsStartFakeBroker(t *testing.T, sends *atomic.Int64) string {
	t.Helper()
	cfg := remoting.NewNettyServerConfig()
	cfg.ListenAddr = "127.0.0.1:0"
	srv, err := remoting.NewServer(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	send := remoting.ProcessorFunc(func(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		n := sends.Add(1)
		resp := codec.NewResponse(code.Success, "")
		resp.ExtFields = map[string]string{"msgId": "7F00000100002A9F0000000000000000", "queueId": "0", "queueOffset": strconv.FormatInt(n-1, 10)}
		return resp, nil
	})
	pool := remoting.NewPool("fakebroker", 2, 1024)
	for _, c := range []int32{code.SendMessage, code.SendMessageV2, code.SendBatchMessage} {
		srv.RegisterProcessor(c, send, pool)
	}
	srv.RegisterDefaultProcessor(remoting.ProcessorFunc(func(*remoting.Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		return codec.NewResponse(code.Success, ""), nil
	}), pool)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return srv.Addr().String()
}

func TestNamesrvGoClientProducerRoutesToRegisteredBroker(t *testing.T) {
	rlog.SetLogLevel("error")
	ns := nsStartNamesrv(t, time.Minute)
	var sends atomic.Int64
	brokerAddr := nsStartFakeBroker(t, &sends)
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	nsRegisterFakeBroker(t, rc, ns.Addr().String(), brokerAddr, map[string]int32{"TopicP": 2})

	p, err := producer.NewDefaultProducer(producer.WithNsResolver(primitive.NewPassthroughResolver([]string{ns.Addr().String()})),
		producer.WithRetry(0), producer.WithGroupName("ns_it_producer"), producer.WithInstanceName(uniqueName("nsp")))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown() })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := p.SendSync(ctx, primitive.NewMessage("TopicP", []byte("hello")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != primitive.SendOK || res.MessageQueue.BrokerName != "broker-a" || res.MessageQueue.Topic != "TopicP" || sends.Load() != 1 {
		t.Fatalf("send result %+v, sends %d", res, sends.Load())
	}
}
