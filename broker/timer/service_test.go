package timer

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

func newTestService(t *testing.T, st Store, dir string, clk *fakeClock) *Service {
	return NewService(st, Options{CheckpointPath: filepath.Join(dir, "timercheck"), Now: clk.Now,
		Logger: zaptest.NewLogger(t)})
}

// TestTimerServiceDeliversOnTime: messages at +1 s, +10 s and +65 s (an
// injected clock) reach their real topic and queue at their time, not
// earlier than their rounded TIMER_OUT_MS, in time order, once each, with
// 5.x's delivered properties.
func TestTimerServiceDeliversOnTime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := openStore(t, dir)
	defer closeStore(t, st)
	start := time.UnixMilli(1_700_000_000_500)
	clk := &fakeClock{t: start}
	sendTimer(t, st, start, "TopicT", "at65", PropertyDelaySec, "65")
	sendTimer(t, st, start, "TopicT", "at10", PropertyDeliverMs, strconv.FormatInt(start.Add(10*time.Second).UnixMilli(), 10))
	sendTimer(t, st, start, "TopicT", "at1", PropertyDelayMs, ms(time.Second))
	waitQueue(t, st, Topic, 0, 3)
	s := newTestService(t, st, dir, clk)
	ctx := t.Context()
	steps := []struct {
		at   time.Duration
		want []string
	}{
		{0, nil},
		{500 * time.Millisecond, []string{"at1"}}, // TIMER_OUT_MS rounds +1.5 s down to +1 s (5.x)
		{9 * time.Second, []string{"at1"}},
		{9500 * time.Millisecond, []string{"at1", "at10"}},
		{64 * time.Second, []string{"at1", "at10"}},
		{64500 * time.Millisecond, []string{"at1", "at10", "at65"}},
		{100 * time.Second, []string{"at1", "at10", "at65"}},
	}
	for _, step := range steps {
		clk.t = start.Add(step.at)
		s.tick(ctx)
		waitQueue(t, st, "TopicT", 1, int64(len(step.want)))
		if got := bodies(delivered(t, st, "TopicT")); !slices.Equal(got, step.want) {
			t.Fatalf("at +%v delivered %v, want %v", step.at, got, step.want)
		}
	}
	if sch, del := s.Stats(); sch != 3 || del != 3 {
		t.Errorf("Stats = %d scheduled, %d delivered; want 3, 3", sch, del)
	}
	m := delivered(t, st, "TopicT")[2]
	p := message.UnmarshalProperties(m.PropertiesString)
	if m.QueueID != 1 || p[message.PropertyRealTopic] != "" || p[message.PropertyRealQueueID] != "" {
		t.Errorf("delivered to queue %d with REAL_* %q", m.QueueID, m.PropertiesString)
	}
	wantOut := strconv.FormatInt(start.Add(64500*time.Millisecond).UnixMilli(), 10) // +65 s floored to the second
	if p[PropertyOutMs] != wantOut || p[PropertyDelaySec] != "65" || p[message.PropertyWaitStoreMsgOK] != "false" ||
		p[message.PropertyUniqClientMessageIDKeyidx] != "UNIQ-at65" || p[PropertyEnqueueMs] == "" || p[PropertyDequeueMs] == "" {
		t.Errorf("delivered properties %v (want TIMER_OUT_MS %s)", p, wantOut)
	}
}

