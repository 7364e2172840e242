package integration

// Issue #12, Prometheus metrics: a Go producer and push consumer run
// against an in-process name server and broker with
// metricsExporterType=PROM; /metrics of both is scraped over HTTP and
// checked for 5.x's names, labels and the counts the clients caused.

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
	"github.com/rocketmq-go/rmq/namesrv"
)

func promOn() metrics.ExporterConfig {
	c := metrics.NewExporterConfig()
	c.MetricsExporterType = metrics.ExporterProm
	c.MetricsPromExporterHost = "127.0.0.1"
	c.MetricsPromExporterPort = 0
	return c
}

func scrape(t *testing.T, addr fmt.Stringer) map[string]*dto.MetricFamily {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	fams, err := metrics.Scrape(ctx, addr.String())
	if err != nil {
		t.Fatalf("scrape %s: %v", addr, err)
	}
	return fams
}

// value is a counter's or gauge's value, or -1 when the series is absent.
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	m := metrics.Find(fams, name, labels)
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	}
	return -1
}

func TestMetricsBrokerAndNamesrvScraped(t *testing.T) {
	t.Parallel()
	ns := testutil.StartNamesrv(t, func(c *namesrv.NamesrvConfig) { c.Metrics = promOn() })
	e := &consumeEnv{t: t, nsAddr: ns.Addr().String(), topic: uniqueName("MetricsT")}
	e.b = testutil.StartBroker(t, e.nsAddr, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.Metrics = promOn()
		c.Metrics.MetricsLabel = "env:test"
	})
	e.createTopic(e.b)
	e.p = e.newProducer()
	const n = 20
	e.send("m", n, "", nil)
	group := uniqueName("metricscg")
	r := newReceived()
	e.startPush(pushOpts{group: group}, r)
	r.waitAll(t, "m", n, 30*time.Second)

	node := map[string]string{"cluster": "DefaultCluster", "node_type": "broker", "node_id": "broker-a", "env": "test"}
	with := func(kv ...string) map[string]string {
		l := map[string]string{}
		for k, v := range node {
			l[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			l[kv[i]] = kv[i+1]
		}
		return l
	}
	topicL := with("topic", e.topic, "message_type", "normal", "is_system", "false")
	groupL := with("topic", e.topic, "consumer_group", group, "is_retry", "false", "is_system", "false")
	// Lag reaches 0 once the consumer committed its offsets (every 5 s);
	// the producer shows once its first heartbeat arrived.
	prodL := with("language", "go", "protocol_type", "remoting")
	var fams map[string]*dto.MetricFamily
	testutil.Eventually(t, 30*time.Second, func() error {
		fams = scrape(t, e.b.MetricsAddr())
		if v := value(fams, bmetrics.ConsumerLagMessages, groupL); v != 0 {
			return fmt.Errorf("%s = %v, want 0", bmetrics.ConsumerLagMessages, v)
		}
		if v := value(fams, bmetrics.ProducerConnections, prodL); v < 1 {
			return fmt.Errorf("%s%v = %v, want >= 1", bmetrics.ProducerConnections, prodL, v)
		}
		return nil
	})
	if v := value(fams, bmetrics.MessagesIn, topicL); v != n {
		t.Errorf("%s%v = %v, want %d", bmetrics.MessagesIn, topicL, v, n)
	}
	if m := metrics.Find(fams, bmetrics.MessageSize, topicL); m.GetHistogram().GetSampleCount() != n ||
		m.GetHistogram().GetBucket()[0].GetCumulativeCount() != n { // every body is under 1 KiB
		t.Errorf("%s%v = %v, want %d samples under 1 KiB", bmetrics.MessageSize, topicL, m, n)
	}
	if v := value(fams, bmetrics.ThroughputIn, topicL); v < n {
		t.Errorf("%s = %v, want >= %d bytes", bmetrics.ThroughputIn, v, n)
	}
	if v := value(fams, bmetrics.MessagesOut, groupL); v < n {
		t.Errorf("%s%v = %v, want >= %d", bmetrics.MessagesOut, groupL, v, n)
	}
	if v := value(fams, bmetrics.ThroughputOut, groupL); v < n {
		t.Errorf("%s = %v, want >= %d bytes", bmetrics.ThroughputOut, v, n)
	}
	lagL := with("consumer_group", group, "topic", e.topic, "is_retry", "false", "is_system", "false")
	for _, name := range []string{bmetrics.ConsumerLagLatency, bmetrics.ConsumerInflight, bmetrics.ConsumerReadyMessages, bmetrics.ConsumerQueueingLat} {
		if v := value(fams, name, lagL); v < 0 {
			t.Errorf("%s%v missing", name, lagL)
		}
	}
	if v := value(fams, bmetrics.ConsumerReadyMessages, lagL); v != 0 {
		t.Errorf("%s = %v after everything was pulled, want 0", bmetrics.ConsumerReadyMessages, v)
	}
	if v := value(fams, bmetrics.ConsumerConnections, with("consumer_group", group, "language", "go",
		"consume_mode", "push", "protocol_type", "remoting", "is_system", "false")); v != 1 {
		t.Errorf("%s for the push consumer = %v, want 1", bmetrics.ConsumerConnections, v)
	}
	for _, name := range []string{bmetrics.StorageSize, bmetrics.StorageFlushBehind, bmetrics.StorageDispatchBehind, bmetrics.StorageMessageReserve} {
		if v := value(fams, name, with("storage_type", "local", "storage_medium", "disk")); v < 0 {
			t.Errorf("%s missing", name)
		}
	}
	if v := value(fams, bmetrics.ProcessorWatermark, with("processor", "send")); v < 0 {
		t.Errorf("%s{processor=send} missing", bmetrics.ProcessorWatermark)
	}
	if v := value(fams, bmetrics.TopicNumber, node); v < 1 {
		t.Errorf("%s = %v", bmetrics.TopicNumber, v)
	}
	if v := value(fams, bmetrics.ConsumerGroupNumber, node); v < 1 {
		t.Errorf("%s = %v", bmetrics.ConsumerGroupNumber, v)
	}
	if v := value(fams, bmetrics.BrokerPermission, node); v != 6 {
		t.Errorf("%s = %v, want 6", bmetrics.BrokerPermission, v)
	}
	// The Go client sends SEND_MESSAGE (10); Java clients send SEND_MESSAGE_V2.
	sendL := with("protocol_type", "remoting", "request_code", "send_message", "response_code", "success",
		"is_long_polling", "false", "result", "success")
	if m := metrics.Find(fams, metrics.RPCLatencyName, sendL); m == nil || m.GetHistogram().GetSampleCount() < n {
		t.Errorf("%s%v: %v, want >= %d samples", metrics.RPCLatencyName, sendL, m, n)
	}
	if fams["go_goroutines"] == nil || fams["process_resident_memory_bytes"] == nil {
		t.Error("Go runtime or process metrics missing on the broker")
	}

	nf := scrape(t, ns.MetricsAddr())
	routeL := map[string]string{"node_type": "nameserver", "node_id": ns.Addr().String(),
		"request_code": "get_routeinfo_by_topic", "response_code": "success", "result": "success"}
	if m := metrics.Find(nf, metrics.RPCLatencyName, routeL); m == nil || m.GetHistogram().GetSampleCount() == 0 {
		t.Errorf("name server %s%v: %v, want samples", metrics.RPCLatencyName, routeL, m)
	}
	if m := metrics.Find(nf, metrics.RPCLatencyName, map[string]string{"request_code": "register_broker"}); m == nil {
		t.Error("name server has no rpc latency for register_broker")
	}
	if nf["go_goroutines"] == nil {
		t.Error("Go runtime metrics missing on the name server")
	}
}

