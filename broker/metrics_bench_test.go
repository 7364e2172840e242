package broker_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/metrics"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
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
			benchSend(b, br)
		})
	}
}

// benchSend runs b.N SEND_MESSAGE_V2 round trips (128-byte body) from 16
// concurrent senders.
func benchSend(b *testing.B, br *broker.Broker) {
	c := newClientTB(b)
	addr := br.Addr().String()
	h := sendHeader("BenchSendMetrics", 0, map[string]string{"TAGS": "t"})
	body := make([]byte, 128)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	var wg sync.WaitGroup
	per := b.N/16 + 1
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				resp, err := c.InvokeSync(ctx, addr, sendRequest(code.SendMessageV2, h, body))
				cancel()
				if err != nil || resp.Code != code.Success {
					b.Errorf("send: %v %+v", err, resp)
					return
				}
			}
		}()
	}
	wg.Wait()
}
