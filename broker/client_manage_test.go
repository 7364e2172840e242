package broker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// cmClient is one client connection that records the requests the broker
// starts toward it (NOTIFY_CONSUMER_IDS_CHANGED, RESET_CONSUMER_CLIENT_OFFSET…)
// and answers the synchronous ones with reply.
type cmClient struct {
	t     *testing.T
	c     *remoting.Client
	addr  string
	id    string
	mu    sync.Mutex
	got   []*codec.RemotingCommand
	reply func(req *codec.RemotingCommand) *codec.RemotingCommand
}

func newCMClient(t *testing.T, addr, id string) *cmClient {
	t.Helper()
	cc := &cmClient{t: t, addr: addr, id: id}
	cc.c = remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named(id))
	pool := remoting.NewPool("cm-"+id, 2, 64)
	for _, c := range []int32{code.NotifyConsumerIdsChanged, code.ResetConsumerClientOffset,
		code.GetConsumerStatusFromClient, code.GetConsumerRunningInfo, code.ConsumeMessageDirectly, code.CheckTransactionState} {
		cc.c.RegisterProcessor(c, remoting.ProcessorFunc(cc.serve), pool)
	}
	t.Cleanup(func() { cc.close() })
	return cc
}

func (cc *cmClient) serve(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	cc.mu.Lock()
	cc.got = append(cc.got, req)
	reply := cc.reply
	cc.mu.Unlock()
	if req.IsOneway() || reply == nil {
		return nil, nil
	}
	return reply(req), nil
}

func (cc *cmClient) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = cc.c.Shutdown(ctx)
}

// received returns the requests with code c the broker sent so far.
func (cc *cmClient) received(c int32) []*codec.RemotingCommand {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	var out []*codec.RemotingCommand
	for _, r := range cc.got {
		if r.Code == c {
			out = append(out, r)
		}
	}
	return out
}

func (cc *cmClient) call(req *codec.RemotingCommand) *codec.RemotingCommand {
	cc.t.Helper()
	return invoke(cc.t, cc.c, cc.addr, req)
}

// heartbeat registers the connection as a consumer of group on topics and,
// when producerGroup is set, as a producer.
func (cc *cmClient) heartbeat(group, producerGroup string, topics ...string) *codec.RemotingCommand {
	cc.t.Helper()
	hb := body.HeartbeatData{ClientID: cc.id}
	if group != "" {
		cd := body.ConsumerData{GroupName: group, ConsumeType: "CONSUME_PASSIVELY", MessageModel: "CLUSTERING",
			ConsumeFromWhere: "CONSUME_FROM_LAST_OFFSET"}
		for _, tp := range topics {
			cd.SubscriptionDataSet = append(cd.SubscriptionDataSet, body.SubscriptionData{Topic: tp, SubString: "*",
				TagsSet: []string{}, CodeSet: []int32{}, SubVersion: time.Now().UnixMilli(), ExpressionType: "TAG"})
		}
		hb.ConsumerDataSet = []body.ConsumerData{cd}
	}
	if producerGroup != "" {
		hb.ProducerDataSet = []body.ProducerData{{GroupName: producerGroup}}
	}
	return cc.call(codec.NewRequest(code.HeartBeat, nil, hb.Encode()))
}

func consumerConnection(t *testing.T, cc *cmClient, group string) (*body.ConsumerConnection, *codec.RemotingCommand) {
	t.Helper()
	h := header.GetConsumerConnectionListRequestHeader{ConsumerGroup: group}
	resp := cc.call(codec.NewRequest(code.GetConsumerConnectionList, h.ToExtFields(), nil))
	if resp.Code != code.Success {
		return nil, resp
	}
	conn, err := body.DecodeConsumerConnection(resp.Body)
	if err != nil {
		t.Fatalf("decode consumer connection %q: %v", resp.Body, err)
	}
	return conn, resp
}

