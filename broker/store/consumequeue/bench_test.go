package consumequeue

import (
	"syscall"
	"testing"

	"go.uber.org/zap"
)

// faults returns the process's minor and major page-fault counts.
func faults(b *testing.B) (minor, major int64) {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Minflt, ru.Majflt
}

// BenchmarkConsumeQueuePut appends units round-robin to 256 fresh queues of
// the default file size, as the dispatcher does for a many-queue topic (mqbench creates 1024), and
// reports page faults per unit (the cost the dispatch profile showed).
func BenchmarkConsumeQueuePut(b *testing.B) {
	const queues, fileSize = 256, 300_000 * UnitSize
	root := b.TempDir()
	cqs := make([]*ConsumeQueue, queues)
	for i := range cqs {
		cqs[i] = New(root, "BenchTopic", int32(i), fileSize, zap.NewNop())
		b.Cleanup(cqs[i].Shutdown)
	}
	b.ReportAllocs()
	min0, maj0 := faults(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := i % queues
		off := int64(i / queues)
		if ok, err := cqs[q].Put(int64(i)*200, 200, 0, off); !ok || err != nil {
			b.Fatalf("put %d: ok=%v err=%v", i, ok, err)
		}
	}
	b.StopTimer()
	min1, maj1 := faults(b)
	b.ReportMetric(float64(min1-min0)/float64(b.N), "minflt/op")
	b.ReportMetric(float64(maj1-maj0)/float64(b.N), "majflt/op")
}
