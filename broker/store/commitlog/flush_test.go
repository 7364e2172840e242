package commitlog

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/store/checkpoint"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// TestCommitLogAsyncFlushAdvancesAndRecordsCheckpoint: with ASYNC_FLUSH the
// flush service makes the data durable on its own (thorough flush or
// enough dirty pages) and records the flushed store time in the checkpoint.
func TestCommitLogAsyncFlushAdvancesAndRecordsCheckpoint(t *testing.T) {
	for _, timed := range []bool{true, false} {
		cp, err := checkpoint.Open(filepath.Join(t.TempDir(), "checkpoint"))
		if err != nil {
			t.Fatal(err)
		}
		cfg := testConfig(t.TempDir(), 1<<20)
		cfg.FlushTimed = timed
		cfg.FlushThoroughInterval = 20 * time.Millisecond
		c := openLog(t, cfg, cp)
		var r PutMessageResult
		for i := 0; i < 3; i++ { // less than FlushLeastPages pages
			r = mustPut(t, c, newMsg("F", 0, strings.Repeat("f", 100), ""))
		}
		end := r.Append.WroteOffset + int64(r.Append.WroteBytes)
		wait.Eventually(t, 5*time.Second, func() error {
			if c.FlushedWhere() < end {
				return errors.New("not flushed yet")
			}
			if cp.PhysicMsgTimestamp() != r.Append.StoreTimestamp {
				return errors.New("checkpoint not updated")
			}
			return nil
		})
	}
}

// TestCommitLogSyncFlushTimeout: a group commit that does not cover the
// message within syncFlushTimeout reports FLUSH_DISK_TIMEOUT (the flush
// service is deliberately not started), and the message is still stored.
func TestCommitLogSyncFlushTimeout(t *testing.T) {
	cfg := testConfig(t.TempDir(), 1<<20)
	cfg.SyncFlush = true
	cfg.SyncFlushTimeout = 50 * time.Millisecond
	c := loadLog(t, cfg, nil, zaptest.NewLogger(t), 0)
	r := c.PutMessage(newMsg("T", 0, "slow disk", ""))
	if r.Status != FlushDiskTimeout || r.Append.WroteBytes == 0 {
		t.Fatalf("status %v", r.Status)
	}
	if _, err := c.LookMessageByOffset(r.Append.WroteOffset); err != nil {
		t.Fatalf("message not stored: %v", err)
	}
	if err := c.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if c.FlushedWhere() != r.Append.WroteOffset+int64(r.Append.WroteBytes) {
		t.Fatal("shutdown did not flush")
	}
}
