package stats

import "testing"

// BenchmarkPutCounting is what the send path adds per stored message.
func BenchmarkPutCounting(b *testing.B) {
	m := New("DefaultCluster", true) // enableDetailStat default
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.IncTopicPut("BenchTopic", 0, 1, 200)
			m.IncBrokerPut(1)
		}
	})
}

// BenchmarkGetCounting is what the pull path adds per pull that finds messages.
func BenchmarkGetCounting(b *testing.B) {
	m := New("DefaultCluster", true) // enableDetailStat default
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.IncGroupGet("g", "BenchTopic", 0, 32, 6400)
			m.IncGroupGetLatency("g", "BenchTopic", 0, 1)
			m.RecordFallBehind("g", "BenchTopic", 0, 0, 5)
		}
	})
}
