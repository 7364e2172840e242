package store

import (
	"bytes"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// fakeClock is an injectable store clock.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time       { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) set(t time.Time)      { c.ns.Store(t.UnixNano()) }
func newFakeClock(t time.Time) *fakeClock { c := &fakeClock{}; c.set(t); return c }

// usage is an injectable disk usage probe.
type usage struct{ v atomic.Uint64 }

func (u *usage) get(string) float64 { return math.Float64frombits(u.v.Load()) }
func (u *usage) set(f float64)      { u.v.Store(math.Float64bits(f)) }
func newUsage(f float64) *usage     { u := &usage{}; u.set(f); return u }

// fillRetentionStore writes queues A (25 msgs), B (30) and C (130) of ~1 KB
// records into 64 KiB CommitLog files and 20-unit CQ files.
func fillRetentionStore(t *testing.T, s *DefaultMessageStore) {
	body := bytes.Repeat([]byte("r"), 1000)
	for _, q := range []struct {
		topic string
		n     int
	}{{"A", 25}, {"B", 30}, {"C", 130}} {
		for i := 0; i < q.n; i++ {
			mustPut(t, s, newMsg(q.topic, 0, "", "key-"+q.topic, body))
		}
	}
	waitDispatched(t, s)
}

func TestStoreRetentionExpiredFiles(t *testing.T) {
	clock := newFakeClock(time.Now())
	cfg := smallConfig(t)
	s := startStore(t, cfg, WithClock(clock.now), WithDiskUsage(newUsage(0.10).get))
	fillRetentionStore(t, s)
	files := len(s.cl.MappedFileQueue().Files())
	if files < 3 {
		t.Fatalf("only %d commitlog files", files)
	}
	// not yet: files are fresh and it is not 04:00
	clock.set(time.Date(2026, 1, 1, 12, 0, 0, 0, time.Local).Add(time.Until(time.Now())))
	s.CleanFilesNow()
	if n := len(s.cl.MappedFileQueue().Files()); n != files {
		t.Fatalf("deleted too early: %d -> %d", files, n)
	}
	// expired but not at deleteWhen: kept until an admin forces it
	clock.set(time.Now().Add(73 * time.Hour))
	if h := clock.now().Hour(); h == 4 {
		clock.set(clock.now().Add(2 * time.Hour))
	}
	s.CleanFilesNow()
	if n := len(s.cl.MappedFileQueue().Files()); n != files {
		t.Fatalf("deleted outside deleteWhen: %d -> %d", files, n)
	}
	s.ExecuteDeleteFilesManually()
	s.CleanFilesNow()
	if n := len(s.cl.MappedFileQueue().Files()); n != 1 {
		t.Fatalf("manual delete left %d files", n)
	}
	// a second CommitLog file again, then the 04:00 rule
	for len(s.cl.MappedFileQueue().Files()) < 2 {
		mustPut(t, s, newMsg("C", 0, "", "", bytes.Repeat([]byte("r"), 1000)))
	}
	waitDispatched(t, s)
	s.clean.manualDeleteTimes.Store(0)
	files = 2
	// 73 h later at 04:xx local time: every file but the last is expired
	later := time.Now().Add(73 * time.Hour)
	later = time.Date(later.Year(), later.Month(), later.Day(), 4, 30, 0, 0, time.Local)
	if later.Before(time.Now().Add(73 * time.Hour)) {
		later = later.Add(24 * time.Hour)
	}
	clock.set(later)
	s.CleanFilesNow()
	if n := len(s.cl.MappedFileQueue().Files()); n != 1 {
		t.Fatalf("after expiry %d commitlog files remain", n)
	}
	minPhy := s.MinPhyOffset()
	if minPhy == 0 {
		t.Fatal("min offset did not move")
	}
	// A: its first CQ file is gone, its last file points at deleted data
	r := s.GetMessage("g", "A", 0, 0, 32, nil)
	if r.Status != OffsetFoundNull || r.NextBeginOffset != 20 {
		t.Fatalf("A@0: %v next %d", r.Status, r.NextBeginOffset)
	}
	r = s.GetMessage("g", "A", 0, 20, 32, nil)
	if r.Status != MessageWasRemoving || r.NextBeginOffset != 25 {
		t.Fatalf("A@20: %v next %d", r.Status, r.NextBeginOffset)
	}
	// C: min offset corrected to its first unit in the remaining file
	minC := s.MinOffsetInQueue("C", 0)
	if minC == 0 {
		t.Fatal("C min offset not corrected")
	}
	r = s.GetMessage("g", "C", 0, 0, 32, nil)
	if r.Status != OffsetTooSmall || r.NextBeginOffset != minC {
		t.Fatalf("C@0: %v next %d (min %d)", r.Status, r.NextBeginOffset, minC)
	}
	if r = s.GetMessage("g", "C", 0, minC, 32, nil); r.Status != Found {
		t.Fatalf("C@min: %v", r.Status)
	}
	// queues whose data is all gone are removed by the expired-queue sweep
	s.CleanExpiredConsumerQueue()
	if s.ConsumeQueue("A", 0) != nil || s.ConsumeQueue("B", 0) != nil || s.ConsumeQueue("C", 0) == nil {
		t.Fatal("expired queue sweep")
	}
}

func TestStoreRetentionForcedByDiskSpace(t *testing.T) {
	u := newUsage(0.10)
	cfg := smallConfig(t)
	s := startStore(t, cfg, WithDiskUsage(u.get), WithClock(func() time.Time {
		return time.Date(2026, 1, 1, 12, 0, 0, 0, time.Local) // never 04:00
	}))
	fillRetentionStore(t, s)
	files := len(s.cl.MappedFileQueue().Files())
	u.set(0.80) // above diskMaxUsedSpaceRatio 75%: delete expired only (none)
	s.CleanFilesNow()
	if n := len(s.cl.MappedFileQueue().Files()); n != files {
		t.Fatalf("80%%: %d -> %d files", files, n)
	}
	u.set(0.88) // above 85%: clean immediately, expired or not
	s.CleanFilesNow()
	if n := len(s.cl.MappedFileQueue().Files()); n != 1 {
		t.Fatalf("88%%: %d files remain", n)
	}
	if r := s.PutMessage(newMsg("A", 0, "", "", []byte("x"))); r.Status != commitlog.PutOK {
		t.Fatalf("88%% still writable: %v", r.Status)
	}
}

func TestStoreDiskFullRefusesWrites(t *testing.T) {
	u := newUsage(0.50)
	cfg := smallConfig(t)
	s := startStore(t, cfg, WithDiskUsage(u.get), WithDiskCheckInterval(5*time.Millisecond))
	mustPut(t, s, newMsg("T", 0, "", "", []byte("x")))
	waitDispatched(t, s)
	u.set(0.95)
	waitFor(t, func() bool { return s.IsDiskFull() })
	if r := s.PutMessage(newMsg("T", 0, "", "", []byte("x"))); r.Status != commitlog.ServiceNotAvailable {
		t.Fatalf("disk full: %v", r.Status)
	}
	// reads still work
	if r := s.GetMessage("g", "T", 0, 0, 32, nil); r.Status != Found {
		t.Fatalf("read while full: %v", r.Status)
	}
	u.set(0.60)
	waitFor(t, func() bool { return !s.IsDiskFull() })
	mustPut(t, s, newMsg("T", 0, "", "", []byte("x")))
	waitDispatched(t, s)
	if s.MaxOffsetInQueue("T", 0) != 2 {
		t.Fatalf("max offset %d", s.MaxOffsetInQueue("T", 0))
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait.Scale(5 * time.Second))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in time")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestStoreCleanUnusedTopic(t *testing.T) {
	cfg := smallConfig(t)
	s := startStore(t, cfg)
	for _, topic := range []string{"Keep", "Drop", "SCHEDULE_TOPIC_XXXX"} {
		mustPut(t, s, newMsg(topic, 0, "", "", []byte("x")))
	}
	waitDispatched(t, s)
	s.CleanUnusedTopic(map[string]struct{}{"Keep": {}})
	if s.ConsumeQueue("Drop", 0) != nil || s.ConsumeQueue("Keep", 0) == nil || s.ConsumeQueue("SCHEDULE_TOPIC_XXXX", 0) == nil {
		t.Fatal("clean unused topic")
	}
	if s.MaxOffsetInQueue("Drop", 0) != 0 {
		t.Fatal("dropped queue still has messages")
	}
	// the queue offset restarts at 0 for a re-created topic
	if r := mustPut(t, s, newMsg("Drop", 0, "", "", []byte("y"))); r.Append.LogicsOffset != 0 {
		t.Fatalf("re-created topic offset %d", r.Append.LogicsOffset)
	}
}

// TestStoreRetentionKeepsUndispatchedFiles: expired CommitLog files that
// the dispatcher has not read yet are kept until it has; a consumer then
// finds every message in its queue, at the queue offset the message
// carries. (Java deletes them and the dispatcher skips their messages.)
func TestStoreRetentionKeepsUndispatchedFiles(t *testing.T) {
	clock := newFakeClock(time.Now())
	s := startStore(t, smallConfig(t), WithClock(clock.now), WithDiskUsage(newUsage(0.10).get))
	const n = 200 // ~1 KB each: four 64 KiB CommitLog files
	body := bytes.Repeat([]byte("u"), 1000)
	s.reput.mu.Lock() // a dispatcher that has not caught up yet
	locked := true
	defer func() {
		if locked {
			s.reput.mu.Unlock()
		}
	}()
	for i := 0; i < n; i++ {
		mustPut(t, s, newMsg("U", 0, "", "", body))
	}
	files := len(s.cl.MappedFileQueue().Files())
	if files < 3 {
		t.Fatalf("only %d commitlog files", files)
	}
	clock.set(time.Now().Add(73 * time.Hour)) // every file but the last expired
	s.ExecuteDeleteFilesManually()
	s.CleanFilesNow()
	if got := len(s.cl.MappedFileQueue().Files()); got != files || s.MinPhyOffset() != 0 {
		t.Fatalf("retention deleted undispatched files: %d -> %d, min offset %d", files, got, s.MinPhyOffset())
	}
	s.reput.mu.Unlock()
	locked = false
	waitDispatched(t, s)
	if got := s.MaxOffsetInQueue("U", 0); got != n {
		t.Fatalf("queue max offset %d after dispatch, want %d", got, n)
	}
	s.CleanFilesNow() // dispatched now: the expired files go
	if got := len(s.cl.MappedFileQueue().Files()); got != 1 {
		t.Fatalf("dispatched expired files kept: %d left", got)
	}
	minQ := s.MinOffsetInQueue("U", 0)
	if minQ <= 0 || s.MaxOffsetInQueue("U", 0) != n {
		t.Fatalf("queue offsets [%d, %d) after retention, want [>0, %d)", minQ, s.MaxOffsetInQueue("U", 0), n)
	}
	for _, off := range []int64{minQ, n - 1} {
		r := s.GetMessage("g", "U", 0, off, 1, nil)
		if r == nil || len(r.Messages) != 1 {
			t.Fatalf("get at %d: %+v", off, r)
		}
		m, err := message.DecodeRecord(r.Messages[0], true)
		if err != nil || m.QueueOffset != off {
			t.Fatalf("message at queue offset %d carries %d (%v)", off, m.QueueOffset, err)
		}
	}
}
