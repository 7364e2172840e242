package transaction_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/transaction"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
)

// replicaSwitch is a controllable slave for a SYNC_MASTER store: absent
// (SLAVE_NOT_AVAILABLE), silent (FLUSH_SLAVE_TIMEOUT) or acknowledging.
type replicaSwitch struct{ mode atomic.Int32 }

const (
	slaveAbsent = iota
	slaveSilent
	slaveAcks
)

func (r *replicaSwitch) IsSlaveOK(int64) bool { return r.mode.Load() != slaveAbsent }
func (r *replicaSwitch) WaitReplicated(_ int64, _ time.Duration, done func(bool)) {
	go done(r.mode.Load() == slaveAcks)
}

// halfCount waits for the dispatcher and returns how many records the half
// queue holds.
func (e *env) halfCount(t *testing.T) int64 {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, func() error {
		if e.st.DispatchBehindBytes() > 0 {
			return errString("dispatch behind")
		}
		return nil
	})
	return e.st.MaxOffsetInQueue(transaction.HalfTopic, 0)
}

// TestTransactionCheckUnconfirmedRePutWaitsForSlave: on a SYNC_MASTER whose
// slave is absent or silent, the check pass's re-put of a due half message
// is written but not confirmed: the producer is not asked yet, the scan
// offset stays on the half (a crash cannot lose it), and later passes do
// not write another copy. Once the slave acknowledges the copy, the
// producer is asked exactly once, and its commit settles the transaction.
func TestTransactionCheckUnconfirmedRePutWaitsForSlave(t *testing.T) {
	rep := &replicaSwitch{}
	rep.mode.Store(slaveAcks)
	e := newEnvWith(t, func(c *store.MessageStoreConfig) {
		c.BrokerRole = store.SyncMaster
		c.SyncFlushTimeout = 1000
	}, nil)
	e.st.CommitLog().SetReplicaWaiter(rep)
	e.putHalf(t, nil)

	for _, mode := range []int32{slaveAbsent, slaveSilent, slaveAbsent} {
		rep.mode.Store(mode)
		e.svc.Check(context.Background(), 0, 15, e.l)
		if n, d := e.l.counts(); n != 0 || d != 0 {
			t.Fatalf("slave mode %d: producer asked %d times about an unconfirmed copy (%d discards)", mode, n, d)
		}
		if h, _ := e.scanOffsets(); h > 0 {
			t.Fatalf("slave mode %d: half scan offset %d moved past an unconfirmed copy", mode, h)
		}
		if n := e.halfCount(t); n != 2 {
			t.Fatalf("slave mode %d: half queue holds %d records, want the half and one copy", mode, n)
		}
	}

	rep.mode.Store(slaveAcks)
	e.svc.Check(context.Background(), 0, 15, e.l)
	if n, _ := e.l.counts(); n != 1 {
		t.Fatalf("producer asked %d times once the copy is confirmed, want once", n)
	}
	c := e.l.checked[0]
	if c.QueueOffset != 1 || c.Topic != transaction.HalfTopic {
		t.Fatalf("check names %s@%d, want the copy at 1", c.Topic, c.QueueOffset)
	}
	if err := wantOffsets(e, 1, 0)(); err != nil {
		t.Fatal(err)
	}
	if !e.svc.DeletePrepareMessage(c) { // the producer commits the copy
		t.Fatal("op write not confirmed with an acknowledging slave")
	}
	e.waitDispatched(t, transaction.OpTopic, 1)
	e.svc.Check(context.Background(), 0, 15, e.l)
	if err := wantOffsets(e, 2, 1)(); err != nil {
		t.Fatal(err)
	}
	if n, d := e.l.counts(); n != 1 || d != 0 || e.halfCount(t) != 2 {
		t.Fatalf("after the commit: %d checks %d discards %d half records", n, d, e.halfCount(t))
	}
}

// flakyFlushStore answers FLUSH_DISK_TIMEOUT (record written, not synced)
// to puts and confirmations while flushFails is set, as a SYNC_FLUSH store
// on a disk that does not sync in time does.
type flakyFlushStore struct {
	*store.DefaultMessageStore
	flushFails atomic.Bool
	puts       atomic.Int32
}

func (f *flakyFlushStore) PutMessage(m *message.MessageExt) commitlog.PutMessageResult {
	f.puts.Add(1)
	r := f.DefaultMessageStore.PutMessage(m)
	if r.Status == commitlog.PutOK && f.flushFails.Load() {
		r.Status = commitlog.FlushDiskTimeout
	}
	return r
}

func (f *flakyFlushStore) AwaitConfirmed(end int64) commitlog.PutMessageStatus {
	if f.flushFails.Load() {
		return commitlog.FlushDiskTimeout
	}
	return f.DefaultMessageStore.AwaitConfirmed(end)
}

// TestTransactionFlushTimeoutNotCountedStored: under SYNC_FLUSH a re-put or
// an op record answered FLUSH_DISK_TIMEOUT is not taken as stored: the half
// is checked only after the flush is confirmed, with the one copy written,
// and the op write reports the missing confirmation.
func TestTransactionFlushTimeoutNotCountedStored(t *testing.T) {
	var fs *flakyFlushStore
	e := newEnvWith(t, nil, func(st *store.DefaultMessageStore) transaction.Store {
		fs = &flakyFlushStore{DefaultMessageStore: st}
		return fs
	})
	e.putHalf(t, nil)
	fs.flushFails.Store(true)
	for range 2 {
		e.svc.Check(context.Background(), 0, 15, e.l)
		if n, _ := e.l.counts(); n != 0 {
			t.Fatalf("producer asked about a copy whose flush timed out")
		}
		if h, _ := e.scanOffsets(); h > 0 {
			t.Fatalf("half scan offset %d moved on FLUSH_DISK_TIMEOUT", h)
		}
	}
	puts := fs.puts.Load()
	fs.flushFails.Store(false)
	e.svc.Check(context.Background(), 0, 15, e.l)
	if n, _ := e.l.counts(); n != 1 || e.l.checked[0].QueueOffset != 1 {
		t.Fatalf("after the flush: %d checks", n)
	}
	if got := fs.puts.Load(); got != puts {
		t.Fatalf("%d more puts: the unconfirmed copy was written again", got-puts)
	}
	if n := e.halfCount(t); n != 2 {
		t.Fatalf("half queue holds %d records, want the half and one copy", n)
	}
	fs.flushFails.Store(true)
	if e.svc.DeletePrepareMessage(e.l.checked[0]) {
		t.Fatal("op record answered FLUSH_DISK_TIMEOUT reported as stored")
	}
}
