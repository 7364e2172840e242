package metrics

import "testing"

func TestMetricsPullOffsetsRecordAllocationFree(t *testing.T) {
	p := NewPullOffsets()
	p.Record("g", "t", 3, 10)
	if n := testing.AllocsPerRun(1000, func() { p.Record("g", "t", 3, 11) }); n != 0 {
		t.Errorf("Record allocates %v times per call, want 0", n)
	}
	if got := p.Query("g", "t", 3); got != 11 {
		t.Errorf("Query = %d, want 11", got)
	}
	if got := p.Query("g", "t", 4); got != -1 {
		t.Errorf("Query of an unknown queue = %d, want -1", got)
	}
	var none *PullOffsets
	none.Record("g", "t", 0, 1) // metrics off: a no-op
}

func TestMetricsOnPutAllocationFree(t *testing.T) {
	c := &Collector{puts: newPuts(nil, func(string) bool { return false })}
	c.OnPut("t", 1, 100)
	if n := testing.AllocsPerRun(1000, func() { c.OnPut("t", 2, 3000) }); n != 0 {
		t.Errorf("OnPut allocates %v times per call, want 0", n)
	}
	var off *Collector
	off.OnPut("t", 1, 100) // metrics off: a no-op
}

func BenchmarkMetricsOnPut(b *testing.B) {
	c := &Collector{puts: newPuts(nil, func(string) bool { return false })}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.OnPut("BenchTopic", 1, 1024)
		}
	})
}

func BenchmarkMetricsPullOffsetsRecord(b *testing.B) {
	p := NewPullOffsets()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p.Record("group", "BenchTopic", 3, 100)
		}
	})
}

func TestMetricsMessageTypeFromStoredTopic(t *testing.T) {
	for tp, want := range map[string]string{"SCHEDULE_TOPIC_XXXX": "delay", "RMQ_SYS_TRANS_HALF_TOPIC": "transaction",
		"Orders": "normal"} {
		if got := messageType(tp); got != want {
			t.Errorf("%s: %s, want %s", tp, got, want)
		}
	}
	for _, tp := range []string{"%RETRY%g", "%DLQ%g"} {
		if !isRetryOrDLQ(tp) {
			t.Errorf("%s not left out of incoming messages", tp)
		}
	}
}
