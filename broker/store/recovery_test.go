package store

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store/checkpoint"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// writeQueues puts n messages round-robin into queues 0..3 of topic R, with
// keys, and returns the results in order.
func writeQueues(t testing.TB, s *DefaultMessageStore, n int) []commitlog.PutMessageResult {
	t.Helper()
	var out []commitlog.PutMessageResult
	for i := 0; i < n; i++ {
		out = append(out, writeQueueMsg(t, s, i))
	}
	waitDispatched(t, s)
	return out
}

// writeQueueMsg puts writeQueues' message number i.
func writeQueueMsg(t testing.TB, s *DefaultMessageStore, i int) commitlog.PutMessageResult {
	t.Helper()
	body := make([]byte, 300+i%7*100)
	return mustPut(t, s, newMsg("R", int32(i%4), "Tag"+itoa(int64(i%3)), "rk-"+itoa(int64(i)), body))
}

// cutConsumeQueues zeroes every unit pointing at or beyond phyCut, as if the
// consume queues had not been flushed when the broker died.
func cutConsumeQueues(t *testing.T, cfg *MessageStoreConfig, phyCut int64) int {
	t.Helper()
	cut := 0
	err := filepath.WalkDir(cfg.ConsumeQueueDir(), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i := 0; i+20 <= len(b); i += 20 {
			phy := int64(binary.BigEndian.Uint64(b[i:]))
			size := int32(binary.BigEndian.Uint32(b[i+8:]))
			if size > 0 && size != math.MaxInt32 && phy >= phyCut {
				clear(b[i : i+20])
				cut++
			}
		}
		return os.WriteFile(p, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return cut
}

func checkAllReadable(t testing.TB, s *DefaultMessageStore, res []commitlog.PutMessageResult) {
	t.Helper()
	perQueue := map[int32]int64{}
	for i, r := range res {
		q := int32(i % 4)
		if r.Append.LogicsOffset != perQueue[q] {
			t.Fatalf("message %d: queue offset %d, want %d", i, r.Append.LogicsOffset, perQueue[q])
		}
		perQueue[q]++
		g := s.GetMessage("g", "R", q, r.Append.LogicsOffset, 1, nil)
		if g.Status != Found || len(g.Messages) != 1 {
			t.Fatalf("message %d (queue %d offset %d): %v", i, q, r.Append.LogicsOffset, g.Status)
		}
		if got := s.SelectOneMessageByOffset(r.Append.WroteOffset); len(got) != len(g.Messages[0]) {
			t.Fatalf("message %d: record mismatch", i)
		}
	}
	for q, n := range perQueue {
		if s.MaxOffsetInQueue("R", q) != n {
			t.Fatalf("queue %d max %d want %d", q, s.MaxOffsetInQueue("R", q), n)
		}
	}
}

// TestStoreRecoveryConsumeQueueBehind: the consume queues lost their tail;
// at start the dispatcher rebuilds it from the CommitLog.
func TestStoreRecoveryConsumeQueueBehind(t *testing.T) {
	cfg := smallConfig(t)
	s := startStore(t, cfg)
	res := writeQueues(t, s, 300)
	shutdownStore(t, s)
	if n := cutConsumeQueues(t, cfg, res[200].Append.WroteOffset); n != 100 {
		t.Fatalf("cut %d units", n)
	}
	s2 := startStore(t, cfg)
	if !s2.LastExitOK() {
		t.Fatal("clean shutdown taken for a crash")
	}
	checkAllReadable(t, s2, res)
	// new messages continue the queue offsets
	r := mustPut(t, s2, newMsg("R", 0, "", "", []byte("next")))
	if r.Append.LogicsOffset != 75 {
		t.Fatalf("next offset %d", r.Append.LogicsOffset)
	}
}

// TestStoreRecoveryAbnormal: abort file present, torn last record, consume
// queues pointing at it and index files newer than the checkpoint: the
// CommitLog is cut before the torn record, the queues are truncated, the
// index is rebuilt, and nothing else is lost.
func TestStoreRecoveryAbnormal(t *testing.T) {
	cfg := smallConfig(t)
	s := startStore(t, cfg)
	res := writeQueues(t, s, 199)
	// The torn record must be stored in a later millisecond than the full
	// index file's last entry: the abnormal load destroys only index files
	// whose end timestamp is after the checkpoint's (Java's rule), and a
	// fast run stored all 200 messages within one millisecond, keeping the
	// torn record's entries.
	prev := res[len(res)-1].Append.StoreTimestamp
	wait.Eventually(t, 5*time.Second, func() error {
		if time.Now().UnixMilli() <= prev {
			return errors.New("clock still in the previous message's millisecond")
		}
		return nil
	})
	res = append(res, writeQueueMsg(t, s, 199))
	waitDispatched(t, s)
	last := res[len(res)-1]
	shutdownStore(t, s)
	if err := checkpoint.CreateAbortFile(cfg.AbortPath()); err != nil {
		t.Fatal(err)
	}
	tearRecord(t, cfg, last.Append.WroteOffset)

	s2 := startStore(t, cfg)
	if s2.LastExitOK() {
		t.Fatal("abort file ignored")
	}
	if s2.MaxPhyOffset() != last.Append.WroteOffset {
		t.Fatalf("recovered max %d, want %d", s2.MaxPhyOffset(), last.Append.WroteOffset)
	}
	checkAllReadable(t, s2, res[:len(res)-1])
	lastQ := int32((len(res) - 1) % 4)
	if r := mustPut(t, s2, newMsg("R", lastQ, "", "", []byte("x"))); r.Append.LogicsOffset != last.Append.LogicsOffset {
		t.Fatalf("torn message's queue offset not reused: %d want %d", r.Append.LogicsOffset, last.Append.LogicsOffset)
	}
	waitDispatched(t, s2)
	// the index was rebuilt by re-dispatching
	for _, i := range []int{0, 57, 198} {
		q := s2.QueryMessage("R", "rk-"+itoa(int64(i)), 32, 0, math.MaxInt64)
		if len(q.Messages) == 0 {
			t.Fatalf("key rk-%d not found after abnormal recovery", i)
		}
	}
	if q := s2.QueryMessage("R", "rk-199", 32, 0, math.MaxInt64); len(q.Messages) != 0 {
		t.Fatal("torn message still indexed")
	}
}

// tearRecord corrupts the body CRC region of the record at phy so that the
// abnormal recovery (CRC checked) refuses it.
func tearRecord(t *testing.T, cfg *MessageStoreConfig, phy int64) {
	t.Helper()
	fs := int64(cfg.MappedFileSizeCommitLog)
	p := filepath.Join(cfg.CommitLogDir(), commitLogFileName(phy-phy%fs))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	pos := phy % fs
	size := int64(binary.BigEndian.Uint32(b[pos:]))
	clear(b[pos+size/2 : pos+size]) // the second half never reached the disk
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func commitLogFileName(off int64) string {
	s := itoa(off)
	for len(s) < 20 {
		s = "0" + s
	}
	return s
}

// TestStoreRecoveryLostConsumeQueues: every consume queue deleted while the
// CommitLog stayed: the dispatcher rebuilds them all from the CommitLog
// min offset.
func TestStoreRecoveryLostConsumeQueues(t *testing.T) {
	cfg := smallConfig(t)
	s := startStore(t, cfg)
	res := writeQueues(t, s, 120)
	shutdownStore(t, s)
	if err := os.RemoveAll(cfg.ConsumeQueueDir()); err != nil {
		t.Fatal(err)
	}
	s2 := startStore(t, cfg)
	checkAllReadable(t, s2, res)
}

// TestStoreRecoveryAbnormalFreshCheckpoint: after a crash with a recent
// checkpoint the scan starts at the newest file whose first record is not
// newer than the checkpoint's min timestamp (Java recoverAbnormally), so
// only the tail is validated and re-dispatched; the index (discarded, its
// file being newer than the index timestamp) is rebuilt from there on.
func TestStoreRecoveryAbnormalFreshCheckpoint(t *testing.T) {
	cfg := smallConfig(t)
	s := startStore(t, cfg)
	first := writeQueues(t, s, 300)
	lastOld := first[len(first)-1]
	oldTS := lastOld.Append.StoreTimestamp
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().UnixMilli() <= oldTS+2 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	second := writeQueues(t, s, 100)
	shutdownStore(t, s)
	for i, r := range second {
		if r.Append.StoreTimestamp <= oldTS {
			t.Fatalf("message %d of the second batch stored at %d, not after %d", i, r.Append.StoreTimestamp, oldTS)
		}
	}
	fs := int64(cfg.MappedFileSizeCommitLog)
	wantFrom := lastOld.Append.WroteOffset - lastOld.Append.WroteOffset%fs
	if wantFrom == 0 {
		t.Fatal("first batch fits in one file; the test needs more")
	}
	// physic = logics = oldTS+3000 gives a min timestamp of oldTS; the
	// index timestamp 0 discards the index file.
	page := make([]byte, checkpoint.FileSize)
	binary.BigEndian.PutUint64(page[0:], uint64(oldTS+3000))
	binary.BigEndian.PutUint64(page[8:], uint64(oldTS+3000))
	if err := os.WriteFile(cfg.CheckpointPath(), page, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.CreateAbortFile(cfg.AbortPath()); err != nil {
		t.Fatal(err)
	}

	s2 := startStore(t, cfg)
	if s2.abnormalScanFrom != wantFrom {
		t.Fatalf("scan began at %d, want %d (file of the last old record)", s2.abnormalScanFrom, wantFrom)
	}
	checkAllReadable(t, s2, append(first, second...))
	// Index hits are by hash, so other keys may answer; none may lie
	// before the scan start.
	for _, k := range []string{"rk-0", "rk-1", "rk-2"} {
		for _, m := range s2.QueryMessage("R", k, 32, 0, math.MaxInt64).Messages {
			if off := int64(binary.BigEndian.Uint64(m[message.PosPhysOffset:])); off < wantFrom {
				t.Fatalf("record at %d (before the scan start) indexed", off)
			}
		}
	}
	for _, k := range []string{"rk-299", "rk-99"} { // last of each batch
		if q := s2.QueryMessage("R", k, 32, 0, math.MaxInt64); len(q.Messages) == 0 {
			t.Fatalf("key %s not re-indexed", k)
		}
	}
}

// TestStoreRecoveryNormalCutsBadTail: after a clean shutdown the CommitLog
// is validated from the third-last file (CRC checked) and cut before a
// record that no longer checks out; its queue unit goes too.
func TestStoreRecoveryNormalCutsBadTail(t *testing.T) {
	cfg := smallConfig(t)
	// Like Java, a normal recovery does not touch the index, which would
	// keep pointing at the cut record (the consistency check would object).
	cfg.MessageIndexEnable = false
	s := startStore(t, cfg)
	res := writeQueues(t, s, 200)
	last := res[len(res)-1]
	shutdownStore(t, s)
	tearRecord(t, cfg, last.Append.WroteOffset)

	s2 := startStore(t, cfg)
	if !s2.LastExitOK() {
		t.Fatal("clean shutdown not recognised")
	}
	if s2.MaxPhyOffset() != last.Append.WroteOffset {
		t.Fatalf("recovered max %d, want %d", s2.MaxPhyOffset(), last.Append.WroteOffset)
	}
	checkAllReadable(t, s2, res[:len(res)-1])
}
