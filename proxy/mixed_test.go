package proxy_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/rocketmq-go/rmq/internal/testutil"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// TestProxyMixedGoClient: a message sent over gRPC reaches the official
// remoting Go client's push consumer with the gRPC message id as MsgId and
// its tag, keys and user properties; a topic a remoting producer creates is
// routed over gRPC.
func TestProxyMixedGoClient(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startEnv(t, mode)
		topic := "MixedTopic" + mode
		e.createTopic(t, topic, 2)
		m := newMsg(topic, "from grpc")
		tag := "TagM"
		m.SystemProperties.Tag = &tag
		m.SystemProperties.Keys = []string{"mk"}
		m.UserProperties = map[string]string{"origin": "grpc"}
		if r := e.send(t, newClientID(), m); r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("send: %v", r)
		}

		var (
			mu  sync.Mutex
			got []*primitive.MessageExt
		)
		c, err := consumer.NewPushConsumer(
			consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
			consumer.WithGroupName("MixedGroup"+mode),
			consumer.WithInstance("mixed-"+mode),
			consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		)
		if err != nil {
			t.Fatal(err)
		}
		err = c.Subscribe(topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "TagM"}, func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			mu.Lock()
			got = append(got, msgs...)
			mu.Unlock()
			return consumer.ConsumeSuccess, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		started := time.Now()
		t.Cleanup(func() { _ = testutil.ShutdownSettled(started, c.Shutdown) })
		testutil.Eventually(t, 20*time.Second, func() error {
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 1 {
				return fmt.Errorf("received %d messages", len(got))
			}
			r := got[0]
			if r.MsgId != m.SystemProperties.MessageId || string(r.Body) != "from grpc" || r.GetTags() != "TagM" ||
				r.GetKeys() != "mk" || r.GetProperty("origin") != "grpc" {
				t.Fatalf("received %+v", r)
			}
			return nil
		})

		p, err := producer.NewDefaultProducer(
			producer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
			producer.WithGroupName("MixedPG"+mode), producer.WithInstanceName("mixedp-"+mode))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Shutdown() })
		newTopic := "RemotingMade" + mode
		if _, err := p.SendSync(t.Context(), primitive.NewMessage(newTopic, []byte("from remoting"))); err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, 10*time.Second, func() error {
			resp, err := e.cli.QueryRoute(e.ctx(t, newClientID()), &apiv2.QueryRouteRequest{Topic: &apiv2.Resource{Name: newTopic}, Endpoints: e.endpoints()})
			if err != nil {
				return err
			}
			if resp.GetStatus().GetCode() != apiv2.Code_OK || len(resp.GetMessageQueues()) == 0 {
				return fmt.Errorf("route %v", resp)
			}
			return nil
		})
	})
}