func TestBrokerClientHeartbeatRegistersConsumerAndProducer(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "192.0.2.2@1")
	resp := cc.heartbeat("cg1", "pg1", "TopicHB")
	wantCode(t, resp, code.Success)
	if resp.Version != 409 || resp.Remark != "" || len(resp.Body) != 0 {
		t.Fatalf("heartbeat answer version %d remark %q body %q", resp.Version, resp.Remark, resp.Body)
	}
	conn, r := consumerConnection(t, cc, "cg1")
	if conn == nil {
		t.Fatalf("consumer connection: code %d %q", r.Code, r.Remark)
	}
	if len(conn.ConnectionSet) != 1 || conn.ConnectionSet[0].ClientID != "192.0.2.2@1" ||
		conn.ConnectionSet[0].Version != 409 || conn.ConsumeType != "CONSUME_PASSIVELY" {
		t.Fatalf("consumer connection %+v", conn)
	}
	if _, ok := conn.SubscriptionTable["TopicHB"]; !ok {
		t.Fatalf("subscription table %v", conn.SubscriptionTable)
	}
	// The group's retry topic and subscription group were created.
	if tc := b.Topics().SelectTopicConfig("%RETRY%cg1"); tc == nil || tc.ReadQueueNums != 1 || tc.Perm != 6 {
		t.Fatalf("retry topic %+v", tc)
	}
	if _, ok := b.Subscriptions().Get("cg1"); !ok {
		t.Fatal("subscription group not auto-created")
	}
	h := header.GetProducerConnectionListRequestHeader{ProducerGroup: "pg1"}
	presp := cc.call(codec.NewRequest(code.GetProducerConnectionList, h.ToExtFields(), nil))
	wantCode(t, presp, code.Success)
	pc, err := body.DecodeProducerConnection(presp.Body)
	if err != nil || len(pc.ConnectionSet) != 1 || pc.ConnectionSet[0].ClientID != "192.0.2.2@1" {
		t.Fatalf("producer connection %+v %v", pc, err)
	}
}

func TestBrokerClientHeartbeatWithoutAutoCreateGroup(t *testing.T) {
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.AutoCreateSubscriptionGroup = false
	})
	cc := newCMClient(t, b.Addr().String(), "192.0.2.2@2")
	wantCode(t, cc.heartbeat("cgNoAuto", "", "TopicX"), code.Success)
	if b.Topics().SelectTopicConfig("%RETRY%cgNoAuto") != nil {
		t.Fatal("retry topic created for an unknown group")
	}
	// The consumer is still registered (Java registers it regardless).
	if conn, r := consumerConnection(t, cc, "cgNoAuto"); conn == nil {
		t.Fatalf("consumer connection: code %d %q", r.Code, r.Remark)
	}
}

func TestBrokerClientHeartbeatBadBody(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "x")
	resp := cc.call(codec.NewRequest(code.HeartBeat, nil, []byte("{not json")))
	wantCode(t, resp, code.SystemError)
}

func TestBrokerClientNotifyOnJoinLeaveAndClose(t *testing.T) {
	b := testutil.StartBroker(t, "")
	addr := b.Addr().String()
	c1 := newCMClient(t, addr, "192.0.2.2@11")
	c2 := newCMClient(t, addr, "192.0.2.2@12")
	wantCode(t, c1.heartbeat("cgN", "", "TopicN"), code.Success)
	// The group's first member is told about its own arrival.
	testutil.Eventually(t, 5*time.Second, func() error { return wantNotify(c1, "cgN", 1) })
	wantCode(t, c2.heartbeat("cgN", "", "TopicN"), code.Success)
	// c2 joining changes the group: both members are told.
	testutil.Eventually(t, 5*time.Second, func() error {
		if err := wantNotify(c2, "cgN", 1); err != nil {
			return err
		}
		return wantNotify(c1, "cgN", 2)
	})
	// An unchanged heartbeat does not notify again.
	before := len(c1.received(code.NotifyConsumerIdsChanged))
	wantCode(t, c2.heartbeat("cgN", "", "TopicN"), code.Success)
	// UNREGISTER_CLIENT of c2 notifies c1.
	h := header.UnregisterClientRequestHeader{ClientID: "192.0.2.2@12", ConsumerGroup: "cgN"}
	wantCode(t, c2.call(codec.NewRequest(code.UnregisterClient, h.ToExtFields(), nil)), code.Success)
	testutil.Eventually(t, 5*time.Second, func() error { return wantNotify(c1, "cgN", before+1) })
	conn, _ := consumerConnection(t, c1, "cgN")
	if conn == nil || len(conn.ConnectionSet) != 1 || conn.ConnectionSet[0].ClientID != "192.0.2.2@11" {
		t.Fatalf("after unregister %+v", conn)
	}
	// c2 joins again, then its connection closes: c1 is told and c2 is gone.
	wantCode(t, c2.heartbeat("cgN", "", "TopicN"), code.Success)
	n := len(c1.received(code.NotifyConsumerIdsChanged))
	c2.close()
	testutil.Eventually(t, 5*time.Second, func() error { return wantNotify(c1, "cgN", n+1) })
	testutil.Eventually(t, 5*time.Second, func() error {
		conn, _ := consumerConnection(t, c1, "cgN")
		if conn == nil || len(conn.ConnectionSet) != 1 {
			return fmt.Errorf("connections %+v", conn)
		}
		return nil
	})
}

