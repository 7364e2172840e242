package stats

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Set is a named family of items keyed by a stats key (StatsItemSet).
type Set struct {
	name  string
	items sync.Map // stats key -> *Item
}

func newSet(name string) *Set { return &Set{name: name} }

// Name is the stats name (TOPIC_PUT_NUMS…).
func (s *Set) Name() string { return s.name }

// Item returns key's item, creating it.
func (s *Set) Item(key string) *Item {
	if v, ok := s.items.Load(key); ok {
		return v.(*Item)
	}
	v, _ := s.items.LoadOrStore(key, new(Item))
	return v.(*Item)
}

// Lookup returns key's item or nil.
func (s *Set) Lookup(key string) *Item {
	if v, ok := s.items.Load(key); ok {
		return v.(*Item)
	}
	return nil
}

// Add adds v (and n calls) to key's item (addValue).
func (s *Set) Add(key string, v, n int64) { s.Item(key).Add(v, n) }

// MinuteOf is the last minute's figure for key, zero when key is unknown
// (getStatsDataInMinute).
func (s *Set) MinuteOf(key string) Snapshot {
	if it := s.Lookup(key); it != nil {
		return it.Minute()
	}
	return Snapshot{}
}

// Delete drops the keys match selects.
func (s *Set) Delete(match func(key string) bool) {
	s.items.Range(func(k, v any) bool {
		if match(k.(string)) {
			v.(*Item).dead.Store(true)
			s.items.Delete(k)
		}
		return true
	})
}

// Range calls f with every key and item until f returns false (metrics
// read the running totals at scrape time).
func (s *Set) Range(f func(key string, it *Item) bool) {
	s.items.Range(func(k, v any) bool { return f(k.(string), v.(*Item)) })
}

func (s *Set) each(f func(*Item)) {
	s.items.Range(func(_, v any) bool {
		f(v.(*Item))
		return true
	})
}

func (s *Set) sampleSeconds(now time.Time) {
	s.each(func(it *Item) { it.sample(&it.minute, now, SecondsPeriod, minuteDepth) })
}

func (s *Set) sampleMinutes(now time.Time) {
	s.each(func(it *Item) { it.sample(&it.hour, now, MinutesPeriod, hourDepth) })
}

func (s *Set) sampleHour(now time.Time) {
	s.each(func(it *Item) { it.sample(&it.days, now, HourPeriod, dayDepth) })
}

// MomentSet keeps the last value recorded per key (MomentStatsItemSet):
// how far behind the newest message a group's last read was.
type MomentSet struct {
	name  string
	items sync.Map // stats key -> *atomic.Int64
}

// Name is the stats name (GROUP_GET_FALL_SIZE…).
func (s *MomentSet) Name() string { return s.name }

// Set records v as key's current value.
func (s *MomentSet) Set(key string, v int64) { s.item(key).Store(v) }

// item returns key's value cell, creating it.
func (s *MomentSet) item(key string) *atomic.Int64 {
	if p, ok := s.items.Load(key); ok {
		return p.(*atomic.Int64)
	}
	p, _ := s.items.LoadOrStore(key, new(atomic.Int64))
	return p.(*atomic.Int64)
}

// Get returns key's value and whether it was ever set.
func (s *MomentSet) Get(key string) (int64, bool) {
	if p, ok := s.items.Load(key); ok {
		return p.(*atomic.Int64).Load(), true
	}
	return 0, false
}

// Delete drops the keys match selects.
func (s *MomentSet) Delete(match func(key string) bool) {
	s.items.Range(func(k, _ any) bool {
		if match(k.(string)) {
			s.items.Delete(k)
		}
		return true
	})
}

// keyHasPrefix is delValueByPrefixKey: key starts with prefix+sep.
func keyHasPrefix(prefix, sep string) func(string) bool {
	return func(k string) bool { return strings.HasPrefix(k, prefix+sep) }
}

// keyHasSuffix is delValueBySuffixKey: key ends with sep+suffix.
func keyHasSuffix(suffix, sep string) func(string) bool {
	return func(k string) bool { return strings.HasSuffix(k, sep+suffix) }
}

// keyHasInfix is delValueByInfixKey: key contains sep+infix+sep.
func keyHasInfix(infix, sep string) func(string) bool {
	return func(k string) bool { return strings.Contains(k, sep+infix+sep) }
}
