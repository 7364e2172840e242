package broker_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/client"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// consumeEnv is a started broker (no name server) and a remoting client.
type consumeEnv struct {
	t    *testing.T
	b    *broker.Broker
	c    *remoting.Client
	addr string
}

func newConsumeEnv(t *testing.T, opts ...testutil.BrokerOption) *consumeEnv {
	t.Helper()
	b := testutil.StartBroker(t, "", opts...)
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("client"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Shutdown(ctx)
	})
	return &consumeEnv{t: t, b: b, c: c, addr: b.Addr().String()}
}

func (e *consumeEnv) call(req *codec.RemotingCommand) *codec.RemotingCommand {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := e.c.InvokeSync(ctx, e.addr, req)
	if err != nil {
		e.t.Fatalf("invoke %s: %v", code.RequestName(req.Code), err)
	}
	return resp
}

func (e *consumeEnv) expect(resp *codec.RemotingCommand, c int32, remark string) {
	e.t.Helper()
	if resp.Code != c || (remark != "" && resp.Remark != remark) {
		e.t.Fatalf("got %s %q, want %s %q", code.ResponseName(resp.Code), resp.Remark, code.ResponseName(c), remark)
	}
}

// send stores one message through SEND_MESSAGE and returns its answer header.
func (e *consumeEnv) send(topic string, queueID int32, props map[string]string, body string) header.SendMessageResponseHeader {
	e.t.Helper()
	h := &header.SendMessageRequestHeader{ProducerGroup: "pg", Topic: topic, DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, QueueID: queueID, BornTimestamp: time.Now().UnixMilli(),
		Properties: message.MarshalProperties(props)}
	resp := e.call(codec.NewRequest(code.SendMessage, h.ToExtFields(), []byte(body)))
	e.expect(resp, code.Success, "")
	var rh header.SendMessageResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		e.t.Fatal(err)
	}
	return rh
}

// waitDispatched waits until topic/queueID holds n messages.
func (e *consumeEnv) waitDispatched(topic string, queueID int32, n int64) {
	e.t.Helper()
	testutil.Eventually(e.t, 5*time.Second, func() error {
		if got := e.b.Store().MaxOffsetInQueue(topic, queueID); got != n {
			return fmt.Errorf("queue %s/%d has %d messages, want %d", topic, queueID, got, n)
		}
		return nil
	})
}

// pullReq builds a PULL_MESSAGE; sub != "" sets FLAG_SUBSCRIPTION.
func pullReq(group, topic string, queueID int32, offset int64, sysFlag int32, sub, exprType string) *codec.RemotingCommand {
	h := &header.PullMessageRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: queueID, QueueOffset: offset,
		MaxMsgNums: 32, SysFlag: sysFlag, CommitOffset: -1, SuspendTimeoutMillis: 15000, Subscription: sub,
		ExpressionType: exprType}
	if sub != "" {
		h.SysFlag |= 0x4
	}
	return codec.NewRequest(code.PullMessage, h.ToExtFields(), nil)
}

func pullHeader(t *testing.T, resp *codec.RemotingCommand) header.PullMessageResponseHeader {
	t.Helper()
	var rh header.PullMessageResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		t.Fatalf("pull response header: %v (%v)", err, resp.ExtFields)
	}
	return rh
}

func decodeBody(t *testing.T, b []byte) []*message.MessageExt {
	t.Helper()
	ms, err := message.DecodeRecords(b, true)
	if err != nil {
		t.Fatalf("decode pull body: %v", err)
	}
	return ms
}

func bodies(ms []*message.MessageExt) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m.Body)
	}
	return strings.Join(s, ",")
}

