package proxy

import (
	"context"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// fakeBrokers answers the consume side's broker calls from a function and
// records them.
type fakeBrokers struct {
	mu      sync.Mutex
	calls   []*codec.RemotingCommand
	answer  func(brokerName string, req *codec.RemotingCommand) *codec.RemotingCommand
	route   *body.TopicRouteData
	orderly bool
}

func (f *fakeBrokers) callBroker(_ context.Context, brokerName string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	f.mu.Lock()
	f.calls = append(f.calls, req)
	f.mu.Unlock()
	return f.answer(brokerName, req), nil
}

func (f *fakeBrokers) callBrokerLate(ctx context.Context, brokerName string, req *codec.RemotingCommand,
	_ func(*codec.RemotingCommand)) (*codec.RemotingCommand, error) {
	return f.callBroker(ctx, brokerName, req)
}

func (f *fakeBrokers) topicRoute(context.Context, string) (*body.TopicRouteData, error) {
	return f.route, nil
}
func (f *fakeBrokers) groupOrderly(context.Context, string) bool { return f.orderly }

func (f *fakeBrokers) callsOf(c int32) []*codec.RemotingCommand {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*codec.RemotingCommand
	for _, r := range f.calls {
		if r.Code == c {
			out = append(out, r)
		}
	}
	return out
}

func twoBrokerRoute() *body.TopicRouteData {
	return &body.TopicRouteData{
		QueueDatas: []body.QueueData{{BrokerName: "a", ReadQueueNums: 2, WriteQueueNums: 2, Perm: 6},
			{BrokerName: "b", ReadQueueNums: 3, WriteQueueNums: 3, Perm: 4}},
		BrokerDatas: []body.BrokerData{{BrokerName: "a", BrokerAddrs: map[int64]string{0: "1.1.1.1:10911"}},
			{BrokerName: "b", BrokerAddrs: map[int64]string{0: "2.2.2.2:10911"}}},
	}
}

func success() *codec.RemotingCommand { return codec.NewResponse(code.Success, "") }

// popAnswer builds a POP_MESSAGE answer holding msgs.
func popAnswer(t *testing.T, now int64, msgs ...*message.MessageExt) *codec.RemotingCommand {
	t.Helper()
	var b []byte
	var err error
	for _, m := range msgs {
		if b, err = message.EncodeRecord(b, m); err != nil {
			t.Fatal(err)
		}
	}
	h := &header.PopMessageResponseHeader{PopTime: now, InvisibleTime: 30000, ReviveQid: 1}
	r := codec.NewResponse(code.Success, "")
	r.ExtFields = h.ToExtFields()
	r.Body = b
	return r
}

func storedMsg(topic, tag string, queueOffset int64, reconsume int32) *message.MessageExt {
	props := map[string]string{"UNIQ_KEY": "ID" + tag + itoa(queueOffset)}
	if tag != "" {
		props["TAGS"] = tag
	}
	m := &message.MessageExt{Message: message.Message{Topic: topic, Body: []byte("body"), Properties: props},
		QueueID: 0, QueueOffset: queueOffset, CommitLogOffset: 1000 + queueOffset, ReconsumeTimes: reconsume,
		BornHost: netip.MustParseAddrPort("127.0.0.1:1"), StoreHost: netip.MustParseAddrPort("127.0.0.1:2"),
		BornTimestamp: 1, StoreTimestamp: 2}
	m.PropertiesString = message.MarshalProperties(props)
	return m
}

func newTestConsumer(t *testing.T, f *fakeBrokers) *consumer {
	c := newConsumer(zaptest.NewLogger(t), NewConsumeConfig(), f)
	return c
}

func receiveReq(topic, group, broker string) *apiv2.ReceiveMessageRequest {
	return &apiv2.ReceiveMessageRequest{
		Group:              &apiv2.Resource{Name: group},
		MessageQueue:       &apiv2.MessageQueue{Topic: &apiv2.Resource{Name: topic}, Id: 0, Broker: &apiv2.Broker{Name: broker}},
		FilterExpression:   &apiv2.FilterExpression{Type: apiv2.FilterType_TAG, Expression: "*"},
		BatchSize:          64,
		InvisibleDuration:  durationpb.New(15 * time.Second),
		LongPollingTimeout: durationpb.New(5 * time.Second),
	}
}

func collect(t *testing.T, c *consumer, req *apiv2.ReceiveMessageRequest, set consumerSettings) []*apiv2.ReceiveMessageResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []*apiv2.ReceiveMessageResponse
	if err := c.receive(ctx, req, set, "5.0.8", func(r *apiv2.ReceiveMessageResponse) error {
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestProxyReceiveStreamShapeAndPopHeader(t *testing.T) {
	now := time.Now().UnixMilli()
	f := &fakeBrokers{route: twoBrokerRoute()}
	f.answer = func(_ string, req *codec.RemotingCommand) *codec.RemotingCommand {
		if req.Code == code.PopMessage {
			return popAnswer(t, now, storedMsg("T", "x", 0, 0), storedMsg("T", "y", 1, 2))
		}
		return success()
	}
	c := newTestConsumer(t, f)
	out := collect(t, c, receiveReq("T", "G", "b"), consumerSettings{fifo: true, requestTimeout: 3 * time.Second})
	if len(out) != 4 || out[0].GetStatus().GetCode() != apiv2.Code_OK || out[1].GetMessage() == nil ||
		out[2].GetMessage() == nil || out[3].GetDeliveryTimestamp() == nil {
		t.Fatalf("stream = %v, want status OK, 2 messages, delivery timestamp", out)
	}
	if a := out[2].GetMessage().GetSystemProperties().GetDeliveryAttempt(); a != 3 {
		t.Errorf("delivery attempt %d, want 3", a)
	}
	if h := out[1].GetMessage().GetSystemProperties().GetReceiptHandle(); h != itoa(0)+" "+itoa(now)+" 30000 1 0 b 0 0 1000" {
		t.Errorf("receipt handle %q", h)
	}
	pops := f.callsOf(code.PopMessage)
	if len(pops) != 1 {
		t.Fatalf("%d pops", len(pops))
	}
	var h header.PopMessageRequestHeader
	if err := h.FromExtFields(pops[0].ExtFields); err != nil {
		t.Fatal(err)
	}
	if h.ConsumerGroup != "G" || h.Topic != "T" || h.QueueID != -1 || h.MaxMsgNums != 32 || h.InvisibleTime != 15000 ||
		h.PollTime != 5000 || h.InitMode != 1 || h.ExpType != "TAG" || h.Exp != "*" || !h.Order || h.Bname != "b" {
		t.Errorf("pop header %+v", h)
	}
}

func TestProxyReceiveStatusMapping(t *testing.T) {
	for _, c := range []struct {
		brokerCode int32
		want       apiv2.Code
	}{
		{code.PollingFull, apiv2.Code_TOO_MANY_REQUESTS},
		{code.PollingTimeout, apiv2.Code_MESSAGE_NOT_FOUND},
		{code.PullNotFound, apiv2.Code_MESSAGE_NOT_FOUND},
		{code.SubscriptionGroupNotExist, apiv2.Code_CONSUMER_GROUP_NOT_FOUND},
		{code.SystemError, apiv2.Code_INTERNAL_SERVER_ERROR},
	} {
		f := &fakeBrokers{route: twoBrokerRoute(), answer: func(string, *codec.RemotingCommand) *codec.RemotingCommand {
			return codec.NewResponse(c.brokerCode, "remark")
		}}
		out := collect(t, newTestConsumer(t, f), receiveReq("T", "G", "a"), consumerSettings{requestTimeout: 3 * time.Second})
		if len(out) != 2 || out[0].GetStatus().GetCode() != c.want || out[1].GetDeliveryTimestamp() == nil {
			t.Errorf("broker code %d: stream %v, want status %v then delivery timestamp", c.brokerCode, out, c.want)
		}
	}
}

func TestProxyReceiveValidation(t *testing.T) {
	f := &fakeBrokers{route: twoBrokerRoute(), answer: func(string, *codec.RemotingCommand) *codec.RemotingCommand { return success() }}
	c := newTestConsumer(t, f)
	set := consumerSettings{requestTimeout: 3 * time.Second}
	small := receiveReq("T", "G", "a")
	small.InvisibleDuration = durationpb.New(5 * time.Second)
	sql := receiveReq("T", "G", "a")
	sql.FilterExpression = &apiv2.FilterExpression{Type: apiv2.FilterType_SQL, Expression: "a >"}
	badTopic := receiveReq("T T", "G", "a")
	sysGroup := receiveReq("T", "CID_RMQ_SYS_X", "a")
	for name, c2 := range map[string]struct {
		req  *apiv2.ReceiveMessageRequest
		want apiv2.Code
	}{
		"invisible too small": {small, apiv2.Code_ILLEGAL_INVISIBLE_TIME},
		"bad sql":             {sql, apiv2.Code_ILLEGAL_FILTER_EXPRESSION},
		"bad topic":           {badTopic, apiv2.Code_ILLEGAL_TOPIC},
		"system group":        {sysGroup, apiv2.Code_ILLEGAL_CONSUMER_GROUP},
	} {
		out := collect(t, c, c2.req, set)
		if out[0].GetStatus().GetCode() != c2.want {
			t.Errorf("%s: %v, want %v", name, out[0].GetStatus(), c2.want)
		}
	}
	if n := len(f.callsOf(code.PopMessage)); n != 0 {
		t.Errorf("%d pops sent for invalid requests", n)
	}
	// A deadline shorter than the minimum polling time.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req := receiveReq("T", "G", "a")
	req.LongPollingTimeout = nil
	var st *apiv2.Status
	c.receive(ctx, req, set, "5.0.8", func(r *apiv2.ReceiveMessageResponse) error {
		if r.GetStatus() != nil {
			st = r.GetStatus()
		}
		return nil
	})
	if st.GetCode() != apiv2.Code_ILLEGAL_POLLING_TIME {
		t.Errorf("short deadline: %v, want ILLEGAL_POLLING_TIME", st)
	}
}

func TestProxyReceiveFiltersTagsAndMaxAttempts(t *testing.T) {
	now := time.Now().UnixMilli()
	f := &fakeBrokers{route: twoBrokerRoute()}
	f.answer = func(_ string, req *codec.RemotingCommand) *codec.RemotingCommand {
		if req.Code == code.PopMessage {
			return popAnswer(t, now, storedMsg("T", "keep", 0, 0), storedMsg("T", "other", 1, 0), storedMsg("T", "keep", 2, 3))
		}
		return success()
	}
	c := newTestConsumer(t, f)
	req := receiveReq("T", "G", "a")
	req.FilterExpression.Expression = "keep"
	out := collect(t, c, req, consumerSettings{maxAttempts: 3, requestTimeout: 3 * time.Second})
	if len(out) != 3 || out[1].GetMessage().GetSystemProperties().GetQueueOffset() != 0 {
		t.Fatalf("stream %v, want only the message at offset 0", out)
	}
	waitFor(t, func() bool {
		return len(f.callsOf(code.AckMessage)) == 2 && len(f.callsOf(code.ConsumerSendMsgBack)) == 1
	})
	back := f.callsOf(code.ConsumerSendMsgBack)[0]
	if back.Ext("delayLevel") != "-1" || back.Ext("offset") != "1002" || back.Ext("maxReconsumeTimes") != "0" ||
		back.Ext("group") != "G" || back.Ext("originTopic") != "T" {
		t.Errorf("send back ext %v", back.ExtFields)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProxyAckMessageEntries(t *testing.T) {
	f := &fakeBrokers{route: twoBrokerRoute(), answer: func(_ string, req *codec.RemotingCommand) *codec.RemotingCommand {
		if strings.HasSuffix(req.Ext("extraInfo"), " 7") {
			return codec.NewResponse(code.SystemError, "no")
		}
		return success()
	}}
	c := newTestConsumer(t, f)
	live := time.Now().UnixMilli()
	ok := ReceiptHandle{RetrieveTime: live, InvisibleTime: 60000, TopicType: "1", BrokerName: "a", QueueID: 1, Offset: 5, CommitLogOffset: 9}
	bad := ok
	bad.Offset = 7
	expired := ok
	expired.RetrieveTime = 1
	req := &apiv2.AckMessageRequest{Group: &apiv2.Resource{Name: "G"}, Topic: &apiv2.Resource{Name: "T"},
		Entries: []*apiv2.AckMessageEntry{{MessageId: "m1", ReceiptHandle: ok.Encode()}}}
	resp := c.ackMessage(context.Background(), "cli", req)
	if resp.GetStatus().GetCode() != apiv2.Code_OK || resp.GetEntries()[0].GetStatus().GetCode() != apiv2.Code_OK {
		t.Fatalf("one good entry: %v", resp)
	}
	acks := f.callsOf(code.AckMessage)
	if len(acks) != 1 || acks[0].Ext("topic") != "%RETRY%G_T" || acks[0].Ext("queueId") != "1" || acks[0].Ext("offset") != "5" ||
		acks[0].Ext("extraInfo") != "0 "+itoa(live)+" 60000 0 1 a 1 5" || acks[0].Ext("consumerGroup") != "G" {
		t.Fatalf("ack request %v", acks)
	}
	req.Entries = append(req.Entries, &apiv2.AckMessageEntry{MessageId: "m2", ReceiptHandle: bad.Encode()},
		&apiv2.AckMessageEntry{MessageId: "m3", ReceiptHandle: expired.Encode()},
		&apiv2.AckMessageEntry{MessageId: "m4", ReceiptHandle: "junk"})
	resp = c.ackMessage(context.Background(), "cli", req)
	want := []apiv2.Code{apiv2.Code_OK, apiv2.Code_INTERNAL_SERVER_ERROR, apiv2.Code_INVALID_RECEIPT_HANDLE, apiv2.Code_INVALID_RECEIPT_HANDLE}
	if resp.GetStatus().GetCode() != apiv2.Code_MULTIPLE_RESULTS {
		t.Errorf("overall %v, want MULTIPLE_RESULTS", resp.GetStatus())
	}
	for i, e := range resp.GetEntries() {
		if e.GetStatus().GetCode() != want[i] || e.GetMessageId() != req.Entries[i].MessageId {
			t.Errorf("entry %d: %v, want %v", i, e, want[i])
		}
	}
}

func TestProxyChangeInvisibleDurationReturnsNewHandle(t *testing.T) {
	f := &fakeBrokers{route: twoBrokerRoute(), answer: func(_ string, req *codec.RemotingCommand) *codec.RemotingCommand {
		r := success()
		r.ExtFields = (&header.ChangeInvisibleTimeResponseHeader{PopTime: 5_000_000_000_000, InvisibleTime: 20000, ReviveQid: 6}).ToExtFields()
		return r
	}}
	c := newTestConsumer(t, f)
	old := ReceiptHandle{StartOffset: 3, RetrieveTime: time.Now().UnixMilli(), InvisibleTime: 60000, TopicType: "0",
		BrokerName: "a", QueueID: 1, Offset: 5, CommitLogOffset: 9}
	resp := c.changeInvisibleDuration(context.Background(), "cli", &apiv2.ChangeInvisibleDurationRequest{
		Group: &apiv2.Resource{Name: "G"}, Topic: &apiv2.Resource{Name: "T"}, ReceiptHandle: old.Encode(),
		InvisibleDuration: durationpb.New(20 * time.Second), MessageId: "m"})
	if resp.GetStatus().GetCode() != apiv2.Code_OK || resp.GetReceiptHandle() != "5 5000000000000 20000 6 0 a 1 5 9" {
		t.Fatalf("response %v", resp)
	}
	if r := f.callsOf(code.ChangeMessageInvisibletime)[0]; r.Ext("invisibleTime") != "20000" || r.Ext("offset") != "5" {
		t.Errorf("request %v", r.ExtFields)
	}
}

func TestProxyQueryAssignment(t *testing.T) {
	f := &fakeBrokers{route: twoBrokerRoute()}
	c := newTestConsumer(t, f)
	ep := &apiv2.Endpoints{Addresses: []*apiv2.Address{{Host: "127.0.0.1", Port: 8081}}}
	req := &apiv2.QueryAssignmentRequest{Topic: &apiv2.Resource{Name: "T"}, Group: &apiv2.Resource{Name: "G"}}
	resp := c.queryAssignment(context.Background(), req, ep)
	as := resp.GetAssignments()
	if resp.GetStatus().GetCode() != apiv2.Code_OK || len(as) != 2 || as[0].GetMessageQueue().GetId() != -1 ||
		as[0].GetMessageQueue().GetPermission() != apiv2.Permission_READ_WRITE ||
		as[1].GetMessageQueue().GetPermission() != apiv2.Permission_READ ||
		as[1].GetMessageQueue().GetBroker().GetEndpoints().GetAddresses()[0].GetPort() != 8081 {
		t.Fatalf("assignments %v", resp)
	}
	f.orderly = true
	if n := len(c.queryAssignment(context.Background(), req, ep).GetAssignments()); n != 5 {
		t.Fatalf("orderly group: %d assignments, want one per read queue (5)", n)
	}
	f.route = &body.TopicRouteData{QueueDatas: []body.QueueData{{BrokerName: "a", ReadQueueNums: 2, Perm: 2}}}
	if st := c.queryAssignment(context.Background(), req, ep).GetStatus(); st.GetCode() != apiv2.Code_FORBIDDEN {
		t.Fatalf("no master: %v, want FORBIDDEN", st)
	}
}

// TestProxyRenewReleaseWaitsForInFlightRenewal: an ack that arrives while
// the proxy is renewing the message's handle uses the renewed handle (the
// old one no longer acks at the broker), not the one the client holds.
func TestProxyRenewReleaseWaitsForInFlightRenewal(t *testing.T) {
	gate := make(chan struct{})
	f := &fakeBrokers{route: twoBrokerRoute()}
	f.answer = func(_ string, req *codec.RemotingCommand) *codec.RemotingCommand {
		r := success()
		if req.Code == code.ChangeMessageInvisibletime {
			<-gate
			r.ExtFields = (&header.ChangeInvisibleTimeResponseHeader{PopTime: time.Now().UnixMilli(), InvisibleTime: 60000, ReviveQid: 7}).ToExtFields()
		}
		return r
	}
	c := newTestConsumer(t, f)
	c.cfg.RenewAheadTimeMillis = 60_000 // every held handle is due
	c.renew = newRenewer(c, nil)
	m := storedMsg("T", "", 4, 0)
	m.Properties[propPopCK] = ReceiptHandle{RetrieveTime: time.Now().UnixMilli(), InvisibleTime: 30000, TopicType: "0",
		BrokerName: "a", QueueID: 0, Offset: 4, CommitLogOffset: 1004}.Encode()
	old := m.Properties[propPopCK]
	c.renew.hold(context.Background(), "cli", "G", "T", []*message.MessageExt{m})
	renewing := make(chan struct{})
	go func() { defer close(renewing); c.renew.renewDue(nil) }()
	waitFor(t, func() bool { return len(f.callsOf(code.ChangeMessageInvisibletime)) == 1 })
	acked := make(chan *apiv2.AckMessageResponse, 1)
	go func() {
		acked <- c.ackMessage(context.Background(), "cli", &apiv2.AckMessageRequest{Group: &apiv2.Resource{Name: "G"},
			Topic: &apiv2.Resource{Name: "T"}, Entries: []*apiv2.AckMessageEntry{{MessageId: messageIDOf(m), ReceiptHandle: old}}})
	}()
	time.Sleep(50 * time.Millisecond) // the ack is now waiting for the renewal
	close(gate)
	<-renewing
	if r := <-acked; r.GetStatus().GetCode() != apiv2.Code_OK {
		t.Fatalf("ack: %v", r)
	}
	acks := f.callsOf(code.AckMessage)
	if len(acks) != 1 || !strings.Contains(acks[0].Ext("extraInfo"), " 7 0 a 0 4") {
		t.Fatalf("ack sent with %v, want the renewed handle (revive queue 7)", acks[0].ExtFields)
	}
}
