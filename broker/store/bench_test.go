package store

import (
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
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

// nopListener is a long-poll listener that holds nothing: it wants no
// properties, as the broker's while no SQL92 pull is held.
type nopListener struct{}

func (nopListener) Arriving(string, int32, int64, int64, int64, []byte, map[string]string) {}
func (nopListener) WantsArrivingProperties() bool                                          { return false }

// BenchmarkStorePutDispatch appends 1 KiB messages with a KEYS and UNIQ_KEY
// over 16 queues from 16 goroutines through PutMessageAsync and waits until
// the dispatcher has written their consume-queue units and index entries:
// the store's whole per-message cost (put and reput). cpu-ns/msg is the
// process CPU per message.
func BenchmarkStorePutDispatch(b *testing.B) {
	cfg := NewMessageStoreConfig()
	cfg.StorePathRootDir = filepath.Join(b.TempDir(), "store")
	cfg.MappedFileSizeCommitLog = 256 << 20
	cfg.MaxHashSlotNum, cfg.MaxIndexNum = 1<<16, 1<<20
	s := startStore(b, cfg, WithMessageArrivingListener(nopListener{}))
	const workers = 16
	msgs := make([]*message.MessageExt, workers)
	for w := range msgs {
		msgs[w] = newMsg("Bench", int32(w), "TagA", "order-"+itoa(int64(w)), make([]byte, 1024))
	}
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := make(chan struct{}, 1)
			for i := w; i < b.N; i += workers {
				m := *msgs[w] // the store writes offsets into the message
				s.PutMessageAsync(&m, func(r commitlog.PutMessageResult) {
					if r.Status != commitlog.PutOK {
						b.Errorf("put: %v", r.Status)
					}
					done <- struct{}{}
				})
				<-done
			}
		}()
	}
	wg.Wait()
	waitDispatched(b, s)
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/msg")
}
