//go:build linux

package mmap

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// pageCacheStrategy is one way of getting a fresh CommitLog file's pages
// into the page cache ahead of (or at) the writer's stores.
type pageCacheStrategy struct {
	name     string
	reserve  bool // fallocate(2) the file at creation (today's default)
	random   bool // MADV_RANDOM on the mapping and a sync every 128 KiB (SYNC_FLUSH, SmallPages)
	chunk    int  // how far ahead the pre-fault runs, in bytes; 0: none
	populate bool // MADV_POPULATE_WRITE each chunk (today's warmer)
	mapPop   bool // remap each chunk MAP_FIXED|MAP_POPULATE
	willNeed bool // MADV_WILLNEED each chunk: read-ahead zero folios of unwritten extents, clean, unmapped
	zeros    bool // pwrite(2) zeros over each chunk, then store through the mapping
	// zeroPiece is the size of each pwrite of zeros (0: the whole chunk
	// at once); a write builds page-cache folios no larger than itself.
	zeroPiece int
	huge      bool // MADV_HUGEPAGE on the mapping
	noHuge    bool // MADV_NOHUGEPAGE on the mapping: no PMD mappings of 2 MiB folios
}

var pageCacheStrategies = []pageCacheStrategy{
	{name: "sparse_none"},
	{name: "falloc_none", reserve: true},
	{name: "sparse_populate1M", chunk: 1 << 20, populate: true},
	{name: "falloc_populate1M", reserve: true, chunk: 1 << 20, populate: true}, // today
	{name: "falloc_populate4M", reserve: true, chunk: 4 << 20, populate: true},
	{name: "falloc_populate16M", reserve: true, chunk: 16 << 20, populate: true},
	{name: "falloc_mappopulate1M", reserve: true, chunk: 1 << 20, mapPop: true},
	{name: "sparse_pwrite1M", chunk: 1 << 20, zeros: true},
	{name: "falloc_pwrite1M", reserve: true, chunk: 1 << 20, zeros: true},
	{name: "falloc_pwrite4M", reserve: true, chunk: 4 << 20, zeros: true},
	{name: "falloc_willneed1M", reserve: true, chunk: 1 << 20, willNeed: true},
	{name: "falloc_pwrite1M+populate", reserve: true, chunk: 1 << 20, zeros: true, populate: true},
	{name: "falloc_random_none", reserve: true, random: true},
	{name: "falloc_random_populate1M", reserve: true, random: true, chunk: 1 << 20, populate: true}, // today, SYNC_FLUSH
	{name: "falloc_random_pwrite1M", reserve: true, random: true, chunk: 1 << 20, zeros: true},
	{name: "falloc_random_pwrite4K", reserve: true, random: true, chunk: 1 << 20, zeros: true, zeroPiece: OSPageSize},
	{name: "falloc_huge_populate1M", reserve: true, huge: true, chunk: 1 << 20, populate: true},
	{name: "falloc_nohuge_populate1M", reserve: true, noHuge: true, chunk: 1 << 20, populate: true},
	{name: "falloc_nohuge_none", reserve: true, noHuge: true},
}

// BenchmarkMappedFilePageCache measures what each strategy for creating
// the page-cache pages of a fresh CommitLog file costs per GiB written:
// 1,200-byte records copied into a shared mapping of a fresh file, the
// pre-fault (if any) run a chunk ahead of the copies on the same thread,
// and a ranged msync every 64 MiB as ASYNC_FLUSH's flush service does
// (its write-back runs in the caller; every 128 KiB for the SYNC_FLUSH
// variants, "random"). Reported: the process's CPU
// (user+system, every thread: the warmer's and the flush's shares
// included), wall time, and page faults, each per GiB; the file's creation
// (open, truncate, fallocate, mmap) is inside the measurement, its removal
// is not. The same CPU is also split by phase, from the (locked) thread's
// own clock: create (open to mmap, and munmap), prefault (the pre-fault calls: the
// warmer's share), put (the record copies with the faults they take: the
// append path's share) and flush (msync). One op is one 256 MiB file.
//
// Not counted: write-back done by kernel threads (the flusher, ext4's
// unwritten-extent conversion at I/O completion for a fallocated file).
// PAGECACHE_GIB=1 in the environment writes 1 GiB files (the CommitLog's
// default size) instead: the cost per page grows with the file.
func BenchmarkMappedFilePageCache(b *testing.B) {
	for _, s := range pageCacheStrategies {
		b.Run(s.name, func(b *testing.B) {
			dir := b.TempDir()
			rec := make([]byte, 1200)
			for i := range rec {
				rec[i] = byte(i)
			}
			fileSize := 256 << 20
			if os.Getenv("PAGECACHE_GIB") != "" {
				fileSize = 1 << 30
			}
			var cpu, wall time.Duration
			var minflt, majflt, written int64
			var ph pageCachePhases
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				path := filepath.Join(dir, OffsetToFileName(int64(i)*int64(fileSize)))
				var r0, r1 syscall.Rusage
				w0 := procWriteBytes(b)
				_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
				t0 := time.Now()
				writePageCacheFile(b, path, fileSize, s, rec, &ph)
				wall += time.Since(t0)
				_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
				written += procWriteBytes(b) - w0
				cpu += rusageCPU(&r1) - rusageCPU(&r0)
				minflt += r1.Minflt - r0.Minflt
				majflt += r1.Majflt - r0.Majflt
				b.StopTimer()
				if err := os.Remove(path); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			gib := float64(b.N) * float64(fileSize) / (1 << 30)
			b.ReportMetric(float64(cpu.Milliseconds())/gib, "cpu-ms/GiB")
			b.ReportMetric(float64(wall.Milliseconds())/gib, "wall-ms/GiB")
			b.ReportMetric(float64(minflt)/gib, "minflt/GiB")
			b.ReportMetric(float64(written)/gib/(1<<20), "dirtied-MiB/GiB")
			b.ReportMetric(float64(majflt)/gib, "majflt/GiB")
			for i, name := range []string{"create", "prefault", "put", "flush"} {
				b.ReportMetric(float64(ph[i].Milliseconds())/gib, name+"-cpu-ms/GiB")
			}
		})
	}
}