// TestTimerServiceRestart: a clean restart keeps what was delivered
// delivered and what was pending pending; a message that fell due while
// the broker was down is delivered on the first scan after start.
func TestTimerServiceRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.UnixMilli(1_700_000_000_000)
	clk := &fakeClock{t: start}
	st := openStore(t, dir)
	for i, d := range []time.Duration{2 * time.Second, 5 * time.Second, time.Hour, 3 * time.Second} {
		sendTimer(t, st, start, "TopicR", "m"+strconv.Itoa(i), PropertyDelayMs, ms(d))
	}
	waitQueue(t, st, Topic, 0, 4)
	s := newTestService(t, st, dir, clk)
	clk.Add(3 * time.Second) // m0 and m3 due
	s.tick(t.Context())
	waitQueue(t, st, "TopicR", 1, 2)
	if err := s.Persist(); err != nil {
		t.Fatal(err)
	}
	closeStore(t, st)

	clk.Add(10 * time.Second) // m1 fell due while down
	st = openStore(t, dir)
	defer closeStore(t, st)
	s = newTestService(t, st, dir, clk)
	s.tick(t.Context())
	waitQueue(t, st, "TopicR", 1, 3)
	if got := bodies(delivered(t, st, "TopicR")); !slices.Equal(got, []string{"m0", "m3", "m1"}) {
		t.Fatalf("delivered %v, want [m0 m3 m1]", got)
	}
	if len(s.idx) != 1 || s.idx[0].qo != 2 {
		t.Fatalf("pending after restart %+v, want only m2 (queue offset 2)", s.idx)
	}
	clk.Add(time.Hour)
	s.tick(t.Context())
	waitQueue(t, st, "TopicR", 1, 4)
}

// TestTimerServiceNoCheckpointReadsAll: without a timercheck (first start,
// or a damaged file) every unit of the timer queue is pending again.
func TestTimerServiceNoCheckpointReadsAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := openStore(t, dir)
	defer closeStore(t, st)
	start := time.UnixMilli(1_700_000_000_000)
	clk := &fakeClock{t: start}
	sendTimer(t, st, start, "TopicN", "a", PropertyDelaySec, "1")
	sendTimer(t, st, start, "TopicN", "b", PropertyDelaySec, "7")
	waitQueue(t, st, Topic, 0, 2)
	// Intact, this checkpoint would mark both units settled (delivered):
	// only ignoring the damaged file delivers them.
	b := Checkpoint{IngestOffset: 2, MinPending: 2, SettledAt: math.MaxInt64, SettledQo: math.MaxInt64}.Encode()
	b[5] ^= 0xff // torn: CRC mismatch
	if _, err := DecodeCheckpoint(b); err == nil {
		t.Fatal("damaged checkpoint decoded")
	}
	if err := os.WriteFile(filepath.Join(dir, "timercheck"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTestService(t, st, dir, clk)
	clk.Add(time.Minute)
	s.tick(t.Context())
	waitQueue(t, st, "TopicN", 1, 2)
}

// TestTimerServiceQueueRecreated: when the timer queue is destroyed and
// re-created (its offsets restart at 0, below the ingest cursor), new timer
// messages are still read and delivered.
func TestTimerServiceQueueRecreated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := openStore(t, dir)
	defer closeStore(t, st)
	start := time.UnixMilli(1_700_000_000_000)
	clk := &fakeClock{t: start}
	sendTimer(t, st, start, "TopicQ", "old0", PropertyDelaySec, "1")
	sendTimer(t, st, start, "TopicQ", "old1", PropertyDelaySec, "1")
	waitQueue(t, st, Topic, 0, 2)
	s := newTestService(t, st, dir, clk)
	clk.Add(2 * time.Second)
	s.tick(t.Context())
	waitQueue(t, st, "TopicQ", 1, 2)
	st.DeleteTopics([]string{Topic})
	sendTimer(t, st, clk.Now(), "TopicQ", "new", PropertyDelaySec, "1")
	waitQueue(t, st, Topic, 0, 1)
	clk.Add(2 * time.Second)
	s.tick(t.Context())
	waitQueue(t, st, "TopicQ", 1, 3)
	if got := bodies(delivered(t, st, "TopicQ")); !slices.Equal(got, []string{"old0", "old1", "new"}) {
		t.Fatalf("delivered %v", got)
	}
}