func TestBrokerPullFoundReturnsStoredRecords(t *testing.T) {
	e := newConsumeEnv(t)
	for i := range 3 {
		e.send("PullT", 1, map[string]string{"TAGS": "TagA"}, "m"+strconv.Itoa(i))
	}
	e.waitDispatched("PullT", 1, 3)
	resp := e.call(pullReq("g1", "PullT", 1, 1, 0, "*", "TAG"))
	e.expect(resp, code.Success, "FOUND")
	rh := pullHeader(t, resp)
	if rh.NextBeginOffset != 3 || rh.MinOffset != 0 || rh.MaxOffset != 3 || rh.SuggestWhichBrokerID != 0 {
		t.Fatalf("header %+v", rh)
	}
	ms := decodeBody(t, resp.Body)
	if bodies(ms) != "m1,m2" || ms[0].QueueOffset != 1 || ms[0].Topic != "PullT" {
		t.Fatalf("bodies %q first %+v", bodies(ms), ms[0])
	}
	// The body is the stored records byte for byte.
	r := e.b.Store().GetMessage("x", "PullT", 1, 1, 32, nil)
	if string(r.Body) != string(resp.Body) {
		t.Fatal("pull body differs from the stored records")
	}
	// LITE_PULL_MESSAGE is served the same way.
	lite := pullReq("g1", "PullT", 1, 0, 0, "*", "TAG")
	lite.Code = code.LitePullMessage
	resp = e.call(lite)
	e.expect(resp, code.Success, "FOUND")
	if got := bodies(decodeBody(t, resp.Body)); got != "m0,m1,m2" {
		t.Fatalf("lite pull bodies %q", got)
	}
}

func TestBrokerPullStatusMapping(t *testing.T) {
	e := newConsumeEnv(t)
	e.send("MapT", 0, nil, "a")
	e.send("MapT", 0, nil, "b")
	e.waitDispatched("MapT", 0, 2)
	cases := []struct {
		name    string
		queueID int32
		offset  int64
		code    int32
		remark  string
		next    int64
	}{
		{"overflowOne", 0, 2, code.PullNotFound, "OFFSET_OVERFLOW_ONE", 2},
		{"overflowBadly", 0, 9, code.PullOffsetMoved, "OFFSET_OVERFLOW_BADLY", 2},
		{"emptyQueueAtZero", 1, 0, code.PullNotFound, "NO_MESSAGE_IN_QUEUE", 0},
		{"emptyQueueAhead", 1, 5, code.PullOffsetMoved, "NO_MESSAGE_IN_QUEUE", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.call(pullReq("g1", "MapT", tc.queueID, tc.offset, 0, "*", "TAG"))
			e.expect(resp, tc.code, tc.remark)
			if rh := pullHeader(t, resp); rh.NextBeginOffset != tc.next {
				t.Fatalf("nextBeginOffset %d, want %d", rh.NextBeginOffset, tc.next)
			}
			if len(resp.Body) != 0 {
				t.Fatalf("body of %d bytes on %s", len(resp.Body), tc.remark)
			}
		})
	}
	// The master records each offset correction as an OFFSET_MOVED_EVENT
	// message (two PULL_OFFSET_MOVED answers above).
	testutil.Eventually(t, 5*time.Second, func() error {
		if n := e.b.Store().MaxOffsetInQueue("OFFSET_MOVED_EVENT", 0); n != 2 {
			return fmt.Errorf("%d offset moved events", n)
		}
		return nil
	})
	r := e.b.Store().GetMessage("x", "OFFSET_MOVED_EVENT", 0, 0, 1, nil)
	ev := decodeBody(t, r.Body)[0]
	want := `{"consumerGroup":"g1","messageQueue":{"brokerName":"broker-a","queueId":0,"topic":"MapT"},"offsetNew":2,"offsetRequest":9}`
	if string(ev.Body) != want || ev.Tags() != "g1" || ev.Keys() != "g1" {
		t.Fatalf("event body %s tags %q keys %q", ev.Body, ev.Tags(), ev.Keys())
	}
}

