package commitlog

import (
	"os"
	"path/filepath"
	"runtime"
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

// The benchmarks compare the CommitLog with plain baselines measured in the
// same run and writing the same bytes (the record EncodeRecord gives for
// the same message; the CommitLog's copies differ only in offsets and
// store time). Each baseline sub-benchmark runs just before the CommitLog
// one it is compared with, and the CommitLog one reports
// ratio = baseline ns/op / CommitLog ns/op (1 = as fast as the baseline).
// Run with -count N and take medians; each ratio pairs a CommitLog run
// with the baseline run just before it.
//
// On a shared, overloaded machine wall time mostly measures how long the
// writer waited for a CPU, so the benchmarks also report cpu-ns/op: CPU
// time (user + system, page faults included) of the writing thread for the
// single-writer benchmarks, of the whole process for the group commits,
// and cpu-ratio, the same ratio over that CPU time; faults/op counts the
// page faults of the same thread or process. Work the CommitLog
// moves to background goroutines (pre-faulting, flushing) is outside the
// writer's cpu-ns/op; the *-sustained and group-commit figures include it.

const benchFileSize = 128 << 20

// baselines holds the wall and CPU ns/op of the last baseline run, by name.
var baselines sync.Map

type perOp struct{ wall, cpu float64 }

// cpuClock reads the CPU time of the calling thread (RUSAGE_THREAD, the
// caller has locked its OS thread) or of the process.
type cpuClock struct {
	who    int
	start  time.Duration
	faults int64
}

const rusageThread = 1 // RUSAGE_THREAD

// cpuNow returns the CPU time used and the page faults taken.
func cpuNow(who int) (time.Duration, int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Minflt + ru.Majflt
}

func startCPU(who int) *cpuClock {
	t, f := cpuNow(who)
	return &cpuClock{who: who, start: t, faults: f}
}

// report adds cpu-ns/op and returns the per-op figures.
func (c *cpuClock) report(b *testing.B) perOp {
	t, f := cpuNow(c.who)
	p := perOp{wall: float64(b.Elapsed().Nanoseconds()) / float64(b.N), cpu: float64(t-c.start) / float64(b.N)}
	b.ReportMetric(p.cpu, "cpu-ns/op")
	b.ReportMetric(float64(f-c.faults)/float64(b.N), "faults/op")
	return p
}

func recordBaseline(name string, p perOp) { baselines.Store(name, p) }

func reportRatio(b *testing.B, name string, p perOp) {
	v, ok := baselines.Load(name)
	if !ok || p.wall == 0 || p.cpu == 0 {
		return
	}
	base := v.(perOp)
	b.ReportMetric(base.wall/p.wall, "ratio")
	b.ReportMetric(base.cpu/p.cpu, "cpu-ratio")
}

func reportRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

func benchLog(b *testing.B, sync bool) *CommitLog {
	return benchLogWith(b, func(cfg *Config) { cfg.SyncFlush = sync })
}

// benchLogWith is benchLog with the config adjusted by set.
func benchLogWith(b *testing.B, set func(*Config)) *CommitLog {
	cfg := testConfig(b.TempDir(), benchFileSize)
	cfg.FlushInterval = 500 * time.Millisecond
	set(&cfg)
	c := loadLog(b, cfg, nil, zap.NewNop(), 0)
	c.Start()
	b.Cleanup(func() { _ = c.Shutdown(b.Context()) })
	// Start prepares the first file; one put hands it out, which starts
	// preparing the second. Wait for both (a put stops an unfinished
	// pre-fault), so that no start-up pre-fault runs in the timed loop.
	c.MappedFileQueue().AwaitPreallocated()
	if r := c.PutMessage(newMsg("Prime", 0, "p", "")); r.Status != PutOK {
		b.Fatal(r.Status)
	}
	c.MappedFileQueue().AwaitPreallocated()
	return c
}

const (
	benchBody  = 1024
	benchProps = "TAGS\x01TagA\x02KEYS\x01key\x02UNIQ_KEY\x01FD0000000000000000000000000000027DE430946E0993B953360000"
)

func benchRecord() []byte {
	rec, _ := message.EncodeRecord(nil, newMsg("BenchTopic", 0, strings.Repeat("x", benchBody), benchProps))
	return rec
}

// BenchmarkCommitLogAppend: 1 KiB messages, ASYNC_FLUSH, one writer.
//
//   - raw-memcpy / commitlog: the append path. The baseline copies the
//     record into a warm mapped file of the same size (warmed before the
//     timer, wrapping around at its end). The CommitLog's files are
//     pre-faulted by its allocator; the timer is paused only while the
//     benchmark waits, before a file roll, for that background pre-fault to
//     finish (the baseline's warm-up is outside its timer too).
//   - raw-memcpy-cold / commitlog-sustained: everything included. The
//     baseline copies into fresh mapped files (page faults and file
//     creation in the timed loop); the CommitLog runs without pauses, so
//     whatever its allocator cannot pre-fault in time it faults itself.
func BenchmarkCommitLogAppend(b *testing.B) {
	b.Run("raw-memcpy", benchRawMemcpy)
	b.Run("commitlog", func(b *testing.B) { reportRatio(b, "raw-memcpy", benchAppend(b, true)) })
	b.Run("raw-memcpy-cold", benchRawMemcpyCold)
	b.Run("commitlog-sustained", func(b *testing.B) { reportRatio(b, "raw-memcpy-cold", benchAppend(b, false)) })
}

// BenchmarkCommitLogAppendPaced appends 1 KiB messages at a steady
// 64 MB/s (a busy broker; the unpaced benchmarks append faster than the
// kernel can fault pages in, so any warmer falls behind there), with the
// default warm-ahead window and without one ("cold"). faults/op and
// cpu-ns/op are the appending thread's: what the window saves the append
// path.
func BenchmarkCommitLogAppendPaced(b *testing.B) {
	for _, v := range []struct {
		name   string
		window int
	}{{"warm", DefaultWarmAhead}, {"cold", 0}} {
		b.Run(v.name, func(b *testing.B) {
			const rate = 64 << 20 // bytes per second
			c := benchLogWith(b, func(cfg *Config) { cfg.WarmAhead = v.window })
			m := newMsg("BenchTopic", 0, strings.Repeat("x", benchBody), benchProps)
			size := len(benchRecord())
			perMsg := time.Duration(int64(time.Second) * int64(size) / rate)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ResetTimer()
			cpu := startCPU(rusageThread)
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if i%64 == 0 {
					if ahead := time.Duration(i)*perMsg - time.Since(start); ahead > 0 {
						time.Sleep(ahead)
					}
				}
				if r := c.PutMessage(m); r.Status != PutOK {
					b.Fatal(r.Status)
				}
			}
			b.StopTimer()
			cpu.report(b)
		})
	}
}

