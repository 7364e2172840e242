//go:build !race

package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/checkpoint"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
)

// TestNoRaceStoreRecoveryTime measures how long Open+Start take after an
// abnormal stop with a large CommitLog, in the worst case: abort file
// present and a zeroed checkpoint, so recovery validates (CRC) and
// re-dispatches the whole log. Set RMQ_STORE_RECOVERY_BYTES (e.g.
// 4294967296) to run it; files are 64 MiB, messages 1 KiB in 16 queues.
func TestNoRaceStoreRecoveryTime(t *testing.T) {
	total, _ := strconv.ParseInt(os.Getenv("RMQ_STORE_RECOVERY_BYTES"), 10, 64)
	if total <= 0 {
		t.Skip("set RMQ_STORE_RECOVERY_BYTES to measure recovery time")
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
	n := writeBulk(t, s, total)
	t.Logf("wrote %d messages, %d bytes in %v", n, s.MaxPhyOffset(), time.Since(begin))
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	clean := timeOpen(t, cfg)
	t.Logf("normal restart: %.2f s", clean.Seconds())

	if err := checkpoint.CreateAbortFile(cfg.AbortPath()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg.CheckpointPath(), make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	abnormal := timeOpen(t, cfg)
	t.Logf("abnormal restart (full CRC scan + re-dispatch of %d MiB): %.2f s", total>>20, abnormal.Seconds())
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

// timeOpen opens and starts the store (waiting for dispatch to catch up)
// and shuts it down; it returns the Open+Start time.
func timeOpen(t *testing.T, cfg *MessageStoreConfig) time.Duration {
	begin := time.Now()
	s, err := Open(cfg, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(begin)
	if s.DispatchBehindBytes() != 0 {
		t.Fatalf("still %d bytes behind after start", s.DispatchBehindBytes())
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return took
}
