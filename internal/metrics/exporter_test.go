package metrics

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/code"
)

func startExporter(t *testing.T, cfg ExporterConfig) *Exporter {
	t.Helper()
	e, err := NewExporter(cfg, "127.0.0.1", zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := e.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return e
}

func promConfig() ExporterConfig {
	c := NewExporterConfig()
	c.MetricsExporterType = ExporterProm
	c.MetricsPromExporterPort = 0
	return c
}

// PROM serves the Go runtime, process and RPC latency metrics with 5.x's
// names and labels.
func TestMetricsExporterServesRuntimeAndRPCLatency(t *testing.T) {
	cfg := promConfig()
	cfg.MetricsLabel = "region:eu,bad,,zone:a"
	e := startExporter(t, cfg)
	lat := NewRPCLatency(e.Registry(), cfg.ConstLabels(NodeTypeBroker, "DefaultCluster", "broker-a"))
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	lat.Observe(code.SendMessageV2, code.Success, 2*time.Millisecond, false, false, false)
	lat.Observe(code.SendMessageV2, code.Success, 200*time.Millisecond, false, false, false)
	lat.Observe(code.PullMessage, code.PullNotFound, 15*time.Second, false, true, false) // suspended
	lat.Observe(code.UnregisterClient, code.Success, time.Millisecond, true, false, false)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fams, err := Scrape(ctx, e.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total"} {
		if fams[name] == nil {
			t.Errorf("missing %s", name)
		}
	}
	m := Find(fams, RPCLatencyName, map[string]string{
		LabelRequestCode: "send_message_v2", LabelResponseCode: "success", LabelResult: ResultSuccess,
		LabelIsLongPolling: "false", LabelProtocolType: ProtocolRemoting,
		LabelNodeType: NodeTypeBroker, LabelCluster: "DefaultCluster", LabelNodeID: "broker-a",
		"region": "eu", "zone": "a",
	})
	if m == nil {
		t.Fatalf("no send_message_v2 series in %v", fams[RPCLatencyName])
	}
	h := m.GetHistogram()
	if h.GetSampleCount() != 2 || h.GetSampleSum() < 200 || h.GetSampleSum() > 203 {
		t.Errorf("send_message_v2: count %d sum %v, want 2 and ~202 ms", h.GetSampleCount(), h.GetSampleSum())
	}
	if b := h.GetBucket(); len(b) < len(rpcBuckets) || b[1].GetUpperBound() != 3 || b[1].GetCumulativeCount() != 1 {
		t.Errorf("buckets %v, want 5.x's with one sample <= 3 ms", b)
	}
	if Find(fams, RPCLatencyName, map[string]string{LabelRequestCode: "pull_message",
		LabelResponseCode: "pull_not_found", LabelIsLongPolling: "true"}) == nil {
		t.Error("suspended pull not labelled is_long_polling=true")
	}
	if Find(fams, RPCLatencyName, map[string]string{LabelRequestCode: "unregister_client", LabelResult: ResultOneway}) == nil {
		t.Error("oneway request not labelled result=oneway")
	}
}

// With metricsExporterType unset (DISABLE), OTLP_GRPC or LOG, Start opens
// no listener.
func TestMetricsExporterDisabledOpensNothing(t *testing.T) {
	for _, typ := range []string{"", ExporterDisable, ExporterOTLPGRPC, ExporterLog, "0", "bogus"} {
		cfg := NewExporterConfig()
		cfg.MetricsExporterType = typ
		cfg.MetricsPromExporterPort = 0
		e := startExporter(t, cfg)
		if err := e.Start(); err != nil {
			t.Fatalf("%q: %v", typ, err)
		}
		if e.Enabled() || e.Addr() != nil {
			t.Errorf("%q: enabled %v, listening on %v", typ, e.Enabled(), e.Addr())
		}
	}
}

func TestMetricsConstLabelsAs5x(t *testing.T) {
	c := ExporterConfig{MetricsLabel: "node_type:x,region:eu", MetricsInDelta: true}
	got := c.ConstLabels(NodeTypeBroker, "C1", "broker-a")
	want := map[string]string{"region": "eu", "aggregation": "delta", "node_type": "broker", "cluster": "C1", "node_id": "broker-a"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

func TestMetricsExporterTypeParsesNamesAndOrdinals(t *testing.T) {
	for in, want := range map[string]string{"PROM": ExporterProm, "prom": ExporterProm, "2": ExporterProm,
		"1": ExporterOTLPGRPC, "LOG": ExporterLog, "3": ExporterLog, "": ExporterDisable, "9": ExporterDisable} {
		c := ExporterConfig{MetricsExporterType: in}
		if got := c.ExporterType(); got != want {
			t.Errorf("%q: got %s, want %s", in, got, want)
		}
	}
}
