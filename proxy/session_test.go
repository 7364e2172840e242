package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// telemetry opens clientID's Telemetry stream and sends st; it returns the
// stream and the server's answer.
func (e *env) telemetry(t *testing.T, clientID string, st *apiv2.Settings) (apiv2.MessagingService_TelemetryClient, *apiv2.TelemetryCommand) {
	t.Helper()
	// A stream lives for the whole test (check-back commands arrive on it).
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	ctx = metadata.AppendToOutgoingContext(ctx, proxy.MetaClientID, clientID)
	stream, err := e.cli.Telemetry(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&apiv2.TelemetryCommand{Command: &apiv2.TelemetryCommand_Settings{Settings: st}}); err != nil {
		t.Fatal(err)
	}
	reply, err := stream.Recv()
	if err != nil {
		t.Fatalf("telemetry answer: %v", err)
	}
	return stream, reply
}

func producerSettings(topics ...string) *apiv2.Settings {
	ct := apiv2.ClientType_PRODUCER
	p := &apiv2.Publishing{}
	for _, tp := range topics {
		p.Topics = append(p.Topics, &apiv2.Resource{Name: tp})
	}
	return &apiv2.Settings{ClientType: &ct, PubSub: &apiv2.Settings_Publishing{Publishing: p}}
}

func consumerSettings(group, topic string) *apiv2.Settings {
	ct := apiv2.ClientType_SIMPLE_CONSUMER
	return &apiv2.Settings{ClientType: &ct, PubSub: &apiv2.Settings_Subscription{Subscription: &apiv2.Subscription{
		Group: &apiv2.Resource{Name: group},
		Subscriptions: []*apiv2.SubscriptionEntry{{Topic: &apiv2.Resource{Name: topic},
			Expression: &apiv2.FilterExpression{Type: apiv2.FilterType_TAG, Expression: "TagA || TagB"}}},
	}}}
}

// TestProxyTelemetryProducerSettings: the server answers a producer's
// settings with 5.x's backoff policy and body limit, Heartbeat then
// succeeds, the broker lists the topic as a producer group, and
// NotifyClientTermination unregisters it.
func TestProxyTelemetryProducerSettings(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startEnv(t, mode)
		e.createTopic(t, "TeleTopic", 2)
		cli := newClientID()
		hb, err := e.cli.Heartbeat(e.ctx(t, cli), &apiv2.HeartbeatRequest{})
		if err != nil || hb.GetStatus().GetCode() != apiv2.Code_UNRECOGNIZED_CLIENT_TYPE {
			t.Fatalf("heartbeat before settings: %v %v", hb, err)
		}
		_, reply := e.telemetry(t, cli, producerSettings("TeleTopic"))
		st := reply.GetSettings()
		if reply.GetStatus().GetCode() != apiv2.Code_OK || st == nil {
			t.Fatalf("reply %v", reply)
		}
		bp := st.GetBackoffPolicy()
		if bp.GetMaxAttempts() != 3 || bp.GetExponentialBackoff().GetInitial().AsDuration() != 10*time.Millisecond ||
			bp.GetExponentialBackoff().GetMax().AsDuration() != time.Second || bp.GetExponentialBackoff().GetMultiplier() != 2 {
			t.Fatalf("backoff %v", bp)
		}
		if st.GetPublishing().GetMaxBodySize() != 4<<20 || !st.GetPublishing().GetValidateMessageType() || st.GetMetric().GetOn() {
			t.Fatalf("settings %v", st)
		}
		hb, err = e.cli.Heartbeat(e.ctx(t, cli), &apiv2.HeartbeatRequest{ClientType: apiv2.ClientType_PRODUCER})
		if err != nil || hb.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("heartbeat: %v %v", hb, err)
		}
		testutil.Eventually(t, 10*time.Second, func() error {
			if len(e.b.Producers().ChannelInfos("TeleTopic")) == 0 {
				return errors.New("producer group TeleTopic not registered with the broker")
			}
			return nil
		})
		nt, err := e.cli.NotifyClientTermination(e.ctx(t, cli), &apiv2.NotifyClientTerminationRequest{})
		if err != nil || nt.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("termination: %v %v", nt, err)
		}
		testutil.Eventually(t, 10*time.Second, func() error {
			if n := len(e.b.Producers().ChannelInfos("TeleTopic")); n != 0 {
				return fmt.Errorf("producer group still has %d channels", n)
			}
			return nil
		})
	})
}

