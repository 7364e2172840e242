package broker_test

import (
	"testing"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/metrics"
	"github.com/rocketmq-go/rmq/internal/testutil"
)

// BenchmarkBrokerSendMetrics is BenchmarkBrokerSendV2 with the Prometheus
// exporter off and on, one after the other in every run, so that -count
// interleaves them (docs/benchmarks.md, "Stats and metrics cost").
// BrokerStatsManager counts in both (it is always on).
func BenchmarkBrokerSendMetrics(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "metrics=off"
		if on {
			name = "metrics=on"
		}
		b.Run(name, func(b *testing.B) {
			br := testutil.StartBroker(b, "", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
				if on {
					c.Metrics.MetricsExporterType = metrics.ExporterProm
					c.Metrics.MetricsPromExporterHost = "127.0.0.1"
					c.Metrics.MetricsPromExporterPort = 0
				}
			})
			if (br.MetricsAddr() != nil) != on {
				b.Fatalf("metrics listener %v, want on=%v", br.MetricsAddr(), on)
			}
			benchSend(b, br, "BenchSendMetrics")
		})
	}
}