// Without metricsExporterType (DISABLE, 5.x's default) neither server
// opens a metrics listener.
func TestMetricsDisabledByDefaultOpensNoListener(t *testing.T) {
	t.Parallel()
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String())
	if a := b.MetricsAddr(); a != nil {
		t.Errorf("broker metrics listening on %v", a)
	}
	if a := ns.MetricsAddr(); a != nil {
		t.Errorf("name server metrics listening on %v", a)
	}
}

// A master with a slave reports how far the slave is behind
// (rocketmq_ha_slave_lag_bytes, ours); once replicated it is 0.
func TestMetricsHASlaveLag(t *testing.T) {
	t.Parallel()
	e := newHAEnv(t, store.AsyncMaster, func(m, _ *broker.BrokerConfig, _, _ *store.MessageStoreConfig) {
		m.Metrics = promOn()
	})
	e.sendBatch(0, 20)
	haWaitReplicated(t, e.master.Store(), e.slave.Store(), e.topic)
	testutil.Eventually(t, 20*time.Second, func() error {
		f := scrape(t, e.master.MetricsAddr())[bmetrics.HASlaveLag]
		if f == nil || len(f.GetMetric()) != 1 {
			return fmt.Errorf("want one %s series, got %v", bmetrics.HASlaveLag, f)
		}
		m := f.GetMetric()[0]
		if metrics.LabelsOf(m)["slave_addr"] == "" {
			return fmt.Errorf("no slave_addr label: %v", m)
		}
		if v := m.GetGauge().GetValue(); v != 0 {
			return fmt.Errorf("slave %v bytes behind after replication", v)
		}
		return nil
	})
}
