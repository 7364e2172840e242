package schedule

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// skewClock is time.Now plus an adjustable skew.
type skewClock struct{ skew atomic.Int64 }

func (c *skewClock) now() time.Time          { return time.Now().Add(time.Duration(c.skew.Load())) }
func (c *skewClock) advance(d time.Duration) { c.skew.Add(int64(d)) }

func openTestStore(t *testing.T) (*store.DefaultMessageStore, *store.MessageStoreConfig) {
	cfg := store.NewMessageStoreConfig()
	cfg.StorePathRootDir = filepath.Join(t.TempDir(), "store")
	cfg.MappedFileSizeCommitLog = 1 << 20
	cfg.MappedFileSizeConsumeQueue = 400
	cfg.MaxHashSlotNum = 64
	cfg.MaxIndexNum = 256
	s, err := store.Open(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s, cfg
}

func putDelayed(t *testing.T, s *store.DefaultMessageStore, topic string, qid int32, level int, body string) {
	props := map[string]string{message.PropertyTags: "TagA", message.PropertyDelayTimeLevel: fmt.Sprint(level), "k": "v"}
	host := netip.MustParseAddrPort("127.0.0.1:10911")
	m := &message.MessageExt{
		Message:          message.Message{Topic: topic, Body: []byte(body)},
		PropertiesString: message.MarshalProperties(props),
		QueueID:          qid, BornTimestamp: time.Now().UnixMilli(), BornHost: host, StoreHost: host,
		ReconsumeTimes: 2,
	}
	if r := s.PutMessage(m); !r.Status.IsOK() {
		t.Fatalf("put: %v", r.Status)
	}
}

// readQueue returns the messages of topic/qid from offset 0.
func readQueue(s *store.DefaultMessageStore, topic string, qid int32) ([]*message.MessageExt, error) {
	r := s.GetMessage("g", topic, qid, 0, 32, nil)
	if r == nil || r.Status != store.Found {
		return nil, errors.New("nothing yet")
	}
	return message.DecodeRecords(r.Body, true)
}

func TestScheduleDeliversDueMessagesToRealTopic(t *testing.T) {
	s, cfg := openTestStore(t)
	levels, err := ParseDelayLevel(DefaultMessageDelayLevel)
	if err != nil {
		t.Fatal(err)
	}
	table := NewOffsetTable(filepath.Join(cfg.ConfigDir(), "delayOffset.json"), zaptest.NewLogger(t))
	clk := &skewClock{}
	d := NewDeliveryService(s, table, DeliveryOptions{Levels: levels, Now: clk.now, Logger: zaptest.NewLogger(t)})
	putDelayed(t, s, "RealTopic", 2, 3, "ten-seconds") // level 3 = 10 s
	putDelayed(t, s, "RealTopic", 2, 18, "two-hours")
	wait.Eventually(t, 5*time.Second, func() error {
		if s.MaxOffsetInQueue(ScheduleTopic, 2) != 1 || s.MaxOffsetInQueue(ScheduleTopic, 17) != 1 {
			return errors.New("not in the schedule topic yet")
		}
		return nil
	})
	d.Start()
	t.Cleanup(func() { _ = d.Stop(context.Background()) })

	// Not due: nothing is delivered while the clock stands still.
	time.Sleep(300 * time.Millisecond) // lets a few ticks pass; asserting absence needs a wait
	if n := s.MaxOffsetInQueue("RealTopic", 2); n != 0 {
		t.Fatalf("delivered %d messages before they were due", n)
	}
	clk.advance(11 * time.Second) // first delay + level 3
	var got []*message.MessageExt
	wait.Eventually(t, 5*time.Second, func() error {
		got, err = readQueue(s, "RealTopic", 2)
		return err
	})
	if len(got) != 1 || string(got[0].Body) != "ten-seconds" {
		t.Fatalf("delivered %d messages, want only the 10 s one", len(got))
	}
	m := got[0]
	// Java 4.9.8 keeps the scheduled copy's properties string whole
	// (golden store-clean: DELAY, REAL_TOPIC and REAL_QID stay).
	sched, err := readQueue(s, ScheduleTopic, 2)
	if err != nil {
		t.Fatal(err)
	}
	if m.Properties[message.PropertyDelayTimeLevel] != "3" || m.PropertiesString != sched[0].PropertiesString {
		t.Errorf("delivered properties %q, want the scheduled %q (DELAY=3 kept)", m.PropertiesString, sched[0].PropertiesString)
	}
	if m.Properties[message.PropertyRealTopic] != "RealTopic" || m.Properties[message.PropertyRealQueueID] != "2" ||
		m.Properties["k"] != "v" || m.ReconsumeTimes != 2 || m.Tags() != "TagA" {
		t.Errorf("delivered message %+v props %q", m, m.PropertiesString)
	}
	// The offset advances once the delivered copy is confirmed, which can
	// be a moment after the copy is visible in its queue.
	wait.Eventually(t, 5*time.Second, func() error {
		if off, _ := table.Offset(3); off != 1 {
			return fmt.Errorf("delay offset of level 3 = %d, want 1", off)
		}
		return nil
	})
	if off, ok := table.Offset(18); ok && off != 0 {
		t.Errorf("delay offset of level 18 = %d, want 0", off)
	}
	if err := d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	back := NewOffsetTable(table.Path(), nil)
	if err := back.Load(); err != nil {
		t.Fatal(err)
	}
	if off, _ := back.Offset(3); off != 1 {
		t.Errorf("persisted delay offset of level 3 = %d, want 1", off)
	}
}

func TestScheduleResumesFromRecordedOffset(t *testing.T) {
	s, cfg := openTestStore(t)
	levels, _ := ParseDelayLevel(DefaultMessageDelayLevel)
	putDelayed(t, s, "T", 0, 1, "old")
	putDelayed(t, s, "T", 0, 1, "new")
	wait.Eventually(t, 5*time.Second, func() error {
		if s.MaxOffsetInQueue(ScheduleTopic, 0) != 2 {
			return errors.New("not dispatched")
		}
		return nil
	})
	table := NewOffsetTable(filepath.Join(cfg.ConfigDir(), "delayOffset.json"), nil)
	table.UpdateOffset(1, 1) // the first one was delivered before a restart
	clk := &skewClock{}
	clk.advance(time.Minute)
	d := NewDeliveryService(s, table, DeliveryOptions{Levels: levels, Now: clk.now, Logger: zaptest.NewLogger(t)})
	d.Start()
	t.Cleanup(func() { _ = d.Stop(context.Background()) })
	var got []*message.MessageExt
	wait.Eventually(t, 5*time.Second, func() error {
		var err error
		got, err = readQueue(s, "T", 0)
		return err
	})
	if len(got) != 1 || string(got[0].Body) != "new" {
		t.Fatalf("delivered %d messages (first %q), want only \"new\"", len(got), got[0].Body)
	}
}

// confirmCountingStore counts puts and confirmations; while flushFails is
// set it answers FLUSH_DISK_TIMEOUT for both (the record is still written),
// as a SYNC_FLUSH store whose disk does not sync in time does.
type confirmCountingStore struct {
	*store.DefaultMessageStore
	flushFails atomic.Bool
	puts       atomic.Int32
	confirms   atomic.Int32
}

func (c *confirmCountingStore) PutMessage(m *message.MessageExt) commitlog.PutMessageResult {
	c.puts.Add(1)
	r := c.DefaultMessageStore.PutMessage(m)
	if r.Status == commitlog.PutOK && c.flushFails.Load() {
		r.Status = commitlog.FlushDiskTimeout
	}
	return r
}

func (c *confirmCountingStore) AwaitConfirmed(end int64) commitlog.PutMessageStatus {
	c.confirms.Add(1)
	if c.flushFails.Load() {
		return commitlog.FlushDiskTimeout
	}
	return c.DefaultMessageStore.AwaitConfirmed(end)
}

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

// awaitConfirms polls until the service asked for n more confirmations
// of an unconfirmed delivery; level 1's delay offset must not move
// meanwhile.
func awaitConfirms(t *testing.T, c *confirmCountingStore, n int32, table *OffsetTable) {
	t.Helper()
	target := c.confirms.Load() + n
	wait.Eventually(t, 10*time.Second, func() error {
		if off, _ := table.Offset(1); off != 0 {
			t.Fatalf("delay offset moved to %d without a confirmed delivery (%d puts)", off, c.puts.Load())
		}
		if got := c.confirms.Load(); got < target {
			return fmt.Errorf("%d confirmation attempts, want %d", got, target)
		}
		return nil
	})
}

func realTopicBodies(s *store.DefaultMessageStore, topic string) []string {
	got, _ := readQueue(s, topic, 0)
	var out []string
	for _, m := range got {
		out = append(out, string(m.Body))
	}
	return out
}

// TestScheduleUnconfirmedDeliveryWaitsForSlave: on a SYNC_MASTER whose
// slave is absent or silent, a due message is delivered once (consumers see
// it) but the level's delay offset does not move, so a crash or failover
// re-delivers it instead of losing it; the copy is not written again while
// waiting; once the slave acknowledges, the offset moves and every message
// has been delivered exactly once.
func TestScheduleUnconfirmedDeliveryWaitsForSlave(t *testing.T) {
	cfg := store.NewMessageStoreConfig()
	cfg.StorePathRootDir = filepath.Join(t.TempDir(), "store")
	cfg.MappedFileSizeCommitLog = 1 << 20
	cfg.MappedFileSizeConsumeQueue = 400
	cfg.BrokerRole = store.SyncMaster
	cfg.SyncFlushTimeout = 1000
	s, err := store.Open(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	rep := &replicaSwitch{}
	rep.mode.Store(slaveAcks)
	s.CommitLog().SetReplicaWaiter(rep)
	putDelayed(t, s, "SM", 0, 1, "first")
	putDelayed(t, s, "SM", 0, 1, "second")
	wait.Eventually(t, 5*time.Second, func() error {
		if s.MaxOffsetInQueue(ScheduleTopic, 0) != 2 {
			return errors.New("not dispatched")
		}
		return nil
	})
	rep.mode.Store(slaveAbsent)

	cs := &confirmCountingStore{DefaultMessageStore: s}
	table := NewOffsetTable(filepath.Join(cfg.ConfigDir(), "delayOffset.json"), nil)
	levels, _ := ParseDelayLevel(DefaultMessageDelayLevel)
	clk := &skewClock{}
	clk.advance(time.Minute)
	d := NewDeliveryService(cs, table, DeliveryOptions{Levels: levels, Now: clk.now, Logger: zaptest.NewLogger(t)})
	d.Start()
	t.Cleanup(func() { _ = d.Stop(context.Background()) })

	for _, mode := range []int32{slaveAbsent, slaveSilent} {
		rep.mode.Store(mode)
		awaitConfirms(t, cs, 3, table)
		if off, _ := table.Offset(1); off != 0 {
			t.Fatalf("slave mode %d: delay offset %d advanced without confirmation", mode, off)
		}
		if got := realTopicBodies(s, "SM"); len(got) != 1 || got[0] != "first" || cs.puts.Load() != 1 {
			t.Fatalf("slave mode %d: delivered %v in %d puts, want [first] in 1", mode, got, cs.puts.Load())
		}
	}
	rep.mode.Store(slaveAcks)
	wait.Eventually(t, 10*time.Second, func() error {
		if off, _ := table.Offset(1); off != 2 {
			return fmt.Errorf("delay offset %d", off)
		}
		return nil
	})
	if got := realTopicBodies(s, "SM"); len(got) != 2 || got[0] != "first" || got[1] != "second" || cs.puts.Load() != 2 {
		t.Fatalf("delivered %v in %d puts, want [first second] in 2", got, cs.puts.Load())
	}
}

// TestScheduleFlushTimeoutIsNotDelivered: a put answered FLUSH_DISK_TIMEOUT
// (SYNC_FLUSH, the disk did not sync in time) leaves the delay offset
// where it is and is not written again; when the flush is confirmed the
// offset moves, persisted, with one copy delivered.
func TestScheduleFlushTimeoutIsNotDelivered(t *testing.T) {
	s, cfg := openTestStore(t)
	levels, _ := ParseDelayLevel(DefaultMessageDelayLevel)
	putDelayed(t, s, "U", 0, 1, "once")
	wait.Eventually(t, 5*time.Second, func() error {
		if s.MaxOffsetInQueue(ScheduleTopic, 0) != 1 {
			return errors.New("not dispatched")
		}
		return nil
	})
	cs := &confirmCountingStore{DefaultMessageStore: s}
	cs.flushFails.Store(true)
	table := NewOffsetTable(filepath.Join(cfg.ConfigDir(), "delayOffset.json"), nil)
	clk := &skewClock{}
	clk.advance(time.Minute)
	d := NewDeliveryService(cs, table, DeliveryOptions{Levels: levels, Now: clk.now, Logger: zaptest.NewLogger(t)})
	d.Start()
	t.Cleanup(func() { _ = d.Stop(context.Background()) })
	awaitConfirms(t, cs, 3, table)
	if off, _ := table.Offset(1); off != 0 {
		t.Fatalf("delay offset %d advanced on FLUSH_DISK_TIMEOUT", off)
	}
	if n := cs.puts.Load(); n != 1 {
		t.Fatalf("written %d times while unconfirmed, want once", n)
	}
	cs.flushFails.Store(false)
	wait.Eventually(t, 5*time.Second, func() error {
		if off, _ := table.Offset(1); off != 1 {
			return fmt.Errorf("level 1 offset %d", off)
		}
		return nil
	})
	if got := realTopicBodies(s, "U"); len(got) != 1 || cs.puts.Load() != 1 {
		t.Fatalf("delivered %v in %d puts, want once", got, cs.puts.Load())
	}
	if err := d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	back := NewOffsetTable(table.Path(), nil)
	if err := back.Load(); err != nil {
		t.Fatal(err)
	}
	if off, _ := back.Offset(1); off != 1 {
		t.Fatalf("persisted level 1 offset %d, want 1", off)
	}
}
