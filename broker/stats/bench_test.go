package stats

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

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

// BenchmarkPrintAtMinutes is one minute's stats.log block of a broker with
// 1,000 topics × 8 queues written and read by one group (enableDetailStat),
// into a file through the console encoder as mqbroker -logFile does.
func BenchmarkPrintAtMinutes(b *testing.B) {
	m := New("DefaultCluster", true)
	for i := range 1000 {
		topic := "Topic" + strconv.Itoa(i)
		for q := range int32(8) {
			m.IncTopicPut(topic, q, 1, 100)
			m.IncGroupGet("g", topic, q, 1, 100)
			m.IncGroupGetLatency("g", topic, q, 1)
		}
	}
	m.SampleSeconds(time.Now())
	f, err := os.Create(filepath.Join(b.TempDir(), "stats.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	lg := zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), f, zapcore.InfoLevel))
	b.ReportAllocs()
	for b.Loop() {
		m.PrintAtMinutes(lg)
	}
	st, _ := f.Stat()
	b.ReportMetric(float64(st.Size())/float64(b.N), "bytes/op")
}
