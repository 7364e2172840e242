package proxy_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"github.com/rocketmq-go/rmq/internal/testutil"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// TestProxyGRPCMixedRemotingProducerToGRPCReceive: messages the official Go
// (remoting) client sends, with tag, keys and a user property, are received
// over gRPC with those fields and the producer's message id.
func TestProxyGRPCMixedRemotingProducerToGRPCReceive(t *testing.T) {
	rlog.SetLogLevel("error")
	modes(t, func(t *testing.T, mode string) {
		e := startConsumeEnv(t, mode)
		e.createTopic(t, "MixIn", 2)
		p, err := producer.NewDefaultProducer(
			producer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
			producer.WithGroupName("MixPG_"+mode), producer.WithInstanceName("mixp_"+mode), producer.WithRetry(2))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Shutdown() })
		ids := map[string]string{}
		for i := range 3 {
			m := primitive.NewMessage("MixIn", []byte("remoting-"+strconv.Itoa(i)))
			m.WithTag("TagR").WithKeys([]string{"k" + strconv.Itoa(i)}).WithProperty("color", "blue")
			res, err := p.SendSync(t.Context(), m)
			if err != nil {
				t.Fatal(err)
			}
			ids[res.MsgID] = "remoting-" + strconv.Itoa(i)
		}
		cli := newClientID()
		got := e.receiveN(t, cli, "MixIn", "GMixIn", 3, 5*time.Second)
		for _, m := range got {
			sp := m.GetSystemProperties()
			if ids[sp.GetMessageId()] != string(m.GetBody()) || sp.GetTag() != "TagR" || len(sp.GetKeys()) != 1 ||
				m.GetUserProperties()["color"] != "blue" || sp.GetBornHost() == "" || sp.GetStoreHost() == "" {
				t.Fatalf("received %v, sent ids %v", m, ids)
			}
		}
		if r := e.ack(t, cli, "MixIn", "GMixIn", got...); r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("ack: %v", r)
		}
	})
}

// TestProxyGRPCMixedGRPCSendToRemotingPush: messages sent over gRPC are
// consumed by the official Go client's push consumer.
func TestProxyGRPCMixedGRPCSendToRemotingPush(t *testing.T) {
	rlog.SetLogLevel("error")
	modes(t, func(t *testing.T, mode string) {
		e := startConsumeEnv(t, mode)
		e.createTopic(t, "MixOut", 2)
		var mu sync.Mutex
		seen := map[string]bool{}
		c, err := consumer.NewPushConsumer(
			consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{e.nsAddr})),
			consumer.WithGroupName("GMixOut_"+mode), consumer.WithInstance("mixc_"+mode),
			consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Subscribe("MixOut", consumer.MessageSelector{Type: consumer.TAG, Expression: "*"},
			func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
				mu.Lock()
				defer mu.Unlock()
				for _, m := range msgs {
					seen[string(m.Body)+"|"+m.GetProperty("UNIQ_KEY")] = true
				}
				return consumer.ConsumeSuccess, nil
			}); err != nil {
			t.Fatal(err)
		}
		started := time.Now()
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		// The client's first rebalance races its own Shutdown (testutil).
		t.Cleanup(func() { _ = testutil.ShutdownSettled(started, c.Shutdown) })
		want := map[string]bool{}
		cli := newClientID()
		for i := range 3 {
			m := newMsg("MixOut", "grpc-"+strconv.Itoa(i))
			if r := e.send(t, cli, m); r.GetStatus().GetCode() != apiv2.Code_OK {
				t.Fatalf("send: %v", r)
			}
			want["grpc-"+strconv.Itoa(i)+"|"+m.GetSystemProperties().GetMessageId()] = true
		}
		testutil.Eventually(t, 30*time.Second, func() error {
			mu.Lock()
			defer mu.Unlock()
			for k := range want {
				if !seen[k] {
					return fmt.Errorf("push consumer has %v, want %v", seen, want)
				}
			}
			return nil
		})
	})
}