func TestBrokerPullChecks(t *testing.T) {
	e := newConsumeEnv(t)
	e.send("CheckT", 0, nil, "x")
	sg := body.NewSubscriptionGroupConfig("disabled")
	sg.ConsumeEnable = false
	e.b.Subscriptions().UpdateSubscriptionGroupConfig(sg)
	cases := []struct {
		name string
		req  *codec.RemotingCommand
		code int32
		rem  string
	}{
		{"topicMissing", pullReq("g1", "NoSuchTopic", 0, 0, 0, "*", "TAG"), code.TopicNotExist, ""},
		{"queueTooLarge", pullReq("g1", "CheckT", 4, 0, 0, "*", "TAG"), code.SystemError, ""},
		{"consumeDisabled", pullReq("disabled", "CheckT", 0, 0, 0, "*", "TAG"), code.NoPermission,
			"subscription group no permission, disabled"},
		{"noHeartbeat", pullReq("g1", "CheckT", 0, 0, 0, "", ""), code.SubscriptionNotExist, ""},
		{"sqlDisabled", pullReq("g1", "CheckT", 0, 0, 0, "a > 1", "SQL92"), code.SystemError,
			"The broker does not support consumer to filter message by SQL92"},
		{"emptySQLExpression", pullReq("g1", "CheckT", 0, 0, 0x4, "", "SQL92"), code.SubscriptionParseFailed,
			"parse the consumer's subscription failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.call(tc.req)
			e.expect(resp, tc.code, tc.rem)
			if len(resp.ExtFields) != 0 {
				t.Fatalf("error answer carries ext fields %v", resp.ExtFields)
			}
		})
	}
	resp := e.call(pullReq("g1", "CheckT", 4, 0, 0, "*", "TAG"))
	if !strings.HasPrefix(resp.Remark, "queueId[4] is illegal, topic:[CheckT] topicConfig.readQueueNums:[4] consumer:[/127.0.0.1:") {
		t.Fatalf("remark %q", resp.Remark)
	}
	resp = e.call(pullReq("g1", "NoSuchTopic", 0, 0, 0, "*", "TAG"))
	if !strings.HasPrefix(resp.Remark, "topic[NoSuchTopic] not exist, apply first please!") {
		t.Fatalf("remark %q", resp.Remark)
	}
}

func TestBrokerPullTagAndSQLFilters(t *testing.T) {
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) { c.EnablePropertyFilter = true })
	for i, tag := range []string{"TagA", "TagB", "TagA", "TagC"} {
		e.send("FilterT", 0, map[string]string{"TAGS": tag, "n": strconv.Itoa(i)}, tag+strconv.Itoa(i))
	}
	e.waitDispatched("FilterT", 0, 4)
	resp := e.call(pullReq("g1", "FilterT", 0, 0, 0, "TagA || TagC", "TAG"))
	e.expect(resp, code.Success, "FOUND")
	if got := bodies(decodeBody(t, resp.Body)); got != "TagA0,TagA2,TagC3" {
		t.Fatalf("tag filter returned %q", got)
	}
	resp = e.call(pullReq("g1", "FilterT", 0, 0, 0, "TagZ", "TAG"))
	e.expect(resp, code.PullRetryImmediately, "NO_MATCHED_MESSAGE")
	if rh := pullHeader(t, resp); rh.NextBeginOffset != 4 {
		t.Fatalf("nextBeginOffset %d after skipping every unit, want 4", rh.NextBeginOffset)
	}
	resp = e.call(pullReq("g1", "FilterT", 0, 0, 0, "n >= 2", "SQL92"))
	e.expect(resp, code.Success, "FOUND")
	if got := bodies(decodeBody(t, resp.Body)); got != "TagA2,TagC3" {
		t.Fatalf("sql filter returned %q", got)
	}
	resp = e.call(pullReq("g1", "FilterT", 0, 0, 0, "n >=", "SQL92"))
	e.expect(resp, code.SubscriptionParseFailed, "parse the consumer's subscription failed")
}

// fakeChannel is a consumer connection registered without a socket.
type fakeChannel struct{ id uint64 }

func (f *fakeChannel) ID() uint64                                { return f.id }
func (f *fakeChannel) RemoteAddr() string                        { return "127.0.0.1:1" }
func (f *fakeChannel) IsClosed() bool                            { return false }
func (f *fakeChannel) Close() error                              { return nil }
func (f *fakeChannel) InvokeOneway(*codec.RemotingCommand) error { return nil }

func fakeConsumer(id uint64, clientID string) *client.ClientChannelInfo {
	return client.NewClientChannelInfo(&fakeChannel{id: id}, clientID, 0, code.CurrentVersion, time.Now())
}