func benchRawMemcpy(b *testing.B) {
	mf, err := mmap.OpenMappedFile(filepath.Join(b.TempDir(), mmap.OffsetToFileName(0)), benchFileSize)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = mf.Destroy() }()
	mf.Warmup()
	rec := benchRecord()
	data := mf.Data()
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	cpu := startCPU(rusageThread)
	pos := 0
	for i := 0; i < b.N; i++ {
		if pos+len(rec)+message.BlankRecordLen > len(data) {
			pos = 0
		}
		copy(data[pos:], rec)
		pos += len(rec)
	}
	b.StopTimer()
	reportRate(b)
	recordBaseline("raw-memcpy", cpu.report(b))
}

func benchRawMemcpyCold(b *testing.B) {
	rec := benchRecord()
	dir := b.TempDir()
	var mf *mmap.MappedFile
	pos, n := benchFileSize, 0
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	cpu := startCPU(rusageThread)
	for i := 0; i < b.N; i++ {
		if pos+len(rec)+message.BlankRecordLen > benchFileSize {
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
	b.StopTimer()
	p := cpu.report(b)
	_ = mf.Destroy()
	reportRate(b)
	recordBaseline("raw-memcpy-cold", p)
}

// benchAppend puts the same message b.N times. With awaitPrefault the timer
// stops before each put that will roll to a new file until the allocator's
// background pre-fault of that file is done.
func benchAppend(b *testing.B, awaitPrefault bool) perOp {
	c := benchLog(b, false)
	m := newMsg("BenchTopic", 0, strings.Repeat("x", benchBody), benchProps)
	size := len(benchRecord())
	b.SetBytes(int64(size))
	b.ReportAllocs()
	q := c.MappedFileQueue()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	cpu := startCPU(rusageThread)
	for i := 0; i < b.N; i++ {
		if awaitPrefault && int(c.MaxOffset()%benchFileSize)+size+message.BlankRecordLen > benchFileSize {
			b.StopTimer()
			q.AwaitPreallocated()
			b.StartTimer()
		}
		if r := c.PutMessage(m); r.Status != PutOK {
			b.Fatal(r.Status)
		}
	}
	b.StopTimer()
	reportRate(b)
	return cpu.report(b)
}

// BenchmarkCommitLogSyncFlush: SYNC_FLUSH group commit of 1 KiB messages
// with 1, 16 and 128 concurrent writers, against a plain append +
// fdatasync group commit (write(2) under a mutex, one goroutine syncing
// whatever is pending and broadcasting to the waiters).
func BenchmarkCommitLogSyncFlush(b *testing.B) {
	for _, writers := range []int{1, 16, 128} {
		raw := "raw-fdatasync/w" + itoa(int64(writers))
		b.Run(raw, func(b *testing.B) {
			g := newRawGroup(b)
			rec, _ := message.EncodeRecord(nil, newMsg("SyncTopic", 0, strings.Repeat("s", benchBody), ""))
			p := runWriters(b, writers, func() func() { return func() { g.put(rec) } })
			g.stop()
			recordBaseline(raw, p)
		})
		b.Run("commitlog/w"+itoa(int64(writers)), func(b *testing.B) {
			c := benchLog(b, true)
			p := runWriters(b, writers, func() func() {
				m := newMsg("SyncTopic", 0, strings.Repeat("s", benchBody), "")
				return func() {
					if r := c.PutMessage(m); r.Status != PutOK {
						b.Error(r.Status)
					}
				}
			})
			reportRatio(b, raw, p)
		})
	}
}

// runWriters runs b.N ops over writers goroutines, each op made by newOp
// once per writer, and reports msgs/s and the p99 latency of one op.
func runWriters(b *testing.B, writers int, newOp func() func()) perOp {
	b.ReportAllocs()
	var mu sync.Mutex
	lat := make([]time.Duration, 0, b.N)
	var wg sync.WaitGroup
	next := make(chan struct{}, b.N)
	for i := 0; i < b.N; i++ {
		next <- struct{}{}
	}
	close(next)
	ops := make([]func(), writers)
	for w := range ops {
		ops[w] = newOp()
	}
	b.ResetTimer()
	cpu := startCPU(syscall.RUSAGE_SELF)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(op func()) {
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
		}(ops[w])
	}
	wg.Wait()
	b.StopTimer()
	p := cpu.report(b)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	reportRate(b)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
	return p
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