// TestTimerServiceCrashAtLeastOnce: a crash after deliveries but before the
// checkpoint was written loses nothing: the checkpoint's pending part is
// read again, so a message delivered since can come a second time.
func TestTimerServiceCrashAtLeastOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.UnixMilli(1_700_000_000_000)
	clk := &fakeClock{t: start}
	st := openStore(t, dir)
	sendTimer(t, st, start, "TopicC", "a", PropertyDelaySec, "2")
	sendTimer(t, st, start, "TopicC", "b", PropertyDelaySec, "4")
	waitQueue(t, st, Topic, 0, 2)
	s := NewService(st, Options{CheckpointPath: filepath.Join(dir, "timercheck"), Now: clk.Now,
		FlushInterval: time.Hour, Logger: zaptest.NewLogger(t)})
	s.tick(t.Context()) // ingests both
	if err := s.Persist(); err != nil {
		t.Fatal(err)
	}
	clk.Add(2 * time.Second) // a is due at +1 s, b at +3 s (5.x rounding)
	s.tick(t.Context())      // delivers a; no checkpoint after it (crash)
	waitQueue(t, st, "TopicC", 1, 1)
	closeStore(t, st)

	clk.Add(5 * time.Second)
	st = openStore(t, dir)
	defer closeStore(t, st)
	s = newTestService(t, st, dir, clk)
	s.tick(t.Context())
	waitQueue(t, st, "TopicC", 1, 3)
	if got := bodies(delivered(t, st, "TopicC")); !slices.Equal(got, []string{"a", "a", "b"}) {
		t.Fatalf("delivered %v, want [a a b]", got)
	}
}

// TestTimerServiceCheckpointAheadOfQueue: a slave started as master with the
// master's checkpoint may hold fewer units than the checkpoint covers; the
// units it replicates afterwards are still filtered by that checkpoint, so
// the ones the old master delivered are not delivered again.
func TestTimerServiceCheckpointAheadOfQueue(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := openStore(t, dir)
	defer closeStore(t, st)
	start := time.UnixMilli(1_700_000_000_000)
	clk := &fakeClock{t: start}
	// The old master delivered the unit at queue offset 0 (due +1 s) and
	// still had offset 1 (due +9 s) pending.
	ck := Checkpoint{IngestOffset: 2, MinPending: 1, SettledAt: start.Add(9 * time.Second).UnixMilli(), SettledQo: 1}
	if err := PersistCheckpoint(filepath.Join(dir, "timercheck"), ck); err != nil {
		t.Fatal(err)
	}
	s := newTestService(t, st, dir, clk)
	s.tick(t.Context()) // the queue is still empty here
	sendTimer(t, st, start, "TopicA", "done", PropertyDelaySec, "2")
	sendTimer(t, st, start, "TopicA", "later", PropertyDelaySec, "10")
	waitQueue(t, st, Topic, 0, 2)
	clk.Add(time.Minute)
	s.tick(t.Context())
	wait.Eventually(t, 10*time.Second, func() error {
		if n := st.DispatchBehindBytes(); n > 0 {
			return fmt.Errorf("dispatch %d bytes behind", n)
		}
		return nil
	})
	if got := bodies(delivered(t, st, "TopicA")); !slices.Equal(got, []string{"later"}) {
		t.Fatalf("delivered %v, want [later]", got)
	}
}

// TestTimerServicePersistWhileTicking: a broker shutting down persists the
// checkpoint of a controller-mode master term whose service may still be
// ticking; under -race the two must not touch the index at once.
func TestTimerServicePersistWhileTicking(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := openStore(t, dir)
	defer closeStore(t, st)
	start := time.UnixMilli(1_700_000_000_500)
	clk := &fakeClock{t: start}
	for i := range 20 {
		sendTimer(t, st, start, "TopicT", "m"+strconv.Itoa(i), PropertyDelaySec, strconv.Itoa(1+i))
	}
	waitQueue(t, st, Topic, 0, 20)
	s := newTestService(t, st, dir, clk)
	ctx := t.Context()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 50 {
			s.tick(ctx)
		}
	}()
	for range 50 {
		if err := s.Persist(); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if err := s.Persist(); err != nil {
		t.Fatal(err)
	}
	if c := s.Checkpoint(); c.IngestOffset != 20 {
		t.Errorf("checkpoint ingest offset %d, want 20", c.IngestOffset)
	}
}