func registerConsumer(b *broker.Broker, group, model string, id uint64, subs ...body.SubscriptionData) {
	info := fakeConsumer(id, "client-"+strconv.FormatUint(id, 10))
	b.Consumers().RegisterConsumer(group, info, "CONSUME_PASSIVELY", model, "CONSUME_FROM_LAST_OFFSET", subs, false)
}

func TestBrokerPullUsesHeartbeatSubscription(t *testing.T) {
	e := newConsumeEnv(t)
	e.send("RegT", 0, map[string]string{"TAGS": "TagA"}, "a")
	e.send("RegT", 0, map[string]string{"TAGS": "TagB"}, "b")
	e.waitDispatched("RegT", 0, 2)
	sub := body.SubscriptionData{Topic: "RegT", SubString: "TagB", TagsSet: []string{"TagB"},
		CodeSet: []int32{message.JavaStringHash("TagB")}, SubVersion: 100, ExpressionType: "TAG"}
	registerConsumer(e.b, "push", "CLUSTERING", 1, sub)
	resp := e.call(pullReq("push", "RegT", 0, 0, 0, "", ""))
	e.expect(resp, code.Success, "FOUND")
	if got := bodies(decodeBody(t, resp.Body)); got != "b" {
		t.Fatalf("registered TagB subscription returned %q", got)
	}
	newer := pullReq("push", "RegT", 0, 0, 0, "", "")
	newer.SetExt("subVersion", "101")
	e.expect(e.call(newer), code.SubscriptionNotLatest, "the consumer's subscription not latest")
	e.expect(e.call(pullReq("push", "OtherT", 0, 0, 0, "", "")), code.TopicNotExist, "")
	e.send("OtherT", 0, nil, "o")
	resp = e.call(pullReq("push", "OtherT", 0, 0, 0, "", ""))
	e.expect(resp, code.SubscriptionNotExist, "")
	if !strings.HasPrefix(resp.Remark, "the consumer's subscription not exist") {
		t.Fatalf("remark %q", resp.Remark)
	}

	sg := body.NewSubscriptionGroupConfig("bcast")
	sg.ConsumeBroadcastEnable = false
	e.b.Subscriptions().UpdateSubscriptionGroupConfig(sg)
	registerConsumer(e.b, "bcast", "BROADCASTING", 2, sub)
	e.expect(e.call(pullReq("bcast", "RegT", 0, 0, 0, "", "")), code.NoPermission,
		"the consumer group[bcast] can not consume by broadcast way")
}

func TestBrokerPullCommitsOffsetOnMaster(t *testing.T) {
	e := newConsumeEnv(t)
	e.send("CommitT", 0, nil, "a")
	e.waitDispatched("CommitT", 0, 1)
	req := pullReq("cg", "CommitT", 0, 0, 0x1, "*", "TAG")
	req.SetExt("commitOffset", "7")
	e.expect(e.call(req), code.Success, "FOUND")
	if got := e.b.Offsets().QueryOffset("cg", "CommitT", 0); got != 7 {
		t.Fatalf("committed offset %d, want 7", got)
	}
	req = pullReq("cg2", "CommitT", 0, 0, 0, "*", "TAG") // no FLAG_COMMIT_OFFSET
	req.SetExt("commitOffset", "7")
	e.call(req)
	if got := e.b.Offsets().QueryOffset("cg2", "CommitT", 0); got != -1 {
		t.Fatalf("offset %d committed without the flag", got)
	}
}

// slaveEnv is a slave broker (no master) holding one message put directly.
func slaveEnv(t *testing.T, slaveRead bool) *consumeEnv {
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
		c.BrokerID = 1
		c.SlaveReadEnable = slaveRead
		s.BrokerRole = store.Slave
	})
	e.b.Topics().UpdateTopicConfig(body.TopicConfig{TopicName: "SlaveT", ReadQueueNums: 1, WriteQueueNums: 1,
		Perm: 6, TopicFilterType: "SINGLE_TAG"})
	// A slave refuses puts; its CommitLog grows by replication.
	m := &message.MessageExt{Message: message.Message{Topic: "SlaveT", Body: []byte("s")},
		BornHost: netip.MustParseAddrPort("127.0.0.1:1"), StoreHost: netip.MustParseAddrPort("127.0.0.1:10911"),
		BornTimestamp: time.Now().UnixMilli(), StoreTimestamp: time.Now().UnixMilli()}
	rec, err := message.EncodeRecord(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.b.Store().AppendToCommitLog(0, rec); err != nil {
		t.Fatalf("replicate to slave store: %v", err)
	}
	e.waitDispatched("SlaveT", 0, 1)
	return e
}

