package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// TestNode5ConsumerRunningInfoWithStack: an admin tool asking the broker
// for a Node PushConsumer's running info with its stack
// (GET_CONSUMER_RUNNING_INFO, jstackEnable, as `mqadmin consumerStatus`
// does) gets the answer the SDK gives over Telemetry to
// PrintThreadStackTraceCommand ("mock stack" in 1.0.8), and the client's
// version.
func TestNode5ConsumerRunningInfoWithStack(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	group := uniqueName("nri")
	p := startNode(t, "push_consumer.js", map[string]any{
		"endpoints": e.endpoint, "topic": e.topic, "group": group, "expect": 1,
		"timeoutMs": node5Timeout(45 * time.Second).Milliseconds(),
	})
	p.waitFor(node5Timeout(30*time.Second), "push consumer start", func(ev node5Event) bool { return ev.Event == "started" })
	cl := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("admin"))
	t.Cleanup(func() { _ = cl.Shutdown(context.Background()) })
	addr := e.b.BrokerAddr()
	var ids []string
	testutil.Eventually(t, node5Timeout(20*time.Second), func() error {
		resp, err := invoke(t, cl, addr, code.GetConsumerListByGroup, &header.GetConsumerListByGroupRequestHeader{ConsumerGroup: group})
		if err != nil {
			return err
		}
		l, err := body.DecodeGetConsumerListByGroupResponseBody(resp.Body)
		if err != nil || len(l.ConsumerIDList) == 0 {
			return fmt.Errorf("consumers of %s: %v %v", group, l, err)
		}
		ids = l.ConsumerIDList
		return nil
	})
	resp, err := invoke(t, cl, addr, code.GetConsumerRunningInfo,
		&header.GetConsumerRunningInfoRequestHeader{ConsumerGroup: group, ClientID: ids[0], JstackEnable: true})
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Jstack     string            `json:"jstack"`
		Properties map[string]string `json:"properties"`
	}
	if err := json.Unmarshal(resp.Body, &info); err != nil {
		t.Fatalf("running info %q: %v", resp.Body, err)
	}
	if info.Jstack != "mock stack" || info.Properties["PROP_CLIENT_VERSION"] != "1.0.8" {
		t.Errorf("running info of %s: %s", ids[0], resp.Body)
	}
}

// invoke sends an admin request to addr and returns a SUCCESS answer.
func invoke(t *testing.T, cl *remoting.Client, addr string, c int32, h interface{ ToExtFields() map[string]string }) (*codec.RemotingCommand, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), node5Timeout(10*time.Second))
	defer cancel()
	resp, err := cl.InvokeSync(ctx, addr, codec.NewRequest(c, h.ToExtFields(), nil))
	if err != nil {
		return nil, err
	}
	if resp.Code != code.Success {
		return nil, fmt.Errorf("code %d: %s", resp.Code, resp.Remark)
	}
	return resp, nil
}

// TestNode5ConsumerListShowsEachClient: two Node PushConsumers of one
// group show up at the broker as two consumers, under the client ids they
// sent (x-mq-client-id), as 5.x's proxy registers each gRPC client: admin
// tools (consumerConnection, consumerStatus -i) list and address them.
func TestNode5ConsumerListShowsEachClient(t *testing.T) {
	t.Parallel()
	e := newNode5Env(t)
	group := uniqueName("ncl")
	want := map[string]bool{}
	for range 2 {
		p := startNode(t, "push_consumer.js", map[string]any{
			"endpoints": e.endpoint, "topic": e.topic, "group": group, "expect": 1,
			"timeoutMs": node5Timeout(45 * time.Second).Milliseconds(),
		})
		ev := p.waitFor(node5Timeout(30*time.Second), "push consumer start", func(ev node5Event) bool { return ev.Event == "started" })
		want[ev.ClientID] = true
	}
	cl := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("admin"))
	t.Cleanup(func() { _ = cl.Shutdown(context.Background()) })
	testutil.Eventually(t, node5Timeout(20*time.Second), func() error {
		resp, err := invoke(t, cl, e.b.BrokerAddr(), code.GetConsumerListByGroup, &header.GetConsumerListByGroupRequestHeader{ConsumerGroup: group})
		if err != nil {
			return err
		}
		l, err := body.DecodeGetConsumerListByGroupResponseBody(resp.Body)
		if err != nil {
			return err
		}
		got := map[string]bool{}
		for _, id := range l.ConsumerIDList {
			got[id] = true
		}
		if !maps.Equal(got, want) {
			return fmt.Errorf("consumers of %s at the broker: %v, want the Node clients %v", group, l.ConsumerIDList, want)
		}
		return nil
	})
}
