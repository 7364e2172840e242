package longpoll

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/wait"
)

type fakeQueues struct {
	mu  sync.Mutex
	max map[string]int64
}

func (f *fakeQueues) get(topic string, _ int32) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.max[topic]
}

func (f *fakeQueues) set(topic string, v int64) {
	f.mu.Lock()
	f.max[topic] = v
	f.mu.Unlock()
}

// tagFilter matches one tags code and, on the commit log, property k=v.
type tagFilter struct {
	code int64
	prop string
}

func (f tagFilter) IsMatchedByConsumeQueue(tagsCode int64, _ *store.CqExtUnit) bool {
	return tagsCode == f.code
}

func (f tagFilter) IsMatchedByCommitLog(_ []byte, props map[string]string) bool {
	return f.prop == "" || props["k"] == f.prop
}

type clock struct{ ms atomic.Int64 }

func (c *clock) now() int64 { return c.ms.Load() }

func newTestService(t *testing.T) (*Service, *fakeQueues, *clock) {
	q := &fakeQueues{max: map[string]int64{}}
	c := &clock{}
	c.ms.Store(1000)
	s := New(Options{MaxOffset: q.get, Now: c.now, Interval: time.Hour, Logger: zaptest.NewLogger(t)})
	return s, q, c
}

func held(s *Service, topic string, off, timeout int64, f store.MessageFilter, woken *atomic.Int32) *Request {
	r := &Request{Topic: topic, QueueID: 1, Offset: off, SuspendTimestamp: s.now(), TimeoutMillis: timeout,
		Filter: f, Wakeup: func() { woken.Add(1) }}
	s.Suspend(r)
	return r
}

func TestLongPollArrivalWakesOnlyMatchingWaiters(t *testing.T) {
	s, q, _ := newTestService(t)
	var a, b, other atomic.Int32
	held(s, "T", 5, 15000, tagFilter{code: 7}, &a)
	held(s, "T", 5, 15000, tagFilter{code: 8}, &b)
	held(s, "U", 5, 15000, nil, &other)
	q.set("T", 6)
	s.Arriving("T", 1, 6, 7, 0, nil, nil)
	if a.Load() != 1 || b.Load() != 0 || other.Load() != 0 {
		t.Fatalf("woken a=%d b=%d other=%d, want 1 0 0", a.Load(), b.Load(), other.Load())
	}
	if s.Len() != 2 {
		t.Fatalf("held %d, want 2", s.Len())
	}
	// A second arrival does not wake a again (exactly once).
	s.Arriving("T", 1, 7, 8, 0, nil, nil)
	if a.Load() != 1 || b.Load() != 1 {
		t.Fatalf("woken a=%d b=%d, want 1 1", a.Load(), b.Load())
	}
}

func TestLongPollArrivalBelowOffsetKeepsWaiting(t *testing.T) {
	s, _, _ := newTestService(t)
	var w atomic.Int32
	held(s, "T", 10, 15000, nil, &w)
	s.Arriving("T", 1, 10, 0, 0, nil, nil) // max offset 10: message 10 not there yet
	if w.Load() != 0 || s.Len() != 1 {
		t.Fatalf("woken %d held %d, want 0 1", w.Load(), s.Len())
	}
}

func TestLongPollCommitLogFilterUsesProperties(t *testing.T) {
	s, _, _ := newTestService(t)
	var w atomic.Int32
	held(s, "T", 0, 15000, tagFilter{code: 1, prop: "yes"}, &w)
	s.Arriving("T", 1, 1, 1, 0, nil, map[string]string{"k": "no"})
	if w.Load() != 0 {
		t.Fatal("woken by a message the SQL filter rejects")
	}
	s.Arriving("T", 1, 2, 1, 0, nil, map[string]string{"k": "yes"})
	if w.Load() != 1 {
		t.Fatal("not woken by a matching message")
	}
}