func TestBrokerPullSuggestWhichBrokerID(t *testing.T) {
	t.Run("slaveReadDisabledServesAndPointsAtMaster", func(t *testing.T) {
		e := slaveEnv(t, false)
		resp := e.call(pullReq("sg", "SlaveT", 0, 0, 0x1, "*", "TAG"))
		// Java 4.9.8 first forces PULL_RETRY_IMMEDIATELY on such a slave, then
		// overwrites the code from the store status: the client gets the
		// messages and is pointed back at the master.
		e.expect(resp, code.Success, "FOUND")
		if rh := pullHeader(t, resp); rh.SuggestWhichBrokerID != 0 {
			t.Fatalf("suggest %d, want 0", rh.SuggestWhichBrokerID)
		}
		if got := e.b.Offsets().QueryOffset("sg", "SlaveT", 0); got != -1 {
			t.Fatalf("slave committed offset %d from a pull", got)
		}
	})
	t.Run("slaveReadEnabledUsesGroupBrokerID", func(t *testing.T) {
		e := slaveEnv(t, true)
		sg := body.NewSubscriptionGroupConfig("sg")
		sg.BrokerID = 1
		e.b.Subscriptions().UpdateSubscriptionGroupConfig(sg)
		resp := e.call(pullReq("sg", "SlaveT", 0, 0, 0, "*", "TAG"))
		e.expect(resp, code.Success, "FOUND")
		if rh := pullHeader(t, resp); rh.SuggestWhichBrokerID != 1 {
			t.Fatalf("suggest %d, want the group's brokerId 1", rh.SuggestWhichBrokerID)
		}
		// Offset moved on a slave: no correction, retry at the group's broker.
		resp = e.call(pullReq("sg", "SlaveT", 0, 5, 0, "*", "TAG"))
		e.expect(resp, code.PullRetryImmediately, "OFFSET_OVERFLOW_BADLY")
		if rh := pullHeader(t, resp); rh.SuggestWhichBrokerID != 1 || rh.NextBeginOffset != 5 {
			t.Fatalf("header %+v, want suggest 1 and the request offset kept", rh)
		}
	})
	t.Run("masterWithSlaveReadEnabled", func(t *testing.T) {
		e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) { c.SlaveReadEnable = true })
		e.send("MT", 0, nil, "m")
		e.waitDispatched("MT", 0, 1)
		sg := body.NewSubscriptionGroupConfig("mg")
		sg.BrokerID = 2
		e.b.Subscriptions().UpdateSubscriptionGroupConfig(sg)
		resp := e.call(pullReq("mg", "MT", 0, 0, 0, "*", "TAG"))
		if rh := pullHeader(t, resp); rh.SuggestWhichBrokerID != 2 {
			t.Fatalf("suggest %d, want 2", rh.SuggestWhichBrokerID)
		}
	})
}

var errNoAnswer = errors.New("no answer yet")

