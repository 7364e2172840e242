package ha

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/epoch"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// startCtlNode starts a node as every controller-mode broker starts
// (brokerRole=SLAVE, no master yet) with broker id id.
func startCtlNode(t *testing.T, id int64, adjust ...func(*Config)) *testNode {
	t.Helper()
	n := startNode(t, "", store.Slave, append([]func(*Config){shortTimeouts}, adjust...)...)
	if err := n.ha.EnableControllerMode(); err != nil {
		t.Fatal(err)
	}
	n.ha.SetLocalBrokerID(id)
	return n
}

// waitSlaveConnected waits until master has an auto-switch connection
// from broker id whose transfer started.
func waitSlaveConnected(t *testing.T, master *testNode, id int64) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, func() error {
		for _, s := range master.ha.SlaveStates() {
			if s.BrokerID == id && s.AckOffset >= 0 {
				return nil
			}
		}
		return fmt.Errorf("slave %d not connected: %+v", id, master.ha.SlaveStates())
	})
}

// commitLogFiles reads the CommitLog files of a node from disk.
func commitLogFiles(t *testing.T, n *testNode) map[string][]byte {
	t.Helper()
	dir := n.cfg.CommitLogDir()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.Trim(b, "\x00")) == 0 {
			continue // a preallocated file holding nothing
		}
		out[e.Name()] = b
	}
	return out
}

func putAll(t *testing.T, st store.MessageStore, topic string, from, n int, want ...commitlog.PutMessageStatus) {
	t.Helper()
	for i, s := range putN(t, st, topic, from, n, 3000) {
		if !slices.Contains(want, s) {
			t.Fatalf("put %d: %v, want one of %v", from+i, s, want)
		}
	}
}

// TestHAControllerTruncatesDivergentTail: A, master of epoch 1, writes
// m0..m6 (replicated to B) and then m7..m11 that B never gets; B becomes
// master of epoch 2 and writes n0..n5; A rejoins as B's replica. A drops
// m7..m11 (its tail after B's epoch-2 start), copies n0..n5, and ends
// with B's CommitLog byte for byte, B's epoch history, and consume
// queues serving exactly B's messages.
func TestHAControllerTruncatesDivergentTail(t *testing.T) {
	a := startCtlNode(t, 1)
	b := startCtlNode(t, 2)
	if _, err := a.ha.ChangeToMaster(1); err != nil {
		t.Fatal(err)
	}
	if err := b.ha.ChangeToSlave(a.haAddr(), 1, 2); err != nil {
		t.Fatal(err)
	}
	waitSlaveConnected(t, a, 2)
	putAll(t, a.st, "TopicCtl", 0, 7, commitlog.PutOK) // every one acknowledged by B
	waitReplicated(t, a.st, b.st, 0)

	start2, err := b.ha.ChangeToMaster(2) // A is cut off from the new master
	if err != nil {
		t.Fatal(err)
	}
	if start2 != a.st.MaxPhyOffset() {
		t.Fatalf("epoch 2 starts at %d, B holds %d", start2, a.st.MaxPhyOffset())
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if a.ha.ConnectionCount() != 0 {
			return errors.New("A still sees B connected")
		}
		return nil
	})
	putAll(t, a.st, "TopicCtl", 7, 5, commitlog.SlaveNotAvailable)   // stored on A only
	putAll(t, b.st, "TopicCtl", 100, 6, commitlog.SlaveNotAvailable) // a longer tail than A's
	if a.st.MaxPhyOffset() <= start2 {
		t.Fatal("A wrote nothing after the epoch-2 start")
	}

	if err := a.ha.ChangeToSlave(b.haAddr(), 2, 1); err != nil {
		t.Fatal(err)
	}
	if r := a.st.PutMessage(newMsg("TopicCtl", 0, body(0, 10))); r.Status != commitlog.ServiceNotAvailable {
		t.Fatalf("put on the replica: %v", r.Status)
	}
	waitReplicated(t, b.st, a.st, 0)
	if fa, fb := commitLogFiles(t, a), commitLogFiles(t, b); !reflect.DeepEqual(fa, fb) {
		t.Fatalf("CommitLog files differ: A %d files, B %d files", len(fa), len(fb))
	}
	sameQueues(t, b.st, a.st, "TopicCtl")
	keysA, keysB := uniqKeys(t, a.st, "TopicCtl"), uniqKeys(t, b.st, "TopicCtl")
	slices.Sort(keysA)
	slices.Sort(keysB)
	if len(keysA) != 13 || !slices.Equal(keysA, keysB) {
		t.Fatalf("A serves %d messages %v, B %d %v", len(keysA), keysA, len(keysB), keysB)
	}
	want := []epoch.Entry{{Epoch: 1, StartOffset: 0, EndOffset: start2}, {Epoch: 2, StartOffset: start2, EndOffset: 1<<63 - 1}}
	if got := a.ha.EpochEntries(); !reflect.DeepEqual(got, want) {
		t.Fatalf("A's epochs %+v, want %+v", got, want)
	}
	if got := b.ha.EpochEntries(); !reflect.DeepEqual(got, want) {
		t.Fatalf("B's epochs %+v, want %+v", got, want)
	}
}

