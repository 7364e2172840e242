package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// Observing a request whose label set was seen before allocates nothing.
func TestMetricsRPCLatencyObserveAllocationFree(t *testing.T) {
	lat := NewRPCLatency(prometheus.NewRegistry(), prometheus.Labels{LabelNodeType: NodeTypeBroker})
	lat.Observe(code.SendMessageV2, code.Success, time.Millisecond, false, false, false)
	if n := testing.AllocsPerRun(1000, func() {
		lat.Observe(code.SendMessageV2, code.Success, time.Millisecond, false, false, false)
	}); n != 0 {
		t.Errorf("Observe allocates %v times per call, want 0", n)
	}
}

func BenchmarkMetricsRPCLatencyObserve(b *testing.B) {
	lat := NewRPCLatency(prometheus.NewRegistry(), prometheus.Labels{LabelNodeType: NodeTypeBroker})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			lat.Observe(code.SendMessageV2, code.Success, time.Millisecond, false, false, false)
		}
	})
}
