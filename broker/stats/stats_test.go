package stats

import (
	"math"
	"sync"
	"testing"
	"time"
)

func TestItemMinuteHourDay(t *testing.T) {
	m := New("DefaultCluster", false)
	t0 := time.UnixMilli(1_700_000_000_000)
	m.IncTopicPut("T", 0, 1, 100)
	m.IncTopicPut("T", 1, 1, 300)
	m.SampleSeconds(t0) // first sample: a zero sample 10 s earlier is added
	it := m.Lookup(TopicPutNums, "T")
	if it == nil {
		t.Fatal("TOPIC_PUT_NUMS T missing")
	}
	if s := it.Minute(); s.Sum != 2 || s.Times != 2 || s.Tps != 0.2 || s.Avgpt != 1 {
		t.Fatalf("minute %+v", s)
	}
	if s := m.Lookup(TopicPutSize, "T").Minute(); s.Sum != 400 || s.Avgpt != 200 || s.Tps != 40 {
		t.Fatalf("size minute %+v", s)
	}
	// Seven samples span the minute: older traffic leaves the window.
	for i := 1; i <= 6; i++ {
		m.IncTopicPut("T", 0, 1, 1)
		m.SampleSeconds(t0.Add(time.Duration(i) * SecondsPeriod))
	}
	if s := it.Minute(); s.Sum != 6 || s.Tps != 0.1 {
		t.Fatalf("minute after a minute %+v", s)
	}
	// Hour and day series are fed by their own samplers only.
	if s := it.Hour(); s.Sum != 0 || s.Times != 0 {
		t.Fatalf("hour before sampling %+v", s)
	}
	m.SampleMinutes(t0)
	m.SampleHour(t0)
	if s := it.Hour(); s.Sum != 8 || s.Tps != 8.0/600 {
		t.Fatalf("hour %+v", s)
	}
	if s := it.Day(); s.Sum != 8 || s.Tps != 8.0/3600 {
		t.Fatalf("day %+v", s)
	}
	// BROKER_PUT_NUMS counts values, not calls (Java adds to the value only).
	m.IncBrokerPut(5)
	m.SampleSeconds(t0.Add(7 * SecondsPeriod))
	if s := m.Lookup(BrokerPutNums, "DefaultCluster").Minute(); s.Sum != 5 || s.Times != 0 || s.Avgpt != 0 {
		t.Fatalf("broker put %+v", s)
	}
}

func TestGroupKeysAndTps(t *testing.T) {
	m := New("c", false)
	m.IncGroupGet("g", "T", 3, 4, 40)
	m.IncGroupGetLatency("g", "T", 3, 7)
	m.IncSendBack("g", "T")
	m.RecordFallBehind("g", "T", 3, 1000, 50)
	if got := m.TpsGroupGetNums("g", "T"); got != 0 {
		t.Fatalf("tps before a sample %v", got)
	}
	m.SampleSeconds(time.Now())
	if got := m.TpsGroupGetNums("g", "T"); math.Abs(got-0.4) > 1e-9 {
		t.Fatalf("tps %v, want 0.4", got)
	}
	for name, want := range map[string]int64{GroupGetNums: 4, GroupGetSize: 40, GroupGetLatency: 7, SndbckPutNums: 1} {
		if it := m.Lookup(name, "T@g"); it == nil || it.Minute().Sum != want {
			t.Fatalf("%s T@g: %v", name, it)
		}
	}
	if it := m.Lookup(BrokerGetNums, "c"); it.Value() != 4 {
		t.Fatalf("broker get %d", it.Value())
	}
	if v, ok := m.FallSize().Get("3@T@g"); !ok || v != 1000 {
		t.Fatalf("fall size %d %v", v, ok)
	}
	if v, _ := m.FallTime().Get("3@T@g"); v != 50 {
		t.Fatalf("fall time %d", v)
	}
	// Unknown names and keys are nil, as getStatsItem's null.
	if m.Lookup("NOPE", "T@g") != nil || m.Lookup(GroupGetNums, "T@h") != nil || m.Lookup(QueuePutNums, "T@0") != nil {
		t.Fatal("lookup of unknown item")
	}
	m.OnGroupDeleted("g")
	if m.Lookup(GroupGetNums, "T@g") != nil || m.Lookup(GroupGetLatency, "T@g") != nil {
		t.Fatal("group items kept after delete")
	}
	if _, ok := m.FallSize().Get("3@T@g"); ok {
		t.Fatal("fall size kept after group delete")
	}
	m.IncTopicPut("T", 0, 1, 1)
	m.IncGroupGet("g2", "T", 0, 1, 1)
	m.OnTopicDeleted("T")
	if m.Lookup(TopicPutNums, "T") != nil || m.Lookup(GroupGetNums, "T@g2") != nil {
		t.Fatal("topic items kept after delete")
	}
}

