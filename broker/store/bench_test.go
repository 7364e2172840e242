package store

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
)

// hotQueueStore is a store with n x 1 KiB messages in Bench/0, dispatched.
func hotQueueStore(tb testing.TB, n int) *DefaultMessageStore {
	cfg := NewMessageStoreConfig()
	cfg.StorePathRootDir = filepath.Join(tb.TempDir(), "store")
	cfg.MappedFileSizeCommitLog = 64 << 20
	cfg.MaxHashSlotNum, cfg.MaxIndexNum = 1<<16, 1<<18
	s := startStore(tb, cfg)
	body := make([]byte, 1024)
	for i := 0; i < n; i++ {
		mustPut(tb, s, newMsg("Bench", 0, "TagA", "", body))
	}
	waitDispatched(tb, s)
	return s
}

// BenchmarkStoreGetMessage pulls 32 x 1 KiB messages per op from a hot
// queue (all in the page cache, every message matched by a tag filter).
// cpu-ns/op is the process CPU time per op, steadier than ns/op on a
// loaded machine.
func BenchmarkStoreGetMessage(b *testing.B) {
	const n = 20000
	s := hotQueueStore(b, n)
	filter := tagFilter{message.TagsCode("TagA"): true}
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	msgs := 0
	for i := 0; i < b.N; i++ {
		off := int64(i*32) % (n - 32)
		r := s.GetMessage("g", "Bench", 0, off, 32, filter)
		if r.Status != Found || len(r.Messages) != 32 {
			b.Fatalf("%v %d", r.Status, len(r.Messages))
		}
		msgs += len(r.Messages)
	}
	b.ReportMetric(float64(msgs)/time.Since(start).Seconds(), "msgs/s")
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the user+sys time of this process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
