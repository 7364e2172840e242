package admin_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/admin"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func newAdmin(t *testing.T) (*admin.Admin, *remoting.Client, string, string) {
	t.Helper()
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String())
	tc := body.NewTopicConfig("AdminT")
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 2, 2, 6
	b.Topics().UpdateTopicConfig(tc)
	b.RegisterBrokerAll(false)
	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	return admin.New(rc, []string{"127.0.0.1:1", ns.Addr().String()}), rc, b.BrokerAddr(), ns.Addr().String()
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// A name server that does not answer is skipped for the next one; a
// missing topic is ErrNotFound.
func TestAdminNamesrvFailoverAndRoute(t *testing.T) {
	t.Parallel()
	a, _, baddr, _ := newAdmin(t)
	ci, err := a.ClusterInfo(ctx(t))
	if err != nil || ci.BrokerAddrTable["broker-a"] == nil || ci.BrokerAddrTable["broker-a"].BrokerAddrs[0] != baddr {
		t.Fatalf("cluster info %+v %v", ci, err)
	}
	topics, err := a.TopicList(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tp := range topics {
		found = found || tp == "AdminT"
	}
	if !found {
		t.Errorf("AdminT not in %v", topics)
	}
	if _, err := a.TopicRoute(ctx(t), "NoSuchTopic"); !errors.Is(err, admin.ErrNotFound) {
		t.Errorf("missing topic: %v", err)
	}
	stats, err := a.TopicStats(ctx(t), "AdminT")
	if err != nil || len(stats) != 2 {
		t.Errorf("topic stats %v %v", stats, err)
	}
}

// Offsets committed without a heartbeat leave no %RETRY% route: Java's
// examineConsumeStats fails there; we ask every broker group instead.
func TestAdminConsumeStatsWithoutRetryRoute(t *testing.T) {
	t.Parallel()
	a, rc, baddr, _ := newAdmin(t)
	if _, err := a.ConsumeStats(ctx(t), "NoSuchGroup", ""); !errors.Is(err, admin.ErrNotOnline) {
		t.Fatalf("unknown group: %v", err)
	}
	h := header.UpdateConsumerOffsetRequestHeader{ConsumerGroup: "OffsetsOnly", Topic: "AdminT", QueueID: 1, CommitOffset: 0}
	resp, err := rc.InvokeSync(ctx(t), baddr, codec.NewRequest(code.UpdateConsumerOffset, h.ToExtFields(), nil))
	if err != nil || resp.Code != code.Success {
		t.Fatalf("commit: %v %v", err, resp)
	}
	if _, err := a.TopicRoute(ctx(t), admin.RetryTopic("OffsetsOnly")); !errors.Is(err, admin.ErrNotFound) {
		t.Fatalf("retry route exists: %v", err)
	}
	cs, err := a.ConsumeStats(ctx(t), "OffsetsOnly", "")
	if err != nil || len(cs.OffsetTable) != 2 {
		t.Fatalf("consume stats %+v %v", cs, err)
	}
	if _, err := a.ConsumerConnection(ctx(t), "OffsetsOnly"); !errors.Is(err, admin.ErrNotOnline) {
		t.Errorf("connections of a group nobody runs: %v", err)
	}
}