func rusageCPU(r *syscall.Rusage) time.Duration {
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// procWriteBytes is the process's write_bytes from /proc/self/io: bytes
// it caused to be written to storage, counted when pages are dirtied
// (stores through mappings included; a folio dirtied again after a sync
// counts again, whole).
func procWriteBytes(b *testing.B) int64 {
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Skip("no /proc/self/io:", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "write_bytes: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// pageCachePhases accumulates thread CPU per phase: create, prefault, put, flush.
type pageCachePhases [4]time.Duration

// phaseClock charges the calling thread's CPU since the last switch to
// the phase then running.
type phaseClock struct {
	ph    *pageCachePhases
	cur   int
	since time.Duration
}

func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	_, _, _ = syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

func (c *phaseClock) to(phase int) {
	now := threadCPU()
	c.ph[c.cur] += now - c.since
	c.cur, c.since = phase, now
}

// writePageCacheFile creates path, fills it with records under strategy s
// and syncs it, as a CommitLog file's life from creation to full.
func writePageCacheFile(b *testing.B, path string, fileSize int, s pageCacheStrategy, rec []byte, ph *pageCachePhases) {
	clk := phaseClock{ph: ph, since: threadCPU()}
	defer clk.to(0)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(int64(fileSize)); err != nil {
		b.Fatal(err)
	}
	if s.reserve {
		if err := Reserve(f, int64(fileSize)); err != nil {
			b.Fatal(err)
		}
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, fileSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = syscall.Munmap(data) }()
	if s.random {
		adviseRandom(data)
	}
	if s.huge {
		_ = syscall.Madvise(data, 14) // MADV_HUGEPAGE
	}
	if s.noHuge {
		_ = syscall.Madvise(data, 15) // MADV_NOHUGEPAGE
	}
	var zeros []byte
	if s.zeros {
		zeros = make([]byte, s.chunk)
	}
	syncEvery := 64 << 20 // ASYNC_FLUSH: a flush per ~0.5 s at ~130 MB/s
	if s.random {
		syncEvery = 128 << 10 // SYNC_FLUSH: a group commit per ~110 puts
	}
	pos, ahead, synced := 0, 0, 0
	clk.to(2)
	for pos+len(rec) <= fileSize {
		if s.chunk > 0 && pos+len(rec) > ahead {
			to := min(ahead+s.chunk, fileSize)
			clk.to(1)
			prepareChunk(b, f, data, ahead, to, s, zeros)
			clk.to(2)
			ahead = to
		}
		copy(data[pos:], rec)
		pos += len(rec)
		if pos-synced >= syncEvery {
			clk.to(3)
			if err := syncRange(path, data, synced, pos); err != nil {
				b.Fatal(err)
			}
			clk.to(2)
			synced = pos
		}
	}
	clk.to(3)
	if err := syncRange(path, data, synced, pos); err != nil {
		b.Fatal(err)
	}
	clk.to(0) // munmap and close count as create
}

// prepareChunk pre-faults data[from:to] under strategy s.
func prepareChunk(b *testing.B, f *os.File, data []byte, from, to int, s pageCacheStrategy, zeros []byte) {
	if s.zeros {
		piece := to - from
		if s.zeroPiece > 0 {
			piece = s.zeroPiece
		}
		for off := from; off < to; off += piece {
			if _, err := f.WriteAt(zeros[:min(piece, to-off)], int64(off)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if s.populate {
		if err := populateWrite(data[from:to]); err != nil {
			b.Fatal(err)
		}
	}
	if s.willNeed {
		if err := syscall.Madvise(data[from:to], syscall.MADV_WILLNEED); err != nil {
			b.Fatal(err)
		}
	}
	if s.mapPop {
		const mapFixed, mapPopulate = 0x10, 0x8000
		_, _, e := syscall.Syscall6(syscall.SYS_MMAP, uintptr(unsafe.Pointer(&data[from])), uintptr(to-from),
			syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|mapFixed|mapPopulate, f.Fd(), uintptr(from))
		if e != 0 {
			b.Fatal(e)
		}
	}
}
