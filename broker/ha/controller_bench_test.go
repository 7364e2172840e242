package ha

import (
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store"
)

// ctlBenchPair is a controller-mode master (id 1) and replica (id 2) with
// the SyncStateSet {1,2} accepted, 64 MiB CommitLog files, ASYNC_FLUSH.
func ctlBenchPair(b *testing.B, allAck bool) (*testNode, *testNode) {
	mk := func(id int64) *testNode {
		n := newNode(b, "", store.Slave)
		n.cfg.MappedFileSizeCommitLog = 64 << 20
		n.cfg.MappedFileSizeConsumeQueue = 300000 * 20
		n.cfg.MaxHashSlotNum = 500000
		n.cfg.MaxIndexNum = 2000000
		n.cfg.AllAckInSyncStateSet = allAck
		n.open()
		n.ha.SetLocalBrokerID(id)
		return n
	}
	master, slave := mk(1), mk(2)
	if _, err := master.ha.ChangeToMaster(1); err != nil {
		b.Fatal(err)
	}
	if err := slave.ha.ChangeToSlave(master.haAddr(), 1, 2); err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(master.ha.SlaveStates()) == 0 || master.ha.SlaveStates()[0].AckOffset < 0 {
		if time.Now().After(deadline) {
			b.Fatal("replica did not connect")
		}
		time.Sleep(time.Millisecond)
	}
	master.ha.SetSyncStateSet([]int64{1, 2})
	return master, slave
}

// BenchmarkHAControllerSendTPS: 64 concurrent 1 KiB sends on a
// controller-mode master with one replica in its SyncStateSet, under the
// plain SYNC_MASTER rule and under allAckInSyncStateSet; BenchmarkHASendTPS
// gives the classic SYNC_MASTER figure of the same machine.
func BenchmarkHAControllerSendTPS(b *testing.B) {
	for _, allAck := range []bool{false, true} {
		name := "syncMaster"
		if allAck {
			name = "allAckInSyncStateSet"
		}
		b.Run(name, func(b *testing.B) {
			master, slave := ctlBenchPair(b, allAck)
			warmUp(b, master, slave)
			b.SetBytes(1024)
			b.ResetTimer()
			tps, failed := runSenders(b, master.st, master.ha, 64)
			b.StopTimer()
			if failed > 0 {
				b.Fatalf("%d sends not PUT_OK", failed)
			}
			b.ReportMetric(tps, "msgs/s")
		})
	}
}

// BenchmarkHAControllerSendLatency: one 1 KiB send at a time on a
// controller-mode master (the wake-up chain), under the plain SYNC_MASTER
// rule and under allAckInSyncStateSet.
func BenchmarkHAControllerSendLatency(b *testing.B) {
	for _, allAck := range []bool{false, true} {
		name := "syncMaster"
		if allAck {
			name = "allAckInSyncStateSet"
		}
		b.Run(name, func(b *testing.B) {
			master, slave := ctlBenchPair(b, allAck)
			warmUp(b, master, slave)
			b.SetBytes(1024)
			b.ResetTimer()
			if _, failed := runSenders(b, master.st, master.ha, 1); failed > 0 {
				b.Fatalf("%d sends not PUT_OK", failed)
			}
		})
	}
}
