package broker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/rocketmq-go/rmq/broker"
	bmetrics "github.com/rocketmq-go/rmq/broker/metrics"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/metrics"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func withProm(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
	c.Metrics.MetricsExporterType = metrics.ExporterProm
	c.Metrics.MetricsPromExporterHost = "127.0.0.1"
	c.Metrics.MetricsPromExporterPort = 0
}

// scrapeWhen scrapes until every want series exists: a request's latency
// is recorded just after its answer went out, so the client can be a
// little ahead of the histogram.
func scrapeWhen(t *testing.T, b *broker.Broker, want ...map[string]string) map[string]*dto.MetricFamily {
	t.Helper()
	var fams map[string]*dto.MetricFamily
	testutil.Eventually(t, 5*time.Second, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		if fams, err = metrics.Scrape(ctx, b.MetricsAddr().String()); err != nil {
			return err
		}
		for _, l := range want {
			if metrics.Find(fams, metrics.RPCLatencyName, l) == nil {
				return fmt.Errorf("no %s%v yet", metrics.RPCLatencyName, l)
			}
		}
		return nil
	})
	return fams
}

func gaugeOf(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	m := metrics.Find(fams, name, labels)
	if m == nil {
		t.Fatalf("no %s%v", name, labels)
	}
	return m.GetGauge().GetValue()
}

// A group committed offset 1 of 6 messages and pulled up to offset 4: the
// lag gauges show 5 behind, 3 in flight (pulled, not committed) and 2
// ready (not pulled yet), as 5.x's ConsumerLagCalculator computes them.
func TestBrokerMetricsConsumerLagInflightReady(t *testing.T) {
	e := newConsumeEnv(t, withProm)
	const topic, group = "LagT", "lagcg"
	for i := range 6 {
		e.send(topic, 0, nil, fmt.Sprint("m", i))
	}
	e.waitDispatched(topic, 0, 6)
	// A Java client's send (SEND_MESSAGE_V2) to another topic.
	e.expect(e.call(sendRequest(code.SendMessageV2, sendHeader("V2T", 0, nil), []byte("v2"))), code.Success, "")
	e.b.Subscriptions().UpdateSubscriptionGroupConfig(body.NewSubscriptionGroupConfig(group))
	registerConsumer(e.b, group, "CLUSTERING", 1, body.SubscriptionData{Topic: topic, SubString: "*",
		SubVersion: 100, ExpressionType: "TAG"})
	e.b.Offsets().CommitOffset("127.0.0.1:1", group, topic, 0, 1)
	h := &header.PullMessageRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: 0, QueueOffset: 1,
		MaxMsgNums: 3, CommitOffset: -1, SuspendTimeoutMillis: 15000}
	resp := e.call(codec.NewRequest(code.PullMessage, h.ToExtFields(), nil))
	e.expect(resp, code.Success, "FOUND")
	if rh := pullHeader(t, resp); rh.NextBeginOffset != 4 {
		t.Fatalf("next begin offset %d, want 4", rh.NextBeginOffset)
	}

	fams := scrapeWhen(t, e.b, map[string]string{"request_code": "pull_message"},
		map[string]string{"request_code": "send_message_v2"})
	l := map[string]string{"consumer_group": group, "topic": topic, "is_retry": "false", "is_system": "false"}
	for name, want := range map[string]float64{bmetrics.ConsumerLagMessages: 5, bmetrics.ConsumerInflight: 3,
		bmetrics.ConsumerReadyMessages: 2} {
		if got := gaugeOf(t, fams, name, l); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := gaugeOf(t, fams, bmetrics.ConsumerLagLatency, l); got < 0 || got > 60_000 {
		t.Errorf("%s = %v ms, want the age of message 1", bmetrics.ConsumerLagLatency, got)
	}
	if m := metrics.Find(fams, bmetrics.MessagesOut, map[string]string{"consumer_group": group, "topic": topic}); m.GetCounter().GetValue() != 3 {
		t.Errorf("%s = %v, want 3", bmetrics.MessagesOut, m)
	}
	if m := metrics.Find(fams, metrics.RPCLatencyName, map[string]string{"request_code": "pull_message",
		"response_code": "success", "is_long_polling": "false"}); m.GetHistogram().GetSampleCount() != 1 {
		t.Errorf("%s for the pull: %v, want 1 sample", metrics.RPCLatencyName, m)
	}
	v2 := map[string]string{"request_code": "send_message_v2", "response_code": "success", "result": "success",
		"protocol_type": "remoting", "node_type": "broker", "cluster": "DefaultCluster", "node_id": "broker-a"}
	if m := metrics.Find(fams, metrics.RPCLatencyName, v2); m.GetHistogram().GetSampleCount() != 1 {
		t.Errorf("%s%v: %v, want 1 sample", metrics.RPCLatencyName, v2, m)
	}
	in := map[string]string{"topic": "V2T", "message_type": "normal", "is_system": "false"}
	if m := metrics.Find(fams, bmetrics.MessagesIn, in); m.GetCounter().GetValue() != 1 {
		t.Errorf("%s%v = %v, want 1", bmetrics.MessagesIn, in, m)
	}
}

