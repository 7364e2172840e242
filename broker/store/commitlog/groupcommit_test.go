package commitlog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// TestCommitLogGroupCommitManyWriters: concurrent blocking and callback
// puts under SYNC_FLUSH (with and without SYNC_MASTER) across file rolls
// all report PUT_OK only once their bytes are flushed, and get distinct,
// gap-free queue offsets.
func TestCommitLogGroupCommitManyWriters(t *testing.T) {
	for _, syncMaster := range []bool{false, true} {
		cfg := testConfig(t.TempDir(), 64<<10)
		cfg.SyncFlush = true
		cfg.SyncMaster = syncMaster
		c := openLog(t, cfg, nil)
		if syncMaster {
			c.SetReplicaWaiter(&fakeReplica{ok: true, ack: true})
		}
		const writers, each = 16, 40
		var mu sync.Mutex
		seen := map[int64]bool{}
		check := func(r PutMessageResult) {
			end := r.Append.WroteOffset + int64(r.Append.WroteBytes)
			flushed := c.FlushedWhere()
			mu.Lock()
			defer mu.Unlock()
			if r.Status != PutOK || flushed < end || seen[r.Append.LogicsOffset] {
				t.Errorf("status %v flushed %d end %d dup %v", r.Status, flushed, end, seen[r.Append.LogicsOffset])
			}
			seen[r.Append.LogicsOffset] = true
		}
		var wg sync.WaitGroup
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				body := strings.Repeat("g", 900)
				for i := 0; i < each; i++ {
					if (w+i)%2 == 0 {
						check(c.PutMessage(newMsg("G", 0, body, "")))
						continue
					}
					done := make(chan struct{})
					c.PutMessageAsync(newMsg("G", 0, body, ""), func(r PutMessageResult) { check(r); close(done) })
					<-done
				}
			}(w)
		}
		wg.Wait()
		for i := int64(0); i < writers*each; i++ {
			if !seen[i] {
				t.Fatalf("syncMaster=%v: queue offset %d missing", syncMaster, i)
			}
		}
		if n := len(c.MappedFileQueue().Files()); n < 5 {
			t.Fatalf("expected several file rolls, have %d files", n)
		}
	}
}

// TestCommitLogGroupCommitTimeoutCompletesOnce: a request that times out
// while no flush runs gets FLUSH_DISK_TIMEOUT exactly once; the flush that
// later takes it does not complete it again, and later puts succeed.
func TestCommitLogGroupCommitTimeoutCompletesOnce(t *testing.T) {
	cfg := testConfig(t.TempDir(), 1<<20)
	cfg.SyncFlush = true
	cfg.SyncFlushTimeout = 30 * time.Millisecond
	c := loadLog(t, cfg, nil, zaptest.NewLogger(t), 0)
	t.Cleanup(func() { _ = c.Shutdown(t.Context()) })
	var calls atomic.Int32
	got := make(chan PutMessageResult, 2)
	c.PutMessageAsync(newMsg("T", 0, "late", ""), func(r PutMessageResult) {
		calls.Add(1)
		got <- r
	})
	var r PutMessageResult
	select {
	case r = <-got:
		if r.Status != FlushDiskTimeout {
			t.Fatalf("status %v", r.Status)
		}
	case <-time.After(wait.Scale(5 * time.Second)):
		t.Fatal("no timeout reported")
	}
	c.Start() // the service now takes the expired request and flushes it
	end := r.Append.WroteOffset + int64(r.Append.WroteBytes)
	wait.Eventually(t, 5*time.Second, func() error {
		if c.FlushedWhere() < end {
			return errors.New("not flushed yet")
		}
		return nil
	})
	if err := c.Shutdown(t.Context()); err != nil { // waits for the service's last run
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("timed-out request completed %d times", n)
	}
}

// TestCommitLogPreparesNextFile: Start prepares the first file and the
// first append the second, in the background; the prepared but unused
// file is removed on shutdown.
func TestCommitLogPreparesNextFile(t *testing.T) {
	dir := t.TempDir()
	const size = 256 << 10
	c := openLog(t, testConfig(dir, size), nil)
	c.MappedFileQueue().AwaitPreallocated()
	if _, err := os.Stat(filepath.Join(dir, mmap.OffsetToFileName(0))); err != nil {
		t.Fatalf("first file not prepared at start: %v", err)
	}
	mustPut(t, c, newMsg("N", 0, "x", ""))
	c.MappedFileQueue().AwaitPreallocated()
	next := filepath.Join(dir, mmap.OffsetToFileName(size))
	if st, err := os.Stat(next); err != nil || st.Size() != size {
		t.Fatalf("next file not prepared: %v", err)
	}
	if err := c.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(next); !os.IsNotExist(err) {
		t.Fatalf("unused prepared file kept: %v", err)
	}
}