func TestLongPollCheckWakesOnTimeoutAndNewData(t *testing.T) {
	s, q, c := newTestService(t)
	var timedOut, fresh, waiting atomic.Int32
	held(s, "A", 0, 500, nil, &timedOut)
	held(s, "B", 3, 15000, tagFilter{code: 99}, &fresh) // the periodic check ignores filters, like Java
	held(s, "C", 0, 15000, nil, &waiting)
	q.set("B", 4)
	c.ms.Add(500)
	s.Check()
	if timedOut.Load() != 1 || fresh.Load() != 1 || waiting.Load() != 0 {
		t.Fatalf("woken timedOut=%d fresh=%d waiting=%d, want 1 1 0", timedOut.Load(), fresh.Load(), waiting.Load())
	}
}

func TestLongPollAbandonedAndStopDropSilently(t *testing.T) {
	s, _, c := newTestService(t)
	var w atomic.Int32
	r := held(s, "T", 0, 100, nil, &w)
	r.Abandoned = func() bool { return true }
	held(s, "T", 0, 100000, nil, &w)
	c.ms.Add(1000)
	s.Check()
	if w.Load() != 0 || s.Len() != 1 {
		t.Fatalf("woken %d held %d, want 0 1", w.Load(), s.Len())
	}
	s.Start()
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w.Load() != 0 || s.Len() != 0 {
		t.Fatalf("after stop woken %d held %d, want 0 0", w.Load(), s.Len())
	}
}

func TestLongPollPeriodicCheckRuns(t *testing.T) {
	q := &fakeQueues{max: map[string]int64{}}
	s := New(Options{MaxOffset: q.get, Interval: 10 * time.Millisecond, Logger: zaptest.NewLogger(t)})
	s.Start()
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	var w atomic.Int32
	held(s, "T", 0, 15000, nil, &w)
	q.set("T", 1)
	wait.Eventually(t, 5*time.Second, func() error {
		if w.Load() != 1 {
			return errNotWoken
		}
		return nil
	})
}

var errNotWoken = &notWoken{}

type notWoken struct{}

func (*notWoken) Error() string { return "not woken yet" }

// tagOnly is a filter that declares it never reads the properties.
type tagOnly struct{ tagFilter }

func (tagOnly) UsesCommitLogProperties() bool { return false }

// TestLongPollWantsPropertiesOnlyWhileAFilterReadsThem: the store builds an
// arriving message's properties map only while a held request's filter can
// read it (held, woken, kept, timed out and dropped requests all count).
func TestLongPollWantsPropertiesOnlyWhileAFilterReadsThem(t *testing.T) {
	s, q, c := newTestService(t)
	want := func(step string, v bool) {
		t.Helper()
		if got := s.WantsArrivingProperties(); got != v {
			t.Fatalf("%s: WantsArrivingProperties %v, want %v", step, got, v)
		}
	}
	var w atomic.Int32
	want("empty", false)
	held(s, "T", 0, 15000, nil, &w)
	held(s, "T", 0, 15000, tagOnly{tagFilter{code: 1}}, &w)
	want("no filter and a tag-only filter", false)
	held(s, "T", 0, 15000, tagFilter{code: 1, prop: "yes"}, &w)
	held(s, "U", 0, 500, tagFilter{code: 1, prop: "yes"}, &w)
	want("property filters held", true)
	s.Arriving("T", 1, 1, 1, 0, nil, map[string]string{"k": "no"}) // wakes the first two, keeps the third
	if w.Load() != 2 {
		t.Fatalf("woken %d, want 2", w.Load())
	}
	want("a property filter kept", true)
	s.Arriving("T", 1, 2, 1, 0, nil, map[string]string{"k": "yes"})
	want("one property filter on U left", true)
	q.set("U", 0)
	c.ms.Add(1000)
	s.Check() // U times out
	if w.Load() != 4 || s.Len() != 0 {
		t.Fatalf("woken %d held %d, want 4 0", w.Load(), s.Len())
	}
	want("all woken", false)
	held(s, "T", 5, 15000, tagFilter{code: 1, prop: "yes"}, &w)
	want("held again", true)
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	want("stopped", false)
}