func TestQueueStats(t *testing.T) {
	m := New("c", true)
	m.IncTopicPut("T", 2, 3, 30)
	m.IncGroupGet("g", "T", 2, 1, 10)
	m.IncGroupGetLatency("g", "T", 2, 5)
	for _, c := range []struct {
		name, key string
		v         int64
	}{{QueuePutNums, "T@2", 3}, {QueuePutSize, "T@2", 30}, {QueueGetNums, "T@2@g", 1}, {QueueGetSize, "T@2@g", 10}, {GroupGetLatency, "2@T@g", 5}} {
		if it := m.Lookup(c.name, c.key); it == nil || it.Value() != c.v {
			t.Fatalf("%s %s: %v", c.name, c.key, it)
		}
	}
}

func TestMorningRecord(t *testing.T) {
	var d Morning
	if a, b, c, e := d.Values(); a|b|c|e != 0 {
		t.Fatal("morning counters not zero before the first midnight")
	}
	d.Record(10, 4)
	d.Record(25, 9)
	if py, pt, gy, gt := d.Values(); py != 10 || pt != 25 || gy != 4 || gt != 9 {
		t.Fatalf("values %d %d %d %d", py, pt, gy, gt)
	}
	// Tick: armed by the first call, records once per midnight passed.
	var m Morning
	put, get := int64(0), int64(0)
	totals := func() (int64, int64) { return put, get }
	day := time.Date(2026, 12, 1, 23, 59, 50, 0, time.Local)
	m.Tick(day, totals)
	put, get = 7, 3
	m.Tick(day.Add(5*time.Second), totals)
	if _, pt, _, _ := m.Values(); pt != 0 {
		t.Fatalf("recorded before midnight: %d", pt)
	}
	m.Tick(day.Add(10*time.Second), totals) // 00:00:00
	put, get = 9, 4
	m.Tick(day.Add(20*time.Second), totals)
	if py, pt, gy, gt := m.Values(); py != 0 || pt != 7 || gy != 0 || gt != 3 {
		t.Fatalf("after the first midnight %d %d %d %d", py, pt, gy, gt)
	}
	m.Tick(day.Add(24*time.Hour+10*time.Second), totals)
	if py, pt, gy, gt := m.Values(); py != 7 || pt != 9 || gy != 3 || gt != 4 {
		t.Fatalf("after the second midnight %d %d %d %d", py, pt, gy, gt)
	}

	loc := time.FixedZone("X", 8*3600)
	now := time.Date(2026, 12, 31, 23, 59, 59, 0, loc)
	if got := NextMorning(now); !got.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, loc)) {
		t.Fatalf("next morning %v", got)
	}
}

// TestConcurrentAddAndSample runs the hot path against the samplers (run
// with -race).
func TestConcurrentAddAndSample(t *testing.T) {
	m := New("c", false)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				m.IncTopicPut("T", int32(w), 1, 10)
				m.IncBrokerPut(1)
				if i%100 == 0 {
					m.SampleSeconds(time.Now())
					_ = m.Lookup(TopicPutNums, "T").Minute()
				}
			}
		}()
	}
	wg.Wait()
	if v := m.Lookup(TopicPutNums, "T").Value(); v != 4000 {
		t.Fatalf("value %d", v)
	}
}

// TestDeletedItemsAreRecreated: counting after a delete goes to a fresh,
// visible item, not to the cached deleted one.
func TestDeletedItemsAreRecreated(t *testing.T) {
	m := New("c", true)
	m.IncTopicPut("T", 0, 1, 1)
	m.IncGroupGet("g", "T", 0, 1, 1)
	old := m.putItems("T", 0)
	m.Set(TopicPutNums).Delete(func(k string) bool { return k == "T" }) // no cache clear
	m.IncTopicPut("T", 0, 2, 2)
	if it := m.Lookup(TopicPutNums, "T"); it == nil || it.Value() != 2 || it == old.nums {
		t.Fatalf("after delete: %v", it)
	}
	m.OnGroupDeleted("g")
	m.IncGroupGet("g", "T", 0, 3, 3)
	m.IncGroupGetLatency("g", "T", 0, 4)
	if it := m.Lookup(GroupGetNums, "T@g"); it == nil || it.Value() != 3 {
		t.Fatalf("group get after delete: %v", it)
	}
	if it := m.Lookup(GroupGetLatency, "0@T@g"); it == nil || it.Value() != 4 {
		t.Fatalf("latency after delete: %v", it)
	}
}
