package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// TestAdminGoClientCreateAndDeleteTopic drives topic administration with
// the official Go client's admin API: the created topic reaches the name
// server through the broker's incremental registration, and DeleteTopic
// removes it from both.
func TestAdminGoClientCreateAndDeleteTopic(t *testing.T) {
	rlog.SetLogLevel("error")
	ns := testutil.StartNamesrv(t)
	nsAddr := ns.Addr().String()
	b := testutil.StartBroker(t, nsAddr)
	brokerAddr := b.BrokerAddr()

	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{nsAddr})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = adm.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	topic := uniqueName("AdminT")
	if err := adm.CreateTopic(ctx, admin.WithTopicCreate(topic), admin.WithBrokerAddrCreate(brokerAddr),
		admin.WithReadQueueNums(3), admin.WithWriteQueueNums(3)); err != nil {
		t.Fatal(err)
	}
	if tc := b.Topics().SelectTopicConfig(topic); tc == nil || tc.WriteQueueNums != 3 || tc.Perm != 6 {
		t.Fatalf("broker topic config %+v", tc)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		list, err := adm.FetchAllTopicList(ctx)
		if err != nil {
			return err
		}
		if !slices.Contains(list.TopicList, topic) {
			return fmt.Errorf("%s not in %v", topic, list.TopicList)
		}
		return nil
	})
	mqs, err := adm.FetchPublishMessageQueues(ctx, topic)
	if err != nil || len(mqs) != 3 || mqs[0].BrokerName != b.Config().BrokerName {
		t.Fatalf("publish queues %v %v", mqs, err)
	}

	if err := adm.DeleteTopic(ctx, admin.WithTopicDelete(topic), admin.WithBrokerAddrDelete(brokerAddr),
		admin.WithNameSrvAddr([]string{nsAddr})); err != nil {
		t.Fatal(err)
	}
	if b.Topics().SelectTopicConfig(topic) != nil {
		t.Fatal("topic still on the broker")
	}
	list, err := adm.FetchAllTopicList(ctx)
	if err != nil || slices.Contains(list.TopicList, topic) {
		t.Fatalf("topic list after delete %v %v", list, err)
	}

	// The Go admin reads the broker's subscription groups (fastjson body).
	groups, err := adm.GetAllSubscriptionGroup(ctx, brokerAddr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := groups.SubscriptionGroupTable["TOOLS_CONSUMER"]; !ok {
		t.Fatalf("system groups missing: %d groups", len(groups.SubscriptionGroupTable))
	}
}

// TestAdminSubscriptionGroupRawFrames creates and deletes a subscription
// group with the frames mqadmin sends, and reads the table back.
func TestAdminSubscriptionGroupRawFrames(t *testing.T) {
	t.Parallel()
	b := testutil.StartBroker(t, "")
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	addr := b.Addr().String()
	call := func(req *codec.RemotingCommand) *codec.RemotingCommand {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		resp, err := rc.InvokeSync(ctx, addr, req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Code != code.Success {
			t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
		}
		return resp
	}
	group := uniqueName("admin_sub_group")
	cfg := body.NewSubscriptionGroupConfig(group)
	cfg.RetryQueueNums, cfg.ConsumeBroadcastEnable = 2, true
	call(codec.NewRequest(code.UpdateAndCreateSubscriptiongroup, nil, cfg.AppendJSON(nil)))
	var w body.SubscriptionGroupWrapper
	if err := w.Decode(call(codec.NewRequest(code.GetAllSubscriptiongroupConfig, nil, nil)).Body); err != nil {
		t.Fatal(err)
	}
	got, ok := w.SubscriptionGroupTable[group]
	if !ok || got.RetryQueueNums != 2 || !got.ConsumeBroadcastEnable {
		t.Fatalf("group %+v %v", got, ok)
	}
	h := header.DeleteSubscriptionGroupRequestHeader{GroupName: group}
	call(codec.NewRequest(code.DeleteSubscriptiongroup, h.ToExtFields(), nil))
	w = body.SubscriptionGroupWrapper{}
	if err := w.Decode(call(codec.NewRequest(code.GetAllSubscriptiongroupConfig, nil, nil)).Body); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.SubscriptionGroupTable[group]; ok {
		t.Fatal("group still listed after delete")
	}
}
