package commitlog

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

const benchFileSize = 128 << 20

func benchLog(b *testing.B, sync, warm bool) *CommitLog {
	cfg := testConfig(b.TempDir(), benchFileSize)
	cfg.SyncFlush = sync
	cfg.WarmMappedFile = warm
	cfg.FlushInterval = 500 * time.Millisecond
	c, err := New(cfg, nil, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Load(); err != nil {
		b.Fatal(err)
	}
	if _, err := c.RecoverNormally(); err != nil {
		b.Fatal(err)
	}
	c.Start()
	b.Cleanup(func() { _ = c.Shutdown(b.Context()) })
	return c
}

// BenchmarkCommitLogAppend: 1 KiB messages, ASYNC_FLUSH, against a raw
// baseline that copies the same encoded bytes into a warm mapped file of
// the same size.
func BenchmarkCommitLogAppend(b *testing.B) {
	body := strings.Repeat("x", 1024)
	props := "TAGS\x01TagA\x02KEYS\x01key\x02UNIQ_KEY\x01FD0000000000000000000000000000027DE430946E0993B953360000"
	b.Run("commitlog", func(b *testing.B) { benchAppend(b, benchLog(b, false, false), body, props) })
	// raw-memcpy-cold: the same copy into fresh (never touched) mapped files,
	// so page faults and dirty-page writeback are paid as the CommitLog pays them.
	b.Run("raw-memcpy-cold", func(b *testing.B) {
		rec, _ := message.EncodeRecord(nil, newMsg("BenchTopic", 0, body, props))
		dir := b.TempDir()
		var mf *mmap.MappedFile
		pos, n := benchFileSize, 0
		b.SetBytes(int64(len(rec)))
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			if pos+len(rec) > benchFileSize {
				if mf != nil {
					_ = mf.Destroy()
				}
				var err error
				if mf, err = mmap.OpenMappedFile(filepath.Join(dir, mmap.OffsetToFileName(int64(n)*benchFileSize)), benchFileSize); err != nil {
					b.Fatal(err)
				}
				pos, n = 0, n+1
			}
			copy(mf.Data()[pos:], rec)
			pos += len(rec)
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
		b.StopTimer()
		_ = mf.Destroy()
	})
	b.Run("raw-memcpy", func(b *testing.B) {
		mf, err := mmap.OpenMappedFile(filepath.Join(b.TempDir(), mmap.OffsetToFileName(0)), benchFileSize)
		if err != nil {
			b.Fatal(err)
		}
		defer mf.Destroy()
		mf.Warmup()
		rec, _ := message.EncodeRecord(nil, newMsg("BenchTopic", 0, body, props))
		data := mf.Data()
		b.SetBytes(int64(len(rec)))
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		pos := 0
		for i := 0; i < b.N; i++ {
			if pos+len(rec) > len(data) {
				pos = 0
			}
			copy(data[pos:], rec)
			pos += len(rec)
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
	})
}

// BenchmarkCommitLogSyncFlush: SYNC_FLUSH group commit with 1, 16 and 128
// concurrent writers, against a plain append + fdatasync group commit.
func BenchmarkCommitLogSyncFlush(b *testing.B) {
	for _, writers := range []int{1, 16, 128} {
		b.Run("commitlog/w"+itoa(int64(writers)), func(b *testing.B) {
			c := benchLog(b, true, false)
			runWriters(b, writers, func() {
				if r := c.PutMessage(newMsg("SyncTopic", 0, strings.Repeat("s", 1024), "")); r.Status != PutOK {
					b.Error(r.Status)
				}
			})
		})
		b.Run("raw-fdatasync/w"+itoa(int64(writers)), func(b *testing.B) {
			g := newRawGroup(b)
			rec, _ := message.EncodeRecord(nil, newMsg("SyncTopic", 0, strings.Repeat("s", 1024), ""))
			runWriters(b, writers, func() { g.put(rec) })
			g.stop()
		})
	}
}

func runWriters(b *testing.B, writers int, op func()) {
	b.ReportAllocs()
	var mu sync.Mutex
	lat := make([]time.Duration, 0, b.N)
	var wg sync.WaitGroup
	next := make(chan struct{}, b.N)
	for i := 0; i < b.N; i++ {
		next <- struct{}{}
	}
	close(next)
	b.ResetTimer()
	start := time.Now()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, b.N/writers+1)
			for range next {
				t0 := time.Now()
				op()
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	el := time.Since(start)
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(b.N)/el.Seconds(), "msgs/s")
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
}

// rawGroup is the baseline: append under a mutex into a file with write(2),
// one goroutine fdatasyncs whatever is pending and wakes the waiters.
type rawGroup struct {
	f       *os.File
	mu      sync.Mutex
	cond    *sync.Cond
	written int64
	synced  int64
	quit    bool
	done    chan struct{}
}

func newRawGroup(b *testing.B) *rawGroup {
	f, err := os.Create(filepath.Join(b.TempDir(), "raw"))
	if err != nil {
		b.Fatal(err)
	}
	g := &rawGroup{f: f, done: make(chan struct{})}
	g.cond = sync.NewCond(&g.mu)
	go g.syncer()
	return g
}

func (g *rawGroup) put(rec []byte) {
	g.mu.Lock()
	_, _ = g.f.Write(rec)
	g.written += int64(len(rec))
	my := g.written
	g.cond.Broadcast()
	for g.synced < my {
		g.cond.Wait()
	}
	g.mu.Unlock()
}

func (g *rawGroup) syncer() {
	defer close(g.done)
	g.mu.Lock()
	for {
		for g.synced == g.written && !g.quit {
			g.cond.Wait()
		}
		if g.quit {
			g.mu.Unlock()
			return
		}
		target := g.written
		g.mu.Unlock()
		_ = syscall.Fdatasync(int(g.f.Fd()))
		g.mu.Lock()
		g.synced = target
		g.cond.Broadcast()
	}
}

func (g *rawGroup) stop() {
	g.mu.Lock()
	g.quit = true
	g.cond.Broadcast()
	g.mu.Unlock()
	<-g.done
	_ = g.f.Close()
}

func benchAppend(b *testing.B, c *CommitLog, body, props string) {
	m := newMsg("BenchTopic", 0, body, props)
	rec, _ := message.EncodeRecord(nil, m)
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if r := c.PutMessage(m); r.Status != PutOK {
			b.Fatal(r.Status)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")

}
