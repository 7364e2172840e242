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

// Made-up request codes stop adding series at MaxRPCSeries; the rest are
// counted under "overflow".
func TestMetricsRPCLatencyBoundsSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	lat := NewRPCLatency(reg, nil)
	for c := int32(100000); c < 100000+MaxRPCSeries+500; c++ {
		lat.Observe(c, code.RequestCodeNotSupported, time.Millisecond, false, false, false)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	ms := fams[0].GetMetric()
	if len(ms) != MaxRPCSeries+1 {
		t.Fatalf("%d series, want %d", len(ms), MaxRPCSeries+1)
	}
	found := false
	for _, m := range ms {
		if l := LabelsOf(m); l[LabelRequestCode] == "overflow" {
			found = true
			if n := m.GetHistogram().GetSampleCount(); n != 500 {
				t.Errorf("overflow series has %d samples, want 500", n)
			}
		}
	}
	if !found {
		t.Error("no overflow series")
	}
}
