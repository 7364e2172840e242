package commitlog

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		c, _ := openLog(t, cfg, cp, false)
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