func wantNotify(cc *cmClient, group string, n int) error {
	got := cc.received(code.NotifyConsumerIdsChanged)
	if len(got) < n {
		return fmt.Errorf("%d notifications, want %d", len(got), n)
	}
	for _, r := range got {
		if r.Ext("consumerGroup") != group || !r.IsOneway() {
			return fmt.Errorf("notification ext %v flag %d", r.ExtFields, r.Flag)
		}
	}
	return nil
}

func TestBrokerClientUnregisterProducer(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "192.0.2.2@21")
	wantCode(t, cc.heartbeat("", "pgU"), code.Success)
	h := header.UnregisterClientRequestHeader{ClientID: "192.0.2.2@21", ProducerGroup: "pgU"}
	resp := cc.call(codec.NewRequest(code.UnregisterClient, h.ToExtFields(), nil))
	wantCode(t, resp, code.Success)
	if resp.Remark != "" {
		t.Fatalf("remark %q", resp.Remark)
	}
	ph := header.GetProducerConnectionListRequestHeader{ProducerGroup: "pgU"}
	presp := cc.call(codec.NewRequest(code.GetProducerConnectionList, ph.ToExtFields(), nil))
	// Java drops a producer group whose last channel unregistered.
	wantCode(t, presp, code.SystemError)
	if presp.Remark != "the producer group[pgU] not exist" {
		t.Fatalf("remark %q", presp.Remark)
	}
	// Missing clientID is Java's header error.
	bad := cc.call(codec.NewRequest(code.UnregisterClient, map[string]string{"producerGroup": "pgU"}, nil))
	wantCode(t, bad, code.SystemError)
}

func TestBrokerClientCheckClientConfig(t *testing.T) {
	for _, tc := range []struct {
		name       string
		propFilter bool
		exprType   string
		expr       string
		want       int32
		remark     string
	}{
		{"tag", false, "TAG", "a || b", code.Success, ""},
		{"sql disabled", false, "SQL92", "a > 1", code.SystemError, "The broker does not support consumer to filter message by SQL92"},
		{"sql ok", true, "SQL92", "a > 1", code.Success, ""},
		{"sql bad", true, "SQL92", "a >>> (", code.SubscriptionParseFailed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
				c.EnablePropertyFilter = tc.propFilter
			})
			cc := newCMClient(t, b.Addr().String(), "c")
			rb := body.CheckClientRequestBody{ClientID: "c", Group: "g", SubscriptionData: &body.SubscriptionData{
				Topic: "T", SubString: tc.expr, ExpressionType: tc.exprType, TagsSet: []string{}, CodeSet: []int32{}}}
			resp := cc.call(codec.NewRequest(code.CheckClientConfig, nil, rb.Encode()))
			wantCode(t, resp, tc.want)
			if tc.remark != "" && resp.Remark != tc.remark {
				t.Fatalf("remark %q", resp.Remark)
			}
		})
	}
}

// TestBrokerClientHeartbeatRegistersSQLFilter: a SQL92 subscription carried
// by a heartbeat reaches the consumer filter manager (what PULL_MESSAGE
// filters with), and a group leaving marks it dead.
func TestBrokerClientHeartbeatRegistersSQLFilter(t *testing.T) {
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.EnablePropertyFilter = true
	})
	cc := newCMClient(t, b.Addr().String(), "192.0.2.2@91")
	hb := body.HeartbeatData{ClientID: "192.0.2.2@91", ConsumerDataSet: []body.ConsumerData{{GroupName: "cgSQL",
		ConsumeType: "CONSUME_PASSIVELY", MessageModel: "CLUSTERING", ConsumeFromWhere: "CONSUME_FROM_LAST_OFFSET",
		SubscriptionDataSet: []body.SubscriptionData{{Topic: "SqlTopic", SubString: "a > 5", ExpressionType: "SQL92",
			TagsSet: []string{}, CodeSet: []int32{}, SubVersion: time.Now().UnixMilli()}}}}}
	wantCode(t, cc.call(codec.NewRequest(code.HeartBeat, nil, hb.Encode())), code.Success)
	testutil.Eventually(t, 5*time.Second, func() error {
		fd := b.Filters().Get("SqlTopic", "cgSQL")
		if fd == nil || fd.Expression != "a > 5" || fd.IsDead() {
			return fmt.Errorf("filter data %+v", fd)
		}
		return nil
	})
	h := header.UnregisterClientRequestHeader{ClientID: "192.0.2.2@91", ConsumerGroup: "cgSQL"}
	wantCode(t, cc.call(codec.NewRequest(code.UnregisterClient, h.ToExtFields(), nil)), code.Success)
	testutil.Eventually(t, 5*time.Second, func() error {
		if fd := b.Filters().Get("SqlTopic", "cgSQL"); fd == nil || !fd.IsDead() {
			return fmt.Errorf("filter data after unregister %+v", fd)
		}
		return nil
	})
}
