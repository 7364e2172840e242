package mmap

import (
	"syscall"
	"testing"
)

// BenchmarkMappedFileQueueAppend appends 20-byte records (a ConsumeQueue
// unit) round-robin to 256 fresh 6 MB queues (mqbench topics have 1024),
// storing through the mapping, with pwrite or with populate-ahead, and
// reports page faults per append. With many fresh sparse files the
// mapping's first fault in each file zero-fills read_ahead_kb of it.
func BenchmarkMappedFileQueueAppend(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts QueueOptions
	}{{"mapping", QueueOptions{}}, {"pwrite", QueueOptions{AppendByWrite: true}}, {"populate", QueueOptions{PopulateAhead: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			const queues, fileSize = 256, 6_000_000
			root := b.TempDir()
			qs := make([]*MappedFileQueue, queues)
			for i := range qs {
				qs[i] = NewMappedFileQueue(root+"/"+string(rune('a'+i)), fileSize, mode.opts, nil)
				b.Cleanup(qs[i].Shutdown)
			}
			rec := make([]byte, 20)
			b.ReportAllocs()
			var r0, r1 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				q := qs[i%queues]
				mf, err := q.LastMappedFileOrCreate(int64(i/queues) * 20)
				if err != nil {
					b.Fatal(err)
				}
				if err := mf.Append(rec); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
			b.ReportMetric(float64(r1.Minflt-r0.Minflt)/float64(b.N), "minflt/op")
			b.ReportMetric(float64(r1.Majflt-r0.Majflt)/float64(b.N), "majflt/op")
		})
	}
}