// TestProxyTelemetryConsumerSettings: a consumer's settings come back with
// the long-polling defaults and the group's retry policy (16 retries: 17
// attempts, the customized 1s…2h backoff), and the group with its tag
// subscription is registered with the broker.
func TestProxyTelemetryConsumerSettings(t *testing.T) {
	e := startEnv(t, "cluster")
	e.createTopic(t, "SubTopic", 2)
	cli := newClientID()
	_, reply := e.telemetry(t, cli, consumerSettings("GroupA", "SubTopic"))
	st := reply.GetSettings()
	sub := st.GetSubscription()
	if reply.GetStatus().GetCode() != apiv2.Code_OK || sub.GetReceiveBatchSize() != 32 ||
		sub.GetLongPollingTimeout().AsDuration() != 20*time.Second || sub.GetFifo() {
		t.Fatalf("reply %v", reply)
	}
	bp := st.GetBackoffPolicy()
	next := bp.GetCustomizedBackoff().GetNext()
	if bp.GetMaxAttempts() != 17 || len(next) != 18 || next[0].AsDuration() != time.Second || next[17].AsDuration() != 2*time.Hour {
		t.Fatalf("backoff %v", bp)
	}
	hb, err := e.cli.Heartbeat(e.ctx(t, cli), &apiv2.HeartbeatRequest{Group: &apiv2.Resource{Name: "GroupA"}, ClientType: apiv2.ClientType_SIMPLE_CONSUMER})
	if err != nil || hb.GetStatus().GetCode() != apiv2.Code_OK {
		t.Fatalf("heartbeat: %v %v", hb, err)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		sd := e.b.Consumers().FindSubscriptionData("GroupA", "SubTopic")
		if sd == nil {
			return errors.New("GroupA not registered")
		}
		if sd.SubString != "TagA || TagB" || len(sd.TagsSet) != 2 {
			return fmt.Errorf("subscription %+v", sd)
		}
		return nil
	})
	hb, err = e.cli.Heartbeat(e.ctx(t, cli), &apiv2.HeartbeatRequest{Group: &apiv2.Resource{Name: ""}, ClientType: apiv2.ClientType_SIMPLE_CONSUMER})
	if err != nil || hb.GetStatus().GetCode() != apiv2.Code_ILLEGAL_CONSUMER_GROUP {
		t.Fatalf("heartbeat without group: %v %v", hb, err)
	}
}

// TestProxyTelemetryBadSettings: settings without publishing or
// subscription, or with an illegal topic, end the stream with
// INVALID_ARGUMENT as 5.x does.
func TestProxyTelemetryBadSettings(t *testing.T) {
	e := startEnv(t, "local")
	for name, st := range map[string]*apiv2.Settings{
		"no pub/sub":    {},
		"illegal topic": producerSettings("bad topic"),
		"illegal group": consumerSettings("", "T"),
	} {
		t.Run(name, func(t *testing.T) {
			stream, err := e.cli.Telemetry(e.ctx(t, newClientID()))
			if err != nil {
				t.Fatal(err)
			}
			if err := stream.Send(&apiv2.TelemetryCommand{Command: &apiv2.TelemetryCommand_Settings{Settings: st}}); err != nil {
				t.Fatal(err)
			}
			_, err = stream.Recv()
			if status.Code(err) != codes.InvalidArgument {
				t.Fatalf("got %v, want InvalidArgument", err)
			}
		})
	}
}

// TestProxyConsumerIdsChangedHandled: the broker's NOTIFY_CONSUMER_IDS_CHANGED
// to the proxy (sent when a gRPC consumer group is registered) is taken,
// not answered REQUEST_CODE_NOT_SUPPORTED with a warning.
func TestProxyConsumerIdsChangedHandled(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startEnv(t, mode)
		e.createTopic(t, "NotifyTopic", 1)
		e.telemetry(t, newClientID(), consumerSettings("NotifyGroup", "NotifyTopic"))
		testutil.Eventually(t, 10*time.Second, func() error {
			if e.logs.FilterMessage("consumer ids changed").Len() == 0 {
				return errors.New("no NOTIFY_CONSUMER_IDS_CHANGED seen")
			}
			return nil
		})
		if n := e.logs.FilterMessage("request code not supported").Len(); n != 0 {
			t.Fatalf("%d request-code-not-supported warnings", n)
		}
	})
}

// TestProxyLocalModeRegistersEachClient: in local mode each gRPC client is
// registered at the broker under its own client id (as 5.x's local proxy
// does), so admin tools list and address them; a terminated client leaves
// the list.
func TestProxyLocalModeRegistersEachClient(t *testing.T) {
	e := startEnv(t, "local")
	e.createTopic(t, "EachTopic", 1)
	a, b := newClientID(), newClientID()
	e.telemetry(t, a, consumerSettings("EachGroup", "EachTopic"))
	e.telemetry(t, b, consumerSettings("EachGroup", "EachTopic"))
	ids := func() map[string]bool {
		out := map[string]bool{}
		if g := e.b.Consumers().GetConsumerGroupInfo("EachGroup"); g != nil {
			for _, id := range g.AllClientIDs() {
				out[id] = true
			}
		}
		return out
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		if got := ids(); len(got) != 2 || !got[a] || !got[b] {
			return fmt.Errorf("consumers at the broker %v, want %s and %s", got, a, b)
		}
		return nil
	})
	if r, err := e.cli.NotifyClientTermination(e.ctx(t, a), &apiv2.NotifyClientTerminationRequest{Group: &apiv2.Resource{Name: "EachGroup"}}); err != nil || r.GetStatus().GetCode() != apiv2.Code_OK {
		t.Fatalf("termination: %v %v", r, err)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		if got := ids(); len(got) != 1 || !got[b] {
			return fmt.Errorf("consumers at the broker %v, want only %s", got, b)
		}
		return nil
	})
}
