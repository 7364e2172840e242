package commitlog

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// TestCommitLogAwaitConfirmedFlush: under SYNC_FLUSH a record whose put
// timed out waiting for the flush is confirmed by AwaitConfirmed once the
// group commit runs, without being written again.
func TestCommitLogAwaitConfirmedFlush(t *testing.T) {
	cfg := testConfig(t.TempDir(), 1<<20)
	cfg.SyncFlush = true
	cfg.SyncFlushTimeout = 50 * time.Millisecond
	c := loadLog(t, cfg, nil, zaptest.NewLogger(t), 0) // group commit not started: flushes time out
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	r := c.PutMessage(newMsg("T", 0, "slow disk", ""))
	end := r.Append.WroteOffset + int64(r.Append.WroteBytes)
	if r.Status != FlushDiskTimeout {
		t.Fatalf("put: %v", r.Status)
	}
	if s := c.AwaitConfirmed(end); s != FlushDiskTimeout {
		t.Fatalf("confirm before any flush: %v", s)
	}
	c.Start()
	// Each confirmation waits the 50 ms flush timeout at most; on a loaded
	// machine the service's first flush can take longer, and that attempt
	// rightly answers FLUSH_DISK_TIMEOUT, so ask again until it is durable.
	wait.Eventually(t, 5*time.Second, func() error {
		if s := c.AwaitConfirmed(end); s != PutOK {
			return fmt.Errorf("confirm with the group commit running: %v, flushed %d of %d", s, c.FlushedWhere(), end)
		}
		return nil
	})
	if c.FlushedWhere() < end {
		t.Fatalf("confirmed PUT_OK with flushed %d < %d", c.FlushedWhere(), end)
	}
	if c.MaxOffset() != end {
		t.Fatalf("max offset %d, want %d: the record was written again", c.MaxOffset(), end)
	}
}

// TestCommitLogAwaitConfirmedReplica: under SYNC_MASTER the answer follows
// the slave: none → SLAVE_NOT_AVAILABLE, silent → FLUSH_SLAVE_TIMEOUT,
// acknowledging → PUT_OK; an ASYNC_FLUSH ASYNC_MASTER awaits nothing.
func TestCommitLogAwaitConfirmedReplica(t *testing.T) {
	cfg := testConfig(t.TempDir(), 1<<20)
	cfg.SyncMaster = true
	cfg.SyncFlushTimeout = 5 * time.Second
	c := openLog(t, cfg, nil)
	r := c.PutMessage(newMsg("S", 0, "a", ""))
	end := r.Append.WroteOffset + int64(r.Append.WroteBytes)
	if r.Status != SlaveNotAvailable || c.AwaitConfirmed(end) != SlaveNotAvailable {
		t.Fatalf("no slave: put %v", r.Status)
	}
	rep := &fakeReplica{ok: true}
	c.SetReplicaWaiter(rep)
	if s := c.AwaitConfirmed(end); s != FlushSlaveTimeout {
		t.Fatalf("silent slave: %v", s)
	}
	rep.ack = true
	if s := c.AwaitConfirmed(end); s != PutOK {
		t.Fatalf("acknowledging slave: %v", s)
	}
	async := openLog(t, testConfig(t.TempDir(), 1<<20), nil)
	if s := async.AwaitConfirmed(1 << 40); s != PutOK {
		t.Fatalf("async master: %v", s)
	}
}

// TestCommitLogDelayLevelFromPropertyMap: when the caller sets the property
// map, the delay level is read from it (Java's getDelayTimeLevel), so a
// record can keep DELAY in its stored string without being delayed again.
func TestCommitLogDelayLevelFromPropertyMap(t *testing.T) {
	c := openLog(t, testConfig(t.TempDir(), 1<<20), nil)
	m := newMsg("D", 3, "due", "DELAY\x012\x02REAL_TOPIC\x01D\x02REAL_QID\x013")
	m.Properties = map[string]string{"REAL_TOPIC": "D", "REAL_QID": "3"}
	r := mustPut(t, c, m)
	got, err := c.LookMessageByOffset(r.Append.WroteOffset)
	if err != nil {
		t.Fatal(err)
	}
	if got.Topic != "D" || got.QueueID != 3 || got.PropertiesString != m.PropertiesString {
		t.Fatalf("stored %s/%d %q", got.Topic, got.QueueID, got.PropertiesString)
	}
	m = newMsg("D", 3, "later", "TAGS\x01x")
	m.Properties = map[string]string{message.PropertyDelayTimeLevel: "2", "TAGS": "x"}
	r = mustPut(t, c, m)
	if got, _ = c.LookMessageByOffset(r.Append.WroteOffset); got.Topic != message.ScheduleTopic || got.QueueID != 1 {
		t.Fatalf("map level 2 not delayed: %s/%d", got.Topic, got.QueueID)
	}
}