// TestCommitLogPreparesNextFileAfterRestart: after a restart on a log
// whose last file has room, Start prepares the file after it.
func TestCommitLogPreparesNextFileAfterRestart(t *testing.T) {
	dir := t.TempDir()
	const size = 256 << 10
	cfg := testConfig(dir, size)
	c := openLog(t, cfg, nil)
	mustPut(t, c, newMsg("R", 0, "x", ""))
	end := c.MaxOffset()
	if err := c.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(dir, mmap.OffsetToFileName(size))
	if _, err := os.Stat(next); !os.IsNotExist(err) {
		t.Fatalf("prepared file left after shutdown: %v", err)
	}
	c2 := reopenLog(t, cfg, nil, end)
	c2.MappedFileQueue().AwaitPreallocated()
	if _, err := os.Stat(next); err != nil {
		t.Fatalf("next file not prepared after restart: %v", err)
	}
	if c2.MaxOffset() != end {
		t.Fatalf("reopened log ends at %d, want %d", c2.MaxOffset(), end)
	}
}

// TestCommitLogGroupCommitTimeoutDuringFlush: requests whose deadline
// passes while the flush that took them is still running are completed by
// the watchdog (FLUSH_DISK_TIMEOUT) or by the flush (PUT_OK), exactly once
// each, and the service reads the batch only under its lock. A timeout far
// shorter than a flush makes the watchdog and the flush meet on every
// batch, which the race detector reports if they touch a request together.
func TestCommitLogGroupCommitTimeoutDuringFlush(t *testing.T) {
	cfg := testConfig(t.TempDir(), 1<<20)
	cfg.SyncFlush = true
	cfg.SyncFlushTimeout = time.Microsecond
	c := openLog(t, cfg, nil)
	const writers, each = 8, 50
	var wg sync.WaitGroup
	var completions, puts atomic.Int32
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				done := make(chan struct{})
				var once atomic.Int32
				puts.Add(1)
				c.PutMessageAsync(newMsg("W", 0, strings.Repeat("w", 512), ""), func(r PutMessageResult) {
					if once.Add(1) != 1 {
						t.Errorf("request completed twice (second %v)", r.Status)
						return
					}
					if r.Status != PutOK && r.Status != FlushDiskTimeout {
						t.Errorf("status %v", r.Status)
					}
					completions.Add(1)
					close(done)
				})
				<-done
			}
		}()
	}
	wg.Wait()
	if n, want := completions.Load(), puts.Load(); n != want {
		t.Fatalf("%d of %d requests completed", n, want)
	}
}

// TestCommitLogGroupCommitFlushesWhileCompleting: answering one flushed
// batch (the send responses the completions write) does not hold up the
// next fsync. While the completion of put A is stuck, put B, made after A
// was flushed, is still made durable; B is answered PUT_OK once A's
// completion returns, and in order after it.
func TestCommitLogGroupCommitFlushesWhileCompleting(t *testing.T) {
	cfg := testConfig(t.TempDir(), 1<<20)
	cfg.SyncFlush = true
	c := openLog(t, cfg, nil)
	entered, release := make(chan struct{}), make(chan struct{})
	var order []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	c.PutMessageAsync(newMsg("A", 0, "first", ""), func(r PutMessageResult) {
		close(entered)
		<-release
		note("A")
	})
	select {
	case <-entered:
	case <-time.After(wait.Scale(5 * time.Second)):
		t.Fatal("put A not completed")
	}
	gotB := make(chan PutMessageResult, 1)
	c.PutMessageAsync(newMsg("B", 0, "second", ""), func(r PutMessageResult) { note("B"); gotB <- r })
	// Poll by hand: A's completion must be released before failing, or
	// the cleanup's Shutdown would wait for it.
	end := c.q.MaxWrotePosition()
	deadline := time.Now().Add(wait.Scale(5 * time.Second))
	for c.FlushedWhere() < end && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	flushed := c.FlushedWhere()
	close(release)
	if flushed < end {
		t.Fatalf("flushed %d, put B ends at %d: the flush waited for the previous batch's completion", flushed, end)
	}
	select {
	case r := <-gotB:
		if r.Status != PutOK {
			t.Fatalf("put B status %v", r.Status)
		}
	case <-time.After(wait.Scale(5 * time.Second)):
		t.Fatal("put B not answered")
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(order, ",") != "A,B" {
		t.Fatalf("completion order %v", order)
	}
}
