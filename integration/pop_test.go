package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// popClient speaks POP over raw remoting frames, as a 5.x client does.
type popClient struct {
	t     *testing.T
	c     *remoting.Client
	addr  string
	group string
	topic string
}

func (pc *popClient) call(req *codec.RemotingCommand) *codec.RemotingCommand {
	pc.t.Helper()
	ctx, cancel := context.WithTimeout(pc.t.Context(), wait.Scale(15*time.Second))
	defer cancel()
	resp, err := pc.c.InvokeSync(ctx, pc.addr, req)
	if err != nil {
		pc.t.Fatalf("%s: %v", code.RequestName(req.Code), err)
	}
	return resp
}

type poppedMsg struct {
	m      *message.MessageExt
	handle string
}

// pop pops from every queue with a tag filter and builds each message's
// receipt handle as MQClientAPIImpl.processPopResponse does.
func (pc *popClient) pop(exp string, invisible int64) []poppedMsg {
	pc.t.Helper()
	h := &header.PopMessageRequestHeader{ConsumerGroup: pc.group, Topic: pc.topic, QueueID: -1, MaxMsgNums: 32,
		InvisibleTime: invisible, BornTime: time.Now().UnixMilli(), InitMode: 0, ExpType: "TAG", Exp: exp}
	resp := pc.call(codec.NewRequest(code.PopMessage, h.ToExtFields(), nil))
	if resp.Code == code.PollingTimeout {
		return nil
	}
	if resp.Code != code.Success {
		pc.t.Fatalf("pop: %s %q", code.ResponseName(resp.Code), resp.Remark)
	}
	var rh header.PopMessageResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		pc.t.Fatal(err)
	}
	starts, err := pop.ParseStartOffsetInfo(*rh.StartOffsetInfo)
	if err != nil {
		pc.t.Fatal(err)
	}
	ms, err := message.DecodeRecords(resp.Body, true)
	if err != nil {
		pc.t.Fatal(err)
	}
	var out []poppedMsg
	for _, m := range ms {
		hd := m.Properties[pop.PropertyPopCk]
		if hd == "" {
			hd = pop.BuildExtraInfo(starts[pop.InfoKey(m.Topic, m.QueueID)], rh.PopTime, rh.InvisibleTime, rh.ReviveQid,
				m.Topic, "broker-a", m.QueueID, m.QueueOffset)
		}
		out = append(out, poppedMsg{m: m, handle: hd})
	}
	return out
}

func (pc *popClient) ack(p poppedMsg) {
	pc.t.Helper()
	ei, err := pop.ParseExtraInfo(p.handle)
	if err != nil {
		pc.t.Fatal(err)
	}
	rt, _ := pop.RealTopic(pc.topic, pc.group, ei.Retry)
	h := &header.AckMessageRequestHeader{ConsumerGroup: pc.group, Topic: rt, QueueID: ei.QueueID, ExtraInfo: p.handle,
		Offset: ei.QueueOffset}
	if resp := pc.call(codec.NewRequest(code.AckMessage, h.ToExtFields(), nil)); resp.Code != code.Success {
		pc.t.Fatalf("ack: %s %q", code.ResponseName(resp.Code), resp.Remark)
	}
}

