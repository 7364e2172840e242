package store

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// TestStoreRoleSwitchAtRuntime: the put path follows the live role and
// the fence, not the start-up brokerRole.
func TestStoreRoleSwitchAtRuntime(t *testing.T) {
	s := startStore(t, smallConfig(t))
	put := func() commitlog.PutMessageStatus { return s.PutMessage(newMsg("Role", 0, "", "", []byte("x"))).Status }
	if st := put(); st != commitlog.PutOK {
		t.Fatalf("ASYNC_MASTER: %v", st)
	}
	if err := s.SetBrokerRole(Slave); err != nil {
		t.Fatal(err)
	}
	if st := put(); st != commitlog.ServiceNotAvailable || s.BrokerRole() != Slave {
		t.Fatalf("switched to SLAVE: %v", st)
	}
	if err := s.SetBrokerRole(AsyncMaster); err != nil {
		t.Fatal(err)
	}
	if st := put(); st != commitlog.PutOK {
		t.Fatalf("back to ASYNC_MASTER: %v", st)
	}
	s.SetFenced(true)
	if st := put(); st != commitlog.ServiceNotAvailable {
		t.Fatalf("fenced: %v", st)
	}
	s.SetFenced(false)
	if err := s.SetBrokerRole("MASTER"); err == nil {
		t.Fatal("unknown role accepted")
	}
	if st := put(); st != commitlog.PutOK {
		t.Fatalf("unfenced: %v", st)
	}
	s.SetInSyncReplicasCheck(func() bool { return false })
	if st := put(); st != commitlog.PutOK {
		t.Fatalf("the in-sync check applies to a SYNC_MASTER only: %v", st)
	}
	if err := s.SetBrokerRole(SyncMaster); err != nil {
		t.Fatal(err)
	}
	before := s.MaxPhyOffset()
	if st := put(); st != commitlog.InSyncReplicasNotEnough || s.MaxPhyOffset() != before {
		t.Fatalf("SYNC_MASTER without in-sync replicas: %v, max %d -> %d", st, before, s.MaxPhyOffset())
	}
}

// TestStoreSettleReplicatedTail: a replica promoted to master drops the
// record the replication stream left incomplete (if any) and continues
// every queue's offsets where the replicated messages ended.
func TestStoreSettleReplicatedTail(t *testing.T) {
	unstarted := openStore(t, smallConfig(t))
	if _, err := unstarted.SettleReplicatedTail(); !errors.Is(err, ErrNotStarted) {
		t.Fatalf("before Start: %v", err)
	}
	master := startStore(t, smallConfig(t))
	res := writeQueues(t, master, 51)
	for _, torn := range []bool{true, false} {
		t.Run(fmt.Sprintf("torn=%v", torn), func(t *testing.T) { settleCase(t, master, res[50].Append, torn) })
	}
}

// settleCase replicates master's log up to last (half of it when torn)
// into a new replica, settles and promotes it, and puts last's message
// again: same offset, same queue offset.
func settleCase(t *testing.T, master *DefaultMessageStore, last commitlog.AppendMessageResult, torn bool) {
	scfg := smallConfig(t)
	scfg.BrokerRole = Slave
	slave := startStore(t, scfg, WithBrokerID(1))
	end := last.WroteOffset
	if torn {
		end += int64(last.WroteBytes) / 2
	}
	for off := int64(0); off < end; {
		buf := master.GetCommitLogData(off)
		chunk := buf.Bytes[:min(int64(len(buf.Bytes)), end-off)]
		if err := slave.AppendToCommitLog(off, chunk); err != nil {
			t.Fatal(err)
		}
		off += int64(len(chunk))
		buf.Release()
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if r := slave.ReputFromOffset(); r != last.WroteOffset {
			return fmt.Errorf("dispatched to %d, want %d", r, last.WroteOffset)
		}
		return nil
	})
	maxOff, err := slave.SettleReplicatedTail()
	if err != nil || maxOff != last.WroteOffset || slave.MaxPhyOffset() != last.WroteOffset {
		t.Fatalf("settle: %d %v, max %d, want %d", maxOff, err, slave.MaxPhyOffset(), last.WroteOffset)
	}
	if err := slave.SetBrokerRole(AsyncMaster); err != nil {
		t.Fatal(err)
	}
	r := writeQueueMsg(t, slave, 50) // the same queue as the dropped record
	if r.Append.WroteOffset != last.WroteOffset || r.Append.LogicsOffset != last.LogicsOffset {
		t.Fatalf("first put as master at %d queue offset %d, want %d / %d", r.Append.WroteOffset,
			r.Append.LogicsOffset, last.WroteOffset, last.LogicsOffset)
	}
	waitDispatched(t, slave)
}

// TestStoreTruncateWhileDispatching: a truncation that races with a
// dispatch pass over the tail being dropped leaves no consume-queue unit
// beyond the cut and no reput offset past the CommitLog end.
func TestStoreTruncateWhileDispatching(t *testing.T) {
	large := func() *MessageStoreConfig {
		c := smallConfig(t)
		c.MappedFileSizeCommitLog = 1 << 20
		c.MappedFileSizeConsumeQueue = 20 * 1000
		return c
	}
	master := startStore(t, large())
	var res []commitlog.PutMessageResult
	for i := 0; i < 3000; i++ {
		res = append(res, mustPut(t, master, newMsg("R", int32(i%4), "", "", []byte("x"))))
	}
	end := master.MaxPhyOffset()
	data := commitLogRange(t, master, 0, end)
	for i := 0; i < 30; i++ {
		cut := res[100+i*90].Append.WroteOffset
		scfg := large()
		scfg.BrokerRole = Slave
		slave := startStore(t, scfg, WithBrokerID(1))
		for off := int64(0); off < end; {
			n := min(int64(scfg.MappedFileSizeCommitLog)-off%int64(scfg.MappedFileSizeCommitLog), end-off)
			if err := slave.AppendToCommitLog(off, data[off:off+n]); err != nil {
				t.Fatal(err)
			}
			off += n
		}
		time.Sleep(time.Duration(i%4) * time.Millisecond) // the dispatcher is somewhere in the data
		if err := slave.TruncateCommitLog(cut); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // a pass that raced the cut would be done by now
		if r := slave.ReputFromOffset(); r > cut {
			t.Fatalf("run %d: reput offset %d beyond the cut %d", i, r, cut)
		}
		for _, cq := range slave.allQueues() {
			if p := cq.MaxPhysicOffset(); p > cut {
				t.Fatalf("run %d: queue %s-%d holds a unit at %d beyond the cut %d", i, cq.Topic(), cq.QueueID(), p, cut)
			}
		}
		shutdownStore(t, slave)
	}
}

// commitLogRange copies the CommitLog bytes [from, to).
func commitLogRange(t *testing.T, s *DefaultMessageStore, from, to int64) []byte {
	t.Helper()
	out := make([]byte, 0, to-from)
	for off := from; off < to; {
		buf := s.GetCommitLogData(off)
		if buf == nil {
			t.Fatalf("no data at %d", off)
		}
		n := min(int64(len(buf.Bytes)), to-off)
		out = append(out, buf.Bytes[:n]...)
		buf.Release()
		off += n
	}
	return out
}