// A pull suspended before a message's Arriving begins is woken by it, even
// though Arriving skips its lock while nothing is held: race the two many
// times and check every round where Suspend had returned first.
func TestLongPollSuspendRacingArrivalIsWoken(t *testing.T) {
	t.Parallel()
	s, _, _ := newTestService(t)
	rounds, ordered := 3000, 0
	for i := range rounds {
		var w atomic.Int32
		var registered atomic.Bool
		r := &Request{Topic: "T", QueueID: 1, Offset: int64(i), SuspendTimestamp: s.now(), TimeoutMillis: 1 << 40,
			Wakeup: func() { w.Add(1) }}
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			s.Suspend(r)
			registered.Store(true)
		}()
		sawRegistered := false
		go func() {
			defer wg.Done()
			<-start
			for range i % 7 {
				runtime.Gosched()
			}
			sawRegistered = registered.Load()
			s.Arriving("T", 1, int64(i)+1, 0, 0, nil, nil)
		}()
		close(start)
		wg.Wait()
		if sawRegistered {
			ordered++
			if w.Load() != 1 {
				t.Fatalf("round %d: pull suspended before the arrival was not woken (held %d)", i, s.Len())
			}
		}
		if w.Load() == 0 { // the arrival came first: the next one wakes it
			s.Arriving("T", 1, int64(i)+1, 0, 0, nil, nil)
		}
		if w.Load() != 1 || s.Len() != 0 || s.held.Load() != 0 {
			t.Fatalf("round %d: woken %d, held %d (count %d), want 1, 0, 0", i, w.Load(), s.Len(), s.held.Load())
		}
	}
	if ordered == 0 {
		t.Fatalf("no round had Suspend return before Arriving began; the race was not exercised")
	}
	t.Logf("%d of %d rounds had Suspend first", ordered, rounds)
}

// The count Arriving reads follows the table through every path that adds
// or removes requests, so a kept request is still found by a later arrival.
func TestLongPollHeldCountFollowsTable(t *testing.T) {
	t.Parallel()
	s, q, c := newTestService(t)
	check := func(step string, want int) {
		t.Helper()
		if n := s.Len(); n != want || s.held.Load() != int64(want) {
			t.Fatalf("%s: held %d (count %d), want %d", step, n, s.held.Load(), want)
		}
	}
	var w atomic.Int32
	held(s, "A", 5, 100000, nil, &w)
	held(s, "A", 0, 100000, nil, &w)
	held(s, "B", 0, 100, nil, &w)
	check("suspended", 3)
	s.Arriving("A", 1, 1, 0, 0, nil, nil) // wakes offset 0, keeps offset 5
	check("after arrival", 2)
	c.ms.Add(1000)
	s.Check() // B timed out
	check("after check", 1)
	if w.Load() != 2 {
		t.Fatalf("woken %d, want 2", w.Load())
	}
	q.set("A", 6)
	s.Arriving("A", 1, 6, 0, 0, nil, nil) // the kept one is found again
	check("after second arrival", 0)
	if w.Load() != 3 {
		t.Fatalf("woken %d, want 3", w.Load())
	}
	held(s, "A", 0, 100000, nil, &w)
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("after stop", 0)
}

// BenchmarkLongPollArrivingNoneHeld is the dispatcher's per-message call
// while no pull is held (a producer-only broker), with pulls held on other
// queues as the second case.
func BenchmarkLongPollArrivingNoneHeld(b *testing.B) {
	for _, other := range []int{0, 100} {
		b.Run("otherQueues="+strconv.Itoa(other), func(b *testing.B) {
			s := New(Options{Interval: time.Hour})
			var w atomic.Int32
			for i := range other {
				s.Suspend(&Request{Topic: "Other", QueueID: int32(i), Offset: 1 << 40, TimeoutMillis: 1 << 40,
					Wakeup: func() { w.Add(1) }})
			}
			b.ReportAllocs()
			for b.Loop() {
				s.Arriving("BenchTopic", 3, 100, 0, 0, nil, nil)
			}
		})
	}
}