// TestPopGoProducerToPopConsumer: the official Go client produces through
// the name server; a POP consumer (raw 5.x frames) is assigned the topic in
// POP mode through QUERY_ASSIGNMENT (route from the name server), pops with
// a tag filter, acks half, gets the other half back through the retry topic
// with reconsumeTimes 1, and never sees the other tag.
func TestPopGoProducerToPopConsumer(t *testing.T) {
	e := newConsumeEnv(t, func(cfg *broker.BrokerConfig, _ *store.MessageStoreConfig) { cfg.ReviveInterval = 20 })
	e.send("a", 8, "A", map[string]string{"k": "v"})
	e.send("b", 4, "B", nil)
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("popclient"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Shutdown(ctx)
	})
	pc := &popClient{t: t, c: c, addr: e.b.Addr().String(), group: uniqueName("popg"), topic: e.topic}

	hb := body.HeartbeatData{ClientID: "pop-client-1", ConsumerDataSet: []body.ConsumerData{{GroupName: pc.group,
		ConsumeType: "CONSUME_POP", MessageModel: "CLUSTERING", ConsumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
		SubscriptionDataSet: []body.SubscriptionData{{Topic: pc.topic, SubString: "A", TagsSet: []string{"A"},
			CodeSet: []int32{65}, SubVersion: time.Now().UnixMilli(), ExpressionType: "TAG"}}}}}
	if resp := pc.call(codec.NewRequest(code.HeartBeat, nil, hb.Encode())); resp.Code != code.Success {
		t.Fatalf("heartbeat: %s", code.ResponseName(resp.Code))
	}
	mode, _ := json.Marshal(pop.RequestMode{ConsumerGroup: pc.group, Mode: pop.ModePop, Topic: pc.topic})
	if resp := pc.call(codec.NewRequest(code.SetMessageRequestMode, nil, mode)); resp.Code != code.Success {
		t.Fatalf("set request mode: %s %q", code.ResponseName(resp.Code), resp.Remark)
	}
	q, _ := json.Marshal(map[string]string{"clientId": "pop-client-1", "consumerGroup": pc.group,
		"messageModel": "CLUSTERING", "strategyName": "AVG", "topic": pc.topic})
	resp := pc.call(codec.NewRequest(code.QueryAssignment, nil, q))
	want := `{"messageQueueAssignments":[{"messageQueue":{"brokerName":"broker-a","queueId":-1,"topic":"` + pc.topic + `"},"mode":"POP"}]}`
	if resp.Code != code.Success || string(resp.Body) != want {
		t.Fatalf("assignment: %s %s", code.ResponseName(resp.Code), resp.Body)
	}

	got := map[string]poppedMsg{}
	testutil.Eventually(t, wait.Scale(10*time.Second), func() error {
		for _, p := range pc.pop("A", wait.Scale(time.Second).Milliseconds()) {
			got[string(p.m.Body)] = p
		}
		if len(got) < 8 {
			return fmt.Errorf("popped %d of 8", len(got))
		}
		return nil
	})
	var names []string
	for b, p := range got {
		names = append(names, b)
		if p.m.Properties["k"] != "v" || p.m.Properties["TAGS"] != "A" || p.m.ReconsumeTimes != 0 {
			t.Fatalf("%s: props %v reconsume %d", b, p.m.Properties, p.m.ReconsumeTimes)
		}
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "a-0,a-1,a-2,a-3,a-4,a-5,a-6,a-7" {
		t.Fatalf("popped %v", names)
	}
	for i, b := range names {
		if i%2 == 0 {
			pc.ack(got[b])
		}
	}
	back := map[string]int32{}
	testutil.Eventually(t, wait.Scale(15*time.Second), func() error {
		for _, p := range pc.pop("A", 60_000) {
			back[string(p.m.Body)] = p.m.ReconsumeTimes
			pc.ack(p)
		}
		if len(back) < 4 {
			return fmt.Errorf("revived %v", back)
		}
		return nil
	})
	if fmt.Sprint(back) != "map[a-1:1 a-3:1 a-5:1 a-7:1]" {
		t.Fatalf("revived %v, want the four unacked with reconsumeTimes 1", back)
	}
}

// TestPopReviveOnMasterOnly: the revive service runs on the master of a
// master/slave pair and not on the slave, which replicates the revive log
// and the revive progress instead.
func TestPopReviveOnMasterOnly(t *testing.T) {
	t.Parallel()
	e := newHAEnv(t, store.AsyncMaster)
	if !e.master.PopReviveBuilt() || e.slave.PopReviveBuilt() {
		t.Fatalf("revive service: master %v slave %v, want master only", e.master.PopReviveBuilt(), e.slave.PopReviveBuilt())
	}
}
