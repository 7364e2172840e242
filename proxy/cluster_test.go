package proxy_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// TestProxyClusterTwoBrokers: in cluster mode a topic on two brokers is
// routed with both brokers' queues (all at the proxy's endpoints), and
// sends without a message group are spread over both brokers.
func TestProxyClusterTwoBrokers(t *testing.T) {
	e := startEnv(t, "cluster")
	b2 := testutil.StartBroker(t, e.nsAddr, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) { c.BrokerName = "broker-b" })
	for _, b := range []*broker.Broker{e.b, b2} {
		tc := body.NewTopicConfig("SpreadTopic")
		tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 2, 2, 6
		b.Topics().UpdateTopicConfig(tc)
		b.RegisterBrokerAll(false)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		resp, err := e.cli.QueryRoute(e.ctx(t, newClientID()), &apiv2.QueryRouteRequest{Topic: &apiv2.Resource{Name: "SpreadTopic"}, Endpoints: e.endpoints()})
		if err != nil {
			return err
		}
		names := map[string]int{}
		for _, q := range resp.GetMessageQueues() {
			names[q.GetBroker().GetName()]++
			if q.GetBroker().GetEndpoints().GetAddresses()[0].GetPort() != e.endpoints().GetAddresses()[0].GetPort() {
				return fmt.Errorf("queue not at the proxy: %v", q)
			}
		}
		if names["broker-a"] != 2 || names["broker-b"] != 2 {
			return fmt.Errorf("queues per broker %v", names)
		}
		return nil
	})
	cli := newClientID()
	for i := range 8 {
		if r := e.send(t, cli, newMsg("SpreadTopic", fmt.Sprint("m", i))); r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("send %d: %v", i, r)
		}
	}
	count := func(b *broker.Broker) int {
		n := 0
		for q := range int32(2) {
			n += b.Store().GetMessage("proxy_test", "SpreadTopic", q, 0, 64, nil).MessageCount()
		}
		return n
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		a, b := count(e.b), count(b2)
		if a+b != 8 || a == 0 || b == 0 {
			return fmt.Errorf("broker-a has %d, broker-b %d of 8", a, b)
		}
		return nil
	})
}