// TestHAControllerRoleChangeCycle: three replicas change roles twice
// without a restart; every replica follows the current master, ends with
// its CommitLog and epoch history, and refuses puts; a stale epoch is
// refused; a master told a newer epoch records it without truncating.
func TestHAControllerRoleChangeCycle(t *testing.T) {
	a, b, c := startCtlNode(t, 1), startCtlNode(t, 2), startCtlNode(t, 3)
	if _, err := a.ha.ChangeToMaster(1); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*testNode{b, c} {
		if err := n.ha.ChangeToSlave(a.haAddr(), 1, n.ha.LocalBrokerID()); err != nil {
			t.Fatal(err)
		}
		waitSlaveConnected(t, a, n.ha.LocalBrokerID())
	}
	putAll(t, a.st, "TopicCycle", 0, 20, commitlog.PutOK)
	waitReplicated(t, a.st, c.st, 0)

	start2, err := c.ha.ChangeToMaster(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []*testNode{a, b} {
		if err := n.ha.ChangeToSlave(c.haAddr(), 2, n.ha.LocalBrokerID()); err != nil {
			t.Fatal(err)
		}
		waitSlaveConnected(t, c, n.ha.LocalBrokerID())
	}
	putAll(t, c.st, "TopicCycle", 20, 20, commitlog.PutOK)
	for _, n := range []*testNode{a, b} {
		waitReplicated(t, c.st, n.st, 0)
		sameQueues(t, c.st, n.st, "TopicCycle")
		if r := n.st.PutMessage(newMsg("TopicCycle", 0, body(0, 10))); r.Status != commitlog.ServiceNotAvailable {
			t.Fatalf("replica %d took a put: %v", n.ha.LocalBrokerID(), r.Status)
		}
		if got := n.ha.EpochEntries(); len(got) != 2 || got[1] != (epoch.Entry{Epoch: 2, StartOffset: start2, EndOffset: 1<<63 - 1}) {
			t.Fatalf("replica %d epochs %+v", n.ha.LocalBrokerID(), got)
		}
	}
	if _, err := c.ha.ChangeToMaster(1); !errors.Is(err, ErrStaleEpoch) {
		t.Fatalf("stale epoch: %v", err)
	}
	if err := a.ha.ChangeToSlave(c.haAddr(), 1, 1); !errors.Is(err, ErrStaleEpoch) {
		t.Fatalf("stale epoch to a slave: %v", err)
	}
	maxBefore := c.st.MaxPhyOffset()
	start3, err := c.ha.ChangeToMaster(3)
	if err != nil || start3 != maxBefore {
		t.Fatalf("re-elected master: start %d (max %d) %v", start3, maxBefore, err)
	}
	putAll(t, c.st, "TopicCycle", 40, 5, commitlog.PutOK)
	waitReplicated(t, c.st, a.st, 0)
	if got := a.ha.EpochEntries(); len(got) != 3 || got[2].Epoch != 3 || got[2].StartOffset != start3 {
		t.Fatalf("replica A epochs after epoch 3: %+v", got)
	}
	// As 5.x (changeToSlave, then updateHaMasterAddress from the name
	// server): a replica told its master without the HA address yet
	// replicates once the address arrives.
	if err := b.ha.ChangeToSlave("", 3, 2); err != nil {
		t.Fatal(err)
	}
	putAll(t, c.st, "TopicCycle", 45, 3, commitlog.PutOK) // A acknowledges
	b.ha.UpdateMasterAddress(c.haAddr())
	waitReplicated(t, c.st, b.st, 0)
}

// TestHAControllerEpochPrefixFollowsRetention: when retention deletes
// CommitLog files, the epochs that ended before the new min offset leave
// the epoch file.
func TestHAControllerEpochPrefixFollowsRetention(t *testing.T) {
	n := newNode(t, "", store.Slave)
	n.cfg.FileReservedTime = 0 // every file but the last is expired
	n.open(shortTimeouts)
	if err := n.ha.EnableControllerMode(); err != nil {
		t.Fatal(err)
	}
	n.ha.SetLocalBrokerID(1)
	for ep := int32(1); ep <= 3; ep++ {
		if _, err := n.ha.ChangeToMaster(ep); err != nil {
			t.Fatal(err)
		}
		putAll(t, n.st, "TopicRet", int(ep)*100, 30, commitlog.SlaveNotAvailable) // ~90 KiB: past a 64 KiB file
	}
	if got := n.ha.EpochEntries(); len(got) != 3 {
		t.Fatalf("epochs before retention %+v", got)
	}
	// FileReservedTime=0 makes files expire the moment they are written;
	// in real time they would be hours old and long dispatched. Retention
	// keeps files the dispatcher has not read (Java deletes them and the
	// dispatcher skips their messages), so let it catch up first, as real
	// time would: the pass below then deletes every file but the last.
	wait.Eventually(t, 10*time.Second, func() error {
		if b := n.st.DispatchBehindBytes(); b > 0 {
			return fmt.Errorf("dispatch %d bytes behind", b)
		}
		return nil
	})
	n.st.ExecuteDeleteFilesManually()
	n.st.CleanFilesNow()
	minOff := n.st.MinPhyOffset()
	got := n.ha.EpochEntries()
	if len(got) == 0 || got[0].EndOffset <= minOff-1 || got[len(got)-1].Epoch != 3 {
		t.Fatalf("after retention (min offset %d) epochs %+v", minOff, got)
	}
	if len(got) == 3 {
		t.Fatalf("no epoch dropped though the min offset moved to %d: %+v", minOff, got)
	}
}

// TestHAControllerEmptyEpochReplaced: an epoch that wrote nothing is
// replaced by the next one at the same offset on the master, and a replica
// that only saw heartbeats of it records the epoch that wrote its data.
func TestHAControllerEmptyEpochReplaced(t *testing.T) {
	a, b := startCtlNode(t, 1), startCtlNode(t, 2)
	if _, err := a.ha.ChangeToMaster(1); err != nil {
		t.Fatal(err)
	}
	if err := b.ha.ChangeToSlave(a.haAddr(), 1, 2); err != nil {
		t.Fatal(err)
	}
	waitSlaveConnected(t, a, 2)
	time.Sleep(3 * 100 * time.Millisecond) // a few heartbeats of epoch 1 (shortTimeouts: 100 ms)
	if _, err := a.ha.ChangeToMaster(2); err != nil {
		t.Fatal(err)
	}
	putAll(t, a.st, "TopicEmpty", 0, 5, commitlog.PutOK)
	waitReplicated(t, a.st, b.st, 0)
	want := []epoch.Entry{{Epoch: 2, StartOffset: 0, EndOffset: 1<<63 - 1}}
	for _, n := range []*testNode{a, b} {
		if got := n.ha.EpochEntries(); !reflect.DeepEqual(got, want) {
			t.Fatalf("broker %d epochs %+v, want %+v", n.ha.LocalBrokerID(), got, want)
		}
	}
}

// TestHAControllerSwitchUnderLoad: the replica is promoted while the old
// master keeps writing (its stream may stop mid-record); the new master
// ends on a record boundary, continues every queue's offsets, and the old
// master rejoins and converges to it byte for byte.
func TestHAControllerSwitchUnderLoad(t *testing.T) {
	a, b := startCtlNode(t, 1), startCtlNode(t, 2)
	if _, err := a.ha.ChangeToMaster(1); err != nil {
		t.Fatal(err)
	}
	if err := b.ha.ChangeToSlave(a.haAddr(), 1, 2); err != nil {
		t.Fatal(err)
	}
	waitSlaveConnected(t, a, 2)
	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		i := 0
		for ; ; i++ {
			select {
			case <-stop:
				done <- i
				return
			default:
			}
			m := newMsg("TopicLoad", int32(i%4), body(i, 700+i%5*300))
			m.Properties[message.PropertyWaitStoreMsgOK] = "false" // A keeps writing when B is gone
			m.PropertiesString = message.MarshalProperties(m.Properties)
			if r := a.st.PutMessage(m); r.Status != commitlog.PutOK {
				t.Errorf("put %d on A: %v", i, r.Status)
			}
		}
	}()
	wait.Eventually(t, 10*time.Second, func() error {
		if b.st.MaxPhyOffset() < 200<<10 {
			return fmt.Errorf("B holds %d bytes", b.st.MaxPhyOffset())
		}
		return nil
	})
	start2, err := b.ha.ChangeToMaster(2) // mid-stream
	if err != nil {
		t.Fatal(err)
	}
	if got := b.st.MaxPhyOffset(); got != start2 {
		t.Fatalf("B appended after ChangeToMaster returned: %d -> %d", start2, got)
	}
	// A must get ahead of B's epoch start, so that it has a tail to drop.
	wait.Eventually(t, 10*time.Second, func() error {
		if m := a.st.MaxPhyOffset(); m <= start2 {
			return fmt.Errorf("A at %d, not past B's epoch 2 start %d", m, start2)
		}
		return nil
	})
	close(stop)
	written := <-done
	if written == 0 || a.st.MaxPhyOffset() <= start2 {
		t.Fatalf("A wrote %d messages, max %d, B's epoch 2 starts at %d", written, a.st.MaxPhyOffset(), start2)
	}
	putAll(t, b.st, "TopicLoad", 100000, 9, commitlog.SlaveNotAvailable)
	if err := a.ha.ChangeToSlave(b.haAddr(), 2, 1); err != nil {
		t.Fatal(err)
	}
	waitReplicated(t, b.st, a.st, 0)
	sameQueues(t, b.st, a.st, "TopicLoad")
	keysA, keysB := uniqKeys(t, a.st, "TopicLoad"), uniqKeys(t, b.st, "TopicLoad")
	slices.Sort(keysA)
	slices.Sort(keysB)
	if !slices.Equal(keysA, keysB) {
		t.Fatalf("A serves %d messages, B %d", len(keysA), len(keysB))
	}
	if fa, fb := commitLogFiles(t, a), commitLogFiles(t, b); !reflect.DeepEqual(fa, fb) {
		t.Fatal("CommitLog files differ")
	}
}

// TestHAControllerReplicaWaitsForTheMaster: a replica that connects to a
// broker before it has become master gets no handshake answer (it must
// not copy a replica's log) until ChangeToMaster, then replicates.
func TestHAControllerReplicaWaitsForTheMaster(t *testing.T) {
	a, b := startCtlNode(t, 1), startCtlNode(t, 2)
	if err := b.ha.ChangeToSlave(a.haAddr(), 1, 2); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, func() error {
		if len(a.ha.SlaveStates()) == 0 || a.ha.SlaveStates()[0].BrokerID != 2 {
			return fmt.Errorf("no handshake from B yet: %+v", a.ha.SlaveStates())
		}
		return nil
	})
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if s := a.ha.SlaveStates()[0]; s.AckOffset != -1 {
			t.Fatalf("B reported %d before A became master", s.AckOffset)
		}
	}
	if _, err := a.ha.ChangeToMaster(1); err != nil {
		t.Fatal(err)
	}
	waitSlaveConnected(t, a, 2) // on the connection it opened before
	putAll(t, a.st, "TopicWait", 0, 5, commitlog.PutOK)
	waitReplicated(t, a.st, b.st, 0)
}
