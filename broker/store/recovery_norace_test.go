//go:build !race

package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketmq-go/rmq/broker/store/checkpoint"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
)

// TestNoRaceStoreRecoveryTime measures how long Open+Start take with a
// large CommitLog (64 MiB files, 1 KiB messages in 16 queues) in three
// cases:
//   - normal restart (no abort file);
//   - crash with a fresh checkpoint, as Apache leaves it: the checkpoint
//     was flushed while running (the periodic thorough flush) when the log
//     was RMQ_STORE_RECOVERY_TAIL bytes (default 256 MiB) short of its end,
//     and everything written after it is what the crash "lost" from the
//     checkpoint; recovery must scan only the files from there on;
//   - worst case: abort file and a zeroed checkpoint, so recovery
//     validates (CRC) and re-dispatches the whole log and rebuilds the
//     index from scratch.
//
// Set RMQ_STORE_RECOVERY_BYTES (e.g. 4294967296) to run it;
// RMQ_STORE_RECOVERY_DIR puts the store elsewhere than t.TempDir() and
// RMQ_STORE_RECOVERY_PROFILE=dir writes a CPU profile per case.
func TestNoRaceStoreRecoveryTime(t *testing.T) {
	total, _ := strconv.ParseInt(os.Getenv("RMQ_STORE_RECOVERY_BYTES"), 10, 64)
	if total <= 0 {
		t.Skip("set RMQ_STORE_RECOVERY_BYTES to measure recovery time")
	}
	tail := int64(256 << 20)
	if v, err := strconv.ParseInt(os.Getenv("RMQ_STORE_RECOVERY_TAIL"), 10, 64); err == nil && v >= 0 {
		tail = v
	}
	dir := os.Getenv("RMQ_STORE_RECOVERY_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	cfg := NewMessageStoreConfig()
	cfg.StorePathRootDir = filepath.Join(dir, "store")
	cfg.MappedFileSizeCommitLog = 64 << 20
	s, err := Open(cfg, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	n := writeBulk(t, s, max(total-tail, 0))
	// The periodic flush writes the checkpoint as it stands now; the crash
	// happens after the tail has been written.
	if err := s.ckpt.Flush(); err != nil {
		t.Fatal(err)
	}
	// The scan may skip the first file only when the second one's first
	// record is older than the checkpoint's bound (3 s before its
	// timestamps, as Java's): a fast machine writes 1 GiB in less.
	files := s.cl.MappedFileQueue().Files()
	canSkip := len(files) > 1 && s.matchedRecover(files[1])
	fresh, err := os.ReadFile(cfg.CheckpointPath())
	if err != nil {
		t.Fatal(err)
	}
	n += writeBulk(t, s, total)
	t.Logf("wrote %d messages, %d bytes in %v; checkpoint taken %d MiB before the end",
		n, s.MaxPhyOffset(), time.Since(begin), tail>>20)
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	r := timeOpen(t, cfg, "normal")
	t.Logf("normal restart: %v", r)
	crash(t, cfg, fresh)
	r = timeOpen(t, cfg, "crash")
	t.Logf("crash, checkpoint %d MiB behind: %v", tail>>20, r)
	if r.scanFrom <= 0 && canSkip {
		t.Errorf("crash with a fresh checkpoint scanned the whole log")
	}
	crash(t, cfg, make([]byte, checkpoint.FileSize))
	r = timeOpen(t, cfg, "worst")
	t.Logf("crash, zeroed checkpoint (full CRC scan + re-dispatch + index rebuild of %d MiB): %v", total>>20, r)
	if r.scanFrom != 0 {
		t.Errorf("zeroed checkpoint: scan began at %d, want 0", r.scanFrom)
	}
}

// crash leaves the store as a killed broker would: abort file present and
// the given checkpoint bytes on disk.
func crash(t *testing.T, cfg *MessageStoreConfig, ckpt []byte) {
	t.Helper()
	if err := checkpoint.CreateAbortFile(cfg.AbortPath()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg.CheckpointPath(), ckpt, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeBulk appends 1 KiB messages in batches until total bytes are stored.
func writeBulk(t *testing.T, s *DefaultMessageStore, total int64) int {
	body := make([]byte, 1024)
	n := 0
	done := make(chan commitlog.PutMessageResult, 64)
	inflight := 0
	for s.MaxPhyOffset() < total {
		batch := make([]*message.MessageExt, 32)
		q := int32(n % 16)
		for i := range batch {
			batch[i] = newMsg("Recover", q, "TagA", "key-"+strconv.Itoa(n+i), body)
		}
		s.PutMessagesAsync(batch, func(r commitlog.PutMessageResult) { done <- r })
		inflight++
		n += len(batch)
		for inflight > 32 {
			if r := <-done; r.Status != commitlog.PutOK {
				t.Fatal(r.Status)
			}
			inflight--
		}
	}
	for ; inflight > 0; inflight-- {
		<-done
	}
	waitDispatched(t, s)
	return n
}

// openTiming is what timeOpen measured.
type openTiming struct {
	wall, cpu time.Duration
	minflt    int64 // minor page faults
	majflt    int64 // major page faults (read from disk)
	scanFrom  int64 // abnormal recovery: CommitLog offset the scan began at (-1: normal)
	phases    []string
}

func (o openTiming) String() string {
	s := fmt.Sprintf("%.2f s (cpu %.2f s, %d minor / %d major faults)", o.wall.Seconds(), o.cpu.Seconds(), o.minflt, o.majflt)
	if o.scanFrom >= 0 {
		s += fmt.Sprintf(", scanned from %d MiB", o.scanFrom>>20)
	}
	s += "; phases: " + strings.Join(o.phases, ", ")
	return s
}

// timeOpen opens and starts the store (waiting for dispatch to catch up)
// and shuts it down; it returns the Open+Start wall time and the process
// CPU time (user+sys) it used, which a loaded machine disturbs less. With
// RMQ_STORE_RECOVERY_PROFILE set it writes <dir>/<name>.prof.
func timeOpen(t *testing.T, cfg *MessageStoreConfig, name string) openTiming {
	if d := os.Getenv("RMQ_STORE_RECOVERY_PROFILE"); d != "" {
		f, err := os.Create(filepath.Join(d, name+".prof"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	core, logs := observer.New(zap.InfoLevel)
	ru0 := rusage()
	begin := time.Now()
	s, err := Open(cfg, zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	ru1 := rusage()
	r := openTiming{wall: time.Since(begin), minflt: ru1.Minflt - ru0.Minflt, majflt: ru1.Majflt - ru0.Majflt, scanFrom: -1,
		cpu: time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())}
	if !s.LastExitOK() {
		r.scanFrom = s.abnormalScanFrom
	}
	for _, e := range logs.FilterMessage("store recovery phase").All() {
		r.phases = append(r.phases, fmt.Sprintf("%v %v", e.ContextMap()["phase"], e.ContextMap()["took"]))
	}
	if s.DispatchBehindBytes() != 0 {
		t.Fatalf("still %d bytes behind after start", s.DispatchBehindBytes())
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// rusage is this process's resource usage so far.
func rusage() syscall.Rusage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru
}