// A pull the broker parks (here short polling, answered PULL_NOT_FOUND
// when its 100 ms are up) is labelled is_long_polling=true, as 5.x labels
// a suspended request; one answered at once is not.
func TestBrokerMetricsSuspendedPullLabelled(t *testing.T) {
	e := newConsumeEnv(t, withProm, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.LongPollingEnable, c.ShortPollingTimeMills = false, 100
	})
	const topic = "PollT"
	e.send(topic, 0, nil, "first")
	e.waitDispatched(topic, 0, 1)
	registerConsumer(e.b, "pollcg", "CLUSTERING", 1, body.SubscriptionData{Topic: topic, SubString: "*",
		SubVersion: 100, ExpressionType: "TAG"})
	h := &header.PullMessageRequestHeader{ConsumerGroup: "pollcg", Topic: topic, QueueID: 0, QueueOffset: 1,
		MaxMsgNums: 32, SysFlag: 0x2, CommitOffset: -1, SuspendTimeoutMillis: 15000} // FLAG_SUSPEND
	e.expect(e.call(codec.NewRequest(code.PullMessage, h.ToExtFields(), nil)), code.PullNotFound, "")
	fams := scrapeWhen(t, e.b, map[string]string{"request_code": "pull_message"},
		map[string]string{"request_code": "send_message"})
	if m := metrics.Find(fams, metrics.RPCLatencyName, map[string]string{"request_code": "pull_message",
		"response_code": "pull_not_found", "is_long_polling": "true"}); m.GetHistogram().GetSampleCount() != 1 {
		t.Errorf("suspended pull: %v, want 1 sample with is_long_polling=true", m)
	}
	if m := metrics.Find(fams, metrics.RPCLatencyName, map[string]string{"request_code": "send_message",
		"is_long_polling": "false"}); m.GetHistogram().GetSampleCount() != 1 {
		t.Errorf("send: %v, want 1 sample with is_long_polling=false", m)
	}
}

// A consumer group whose name is not valid UTF-8 (group names are not
// validated on the wire) still leaves the scrape whole: its label value
// is repaired instead of failing every metric.
func TestBrokerMetricsInvalidUTF8GroupScrapes(t *testing.T) {
	e := newConsumeEnv(t, withProm)
	e.b.Stats().IncGroupGet("bad\xffgroup", "UTFT", 0, 2, 20)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fams, err := metrics.Scrape(ctx, e.b.MetricsAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	if m := metrics.Find(fams, bmetrics.MessagesOut, map[string]string{"topic": "UTFT", "consumer_group": "bad\uFFFDgroup"}); m.GetCounter().GetValue() != 2 {
		t.Errorf("%s for the repaired group: %v, want 2", bmetrics.MessagesOut, m)
	}
	if fams["go_goroutines"] == nil {
		t.Error("the scrape lost the other metrics")
	}
}