// pullAsync sends req and returns the channel its answer arrives on.
func (e *consumeEnv) pullAsync(req *codec.RemotingCommand) <-chan *codec.RemotingCommand {
	e.t.Helper()
	ch := make(chan *codec.RemotingCommand, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := e.c.InvokeAsync(ctx, e.addr, req, func(resp *codec.RemotingCommand, err error) {
		defer cancel()
		if err != nil {
			resp = codec.NewResponse(-1, err.Error())
		}
		ch <- resp
	})
	if err != nil {
		cancel()
		e.t.Fatal(err)
	}
	return ch
}

func waitAnswer(t *testing.T, ch <-chan *codec.RemotingCommand, d time.Duration) *codec.RemotingCommand {
	t.Helper()
	select {
	case resp := <-ch:
		return resp
	case <-time.After(d):
		t.Fatalf("no answer within %v", d)
		return nil
	}
}

func TestBrokerPullShortPollingAnswersNotFoundInBrokerSerializeType(t *testing.T) {
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.LongPollingEnable = false
		c.ShortPollingTimeMills = 300
	})
	e.send("ShortT", 0, nil, "a")
	e.waitDispatched("ShortT", 0, 1)
	req := pullReq("g", "ShortT", 0, 1, 0x2, "*", "TAG")
	req.SerializeType = codec.RocketMQ
	resp := waitAnswer(t, e.pullAsync(req), 10*time.Second)
	e.expect(resp, code.PullNotFound, "OFFSET_OVERFLOW_ONE")
	if resp.SerializeType != codec.JSON {
		t.Fatalf("held answer in %v, want the broker's JSON", resp.SerializeType)
	}
	if rh := pullHeader(t, resp); rh.NextBeginOffset != 1 || rh.MaxOffset != 1 {
		t.Fatalf("header %+v", rh)
	}
	// Without FLAG_SUSPEND the answer is immediate and in the request's type.
	req = pullReq("g", "ShortT", 0, 1, 0, "*", "TAG")
	req.SerializeType = codec.RocketMQ
	resp = e.call(req)
	e.expect(resp, code.PullNotFound, "OFFSET_OVERFLOW_ONE")
	if resp.SerializeType != codec.RocketMQ {
		t.Fatalf("direct answer in %v, want the request's ROCKETMQ", resp.SerializeType)
	}
}

func TestBrokerPullRegisteredSQL92Subscription(t *testing.T) {
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) { c.EnablePropertyFilter = true })
	for i := range 4 {
		e.send("SqlRegT", 0, map[string]string{"n": strconv.Itoa(i)}, "v"+strconv.Itoa(i))
	}
	e.waitDispatched("SqlRegT", 0, 4)
	sub := body.SubscriptionData{Topic: "SqlRegT", SubString: "n = 1 OR n = 3", SubVersion: 10, ExpressionType: "SQL92"}
	registerConsumer(e.b, "sqlpush", "CLUSTERING", 1, sub) // the heartbeat compiles the filter
	req := pullReq("sqlpush", "SqlRegT", 0, 0, 0, "", "")
	req.SetExt("subVersion", "10")
	resp := e.call(req)
	e.expect(resp, code.Success, "FOUND")
	if got := bodies(decodeBody(t, resp.Body)); got != "v1,v3" {
		t.Fatalf("registered SQL92 subscription returned %q", got)
	}
	// A group whose filter was never compiled (unknown to the manager).
	registerConsumer(e.b, "nofilter", "CLUSTERING", 2, body.SubscriptionData{Topic: "OtherSqlT", SubString: "n > 1",
		SubVersion: 10, ExpressionType: "SQL92"})
	e.send("OtherSqlT", 0, nil, "o")
	e.b.Filters().Unregister("nofilter")
	e.b.Filters().Clean(0)
	e.expect(e.call(pullReq("nofilter", "OtherSqlT", 0, 0, 0, "", "")), code.FilterDataNotExist,
		"The broker's consumer filter data is not exist!Your expression may be wrong!")
}

func TestBrokerPullNotOnFastPort(t *testing.T) {
	e := newConsumeEnv(t)
	e.send("FastT", 0, nil, "x")
	fast := &consumeEnv{t: t, b: e.b, c: e.c, addr: e.b.FastAddr().String()}
	for _, c := range []int32{code.PullMessage, code.LitePullMessage} {
		req := pullReq("g", "FastT", 0, 0, 0, "*", "TAG")
		req.Code = c
		fast.expect(fast.call(req), code.RequestCodeNotSupported, " request type "+strconv.Itoa(int(c))+" not supported")
	}
	// The offset and query codes are served there, as in Java.
	resp := fast.call(codec.NewRequest(code.GetMaxOffset, (&header.GetMaxOffsetRequestHeader{Topic: "FastT"}).ToExtFields(), nil))
	fast.expect(resp, code.Success, "")
}
