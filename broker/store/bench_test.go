package store

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
)

// BenchmarkStoreGetMessage pulls 32 x 1 KiB messages per op from a hot
// queue (all in the page cache, every message matched by a tag filter).
func BenchmarkStoreGetMessage(b *testing.B) {
	cfg := NewMessageStoreConfig()
	cfg.StorePathRootDir = filepath.Join(b.TempDir(), "store")
	cfg.MappedFileSizeCommitLog = 64 << 20
	cfg.MaxHashSlotNum, cfg.MaxIndexNum = 1<<16, 1<<18
	s := startStore(b, cfg)
	const n = 20000
	body := make([]byte, 1024)
	for i := 0; i < n; i++ {
		mustPut(b, s, newMsg("Bench", 0, "TagA", "", body))
	}
	waitDispatched(b, s)
	filter := tagFilter{message.TagsCode("TagA"): true}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
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
}
