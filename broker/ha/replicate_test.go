package ha

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// TestHAReplicateAcrossFiles: a slave attached to an empty master copies a
// load spanning several CommitLog files byte for byte, and its consume
// queues serve the same messages.
func TestHAReplicateAcrossFiles(t *testing.T) {
	master := startNode(t, "", store.AsyncMaster)
	slave := startNode(t, "", store.Slave)
	slave.ha.UpdateMasterAddress(master.haAddr())
	wait.Eventually(t, 5*time.Second, func() error {
		// The slave's first report fixes where the transfer starts (an
		// empty slave gets the master's last file only), once the master's
		// writer has read it: writing before then could move that start.
		if master.transferStarts.Load() == 0 {
			return fmt.Errorf("transfer not started yet (slave reports %v)", master.ha.SlaveAckOffsets())
		}
		return nil
	})
	mustPutN(t, master.st, "TopicHA", 0, 400, 700) // ~4.5 files of 64 KiB
	master.ha.NotifyAppend()
	waitReplicated(t, master.st, slave.st, 0)
	if master.st.MaxPhyOffset() < 3*testCommitLogFileSize {
		t.Fatalf("load too small to cross files: %d", master.st.MaxPhyOffset())
	}
	sameQueues(t, master.st, slave.st, "TopicHA")
	wait.Eventually(t, 5*time.Second, func() error {
		if got, want := master.ha.Push2SlaveMaxOffset(), master.st.MaxPhyOffset(); got != want {
			return fmt.Errorf("push2SlaveMaxOffset %d, want %d", got, want)
		}
		return nil
	})
}

// TestHASlaveRestartCatchesUp: a slave stopped mid-stream resumes from its
// own max offset after a restart and ends equal to the master.
func TestHASlaveRestartCatchesUp(t *testing.T) {
	master := startNode(t, "", store.AsyncMaster)
	slave := startNode(t, "", store.Slave)
	slave.ha.UpdateMasterAddress(master.haAddr())
	mustPutN(t, master.st, "TopicHA", 0, 100, 500)
	waitReplicated(t, master.st, slave.st, 0)

	slave.stop()
	mustPutN(t, master.st, "TopicHA", 100, 200, 500)
	slave.open()
	slave.ha.UpdateMasterAddress(master.haAddr())
	mustPutN(t, master.st, "TopicHA", 300, 50, 500)
	master.ha.NotifyAppend()
	waitReplicated(t, master.st, slave.st, 0)
	sameQueues(t, master.st, slave.st, "TopicHA")
}

// TestHADivergentTailTruncated: a slave holding records the master never
// had (written after the common prefix) is truncated back to the master's
// max offset and then replicates the master's new records. Its key index
// follows: the dropped records are no longer found by key, the replicated
// ones are (and storecheck finds no index entry pointing at a record
// without that key).
func TestHADivergentTailTruncated(t *testing.T) {
	master := startNode(t, "", store.AsyncMaster)
	slave := startNode(t, "", store.Slave)
	slave.ha.UpdateMasterAddress(master.haAddr())
	mustPutN(t, master.st, "TopicHA", 0, 50, 300)
	waitReplicated(t, master.st, slave.st, 0)
	common := master.st.MaxPhyOffset()

	// Make the slave's tail diverge: write on its store as a master.
	slave.stop()
	slave.cfg.BrokerRole = store.AsyncMaster
	slave.open()
	mustPutN(t, slave.st, "TopicOther", 0, 30, 400)
	slave.stop()
	slave.cfg.BrokerRole = store.Slave
	slave.open()
	if slave.st.MaxPhyOffset() <= common {
		t.Fatal("slave tail did not grow")
	}
	dropped := uniqKeys(t, slave.st, "TopicOther")
	if len(dropped) != 30 || len(queryKey(t, slave.st, "TopicOther", dropped[0])) != 1 {
		t.Fatalf("divergent tail not indexed: %d keys", len(dropped))
	}
	slave.ha.UpdateMasterAddress(master.haAddr())
	wait.Eventually(t, 5*time.Second, func() error {
		if got := slave.st.MaxPhyOffset(); got != common {
			return fmt.Errorf("slave max %d, want truncation to %d", got, common)
		}
		return nil
	})
	mustPutN(t, master.st, "TopicHA", 50, 60, 300)
	master.ha.NotifyAppend()
	waitReplicated(t, master.st, slave.st, 0)
	sameQueues(t, master.st, slave.st, "TopicHA")
	for q := int32(0); q < 4; q++ {
		if n := slave.st.MaxOffsetInQueue("TopicOther", q); n != 0 {
			t.Fatalf("TopicOther queue %d still has %d units after truncation", q, n)
		}
	}
	for _, k := range dropped {
		if got := queryKey(t, slave.st, "TopicOther", k); len(got) != 0 {
			t.Fatalf("truncated message %s still found by key: %q", k, got)
		}
	}
	for _, k := range uniqKeys(t, master.st, "TopicHA") {
		want := queryKey(t, master.st, "TopicHA", k)
		if got := queryKey(t, slave.st, "TopicHA", k); len(want) != 1 || len(got) != 1 || !bytes.Equal(got[0], want[0]) {
			t.Fatalf("key %s: slave finds %d records, master %d", k, len(got), len(want))
		}
	}
}

// TestHAMasterChangeReconnects: pointing the slave at another master drops
// the old connection and replicates from the new one.
func TestHAMasterChangeReconnects(t *testing.T) {
	m1 := startNode(t, "", store.AsyncMaster)
	slave := startNode(t, "", store.Slave)
	slave.ha.UpdateMasterAddress(m1.haAddr())
	mustPutN(t, m1.st, "TopicHA", 0, 20, 200)
	waitReplicated(t, m1.st, slave.st, 0)

	// A second master holding the same prefix and more.
	m2 := startNode(t, "", store.Slave)
	m2.ha.UpdateMasterAddress(m1.haAddr())
	waitReplicated(t, m1.st, m2.st, 0)
	m2.ha.UpdateMasterAddress("")
	m2.ha.Shutdown(context.Background())
	m2.st.Shutdown(context.Background())
	m2.cfg.BrokerRole = store.AsyncMaster
	m2.open()
	mustPutN(t, m2.st, "TopicHA", 20, 20, 200)

	slave.ha.UpdateMasterAddress(m2.haAddr())
	wait.Eventually(t, 5*time.Second, func() error {
		if m1.ha.ConnectionCount() != 0 {
			return fmt.Errorf("old master still has %d connections", m1.ha.ConnectionCount())
		}
		return nil
	})
	waitReplicated(t, m2.st, slave.st, 0)
	sameQueues(t, m2.st, slave.st, "TopicHA")
}
