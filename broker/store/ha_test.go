package store

import (
	"bytes"
	"testing"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
)

// TestStoreSlaveReplicationPassThrough copies a master's CommitLog into a
// slave store in odd-sized chunks (as the HA stream does), checks that the
// slave's dispatcher builds the same queues, refuses client writes, and
// that truncating a divergent tail drops the queue units too.
func TestStoreSlaveReplicationPassThrough(t *testing.T) {
	mcfg := smallConfig(t)
	master := startStore(t, mcfg)
	res := writeQueues(t, master, 150)

	scfg := smallConfig(t)
	scfg.BrokerRole = Slave
	slave := startStore(t, scfg, WithBrokerID(1))
	for off := int64(0); off < master.MaxPhyOffset(); {
		buf := master.GetCommitLogData(off)
		if buf == nil {
			t.Fatalf("master has no data at %d", off)
		}
		chunk := buf.Bytes[:min(len(buf.Bytes), 777)]
		if err := slave.AppendToCommitLog(off, chunk); err != nil {
			t.Fatal(err)
		}
		off += int64(len(chunk))
		buf.Release()
	}
	waitDispatched(t, slave)
	if slave.MaxPhyOffset() != master.MaxPhyOffset() {
		t.Fatalf("slave max %d master %d", slave.MaxPhyOffset(), master.MaxPhyOffset())
	}
	for q := int32(0); q < 4; q++ {
		a := master.GetMessage("g", "R", q, 0, 32, nil)
		b := slave.GetMessage("g", "R", q, 0, 32, nil)
		if a.Status != Found || b.Status != Found || !bytes.Equal(a.Body, b.Body) {
			t.Fatalf("queue %d differs: %v %v", q, a.Status, b.Status)
		}
	}
	if r := slave.PutMessage(newMsg("R", 0, "", "", []byte("x"))); r.Status != commitlog.ServiceNotAvailable {
		t.Fatalf("slave accepted a write: %v", r.Status)
	}
	// the slave's tail diverged: cut at message 100
	cut := res[100].Append.WroteOffset
	if err := slave.TruncateCommitLog(cut); err != nil {
		t.Fatal(err)
	}
	if slave.MaxPhyOffset() != cut || slave.MaxOffsetInQueue("R", 0) != 25 {
		t.Fatalf("after truncate: max %d queue0 %d", slave.MaxPhyOffset(), slave.MaxOffsetInQueue("R", 0))
	}
	// replicate again from the cut point
	for off := cut; off < master.MaxPhyOffset(); {
		buf := master.GetCommitLogData(off)
		if err := slave.AppendToCommitLog(off, buf.Bytes); err != nil {
			t.Fatal(err)
		}
		off += int64(len(buf.Bytes))
		buf.Release()
	}
	waitDispatched(t, slave)
	if slave.MaxOffsetInQueue("R", 0) != master.MaxOffsetInQueue("R", 0) {
		t.Fatalf("re-replicated queue0 %d want %d", slave.MaxOffsetInQueue("R", 0), master.MaxOffsetInQueue("R", 0))
	}
}
