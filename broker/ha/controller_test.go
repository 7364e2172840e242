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
// master of epoch 2 and writes n0..n4; A rejoins as B's replica. A drops
// m7..m11 (its tail after B's epoch-2 start), copies n0..n4, and ends
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
	putAll(t, a.st, "TopicCtl", 7, 5, commitlog.SlaveNotAvailable) // stored on A only
	putAll(t, b.st, "TopicCtl", 100, 5, commitlog.SlaveNotAvailable)
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
	if len(keysA) != 12 || !slices.Equal(keysA, keysB) {
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
