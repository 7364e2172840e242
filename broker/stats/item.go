// Package stats is the broker's BrokerStatsManager (Apache RocketMQ 4.9.8
// store/stats and common/stats): named sets of counters keyed by topic,
// "topic@group" or the cluster name, sampled every 10 s, 10 min and 1 h so
// that VIEW_BROKER_STATS_DATA, GET_CONSUME_STATS and the dashboards read
// per-minute, per-hour and per-day sums, rates and averages; moment sets
// (GROUP_GET_FALL_SIZE/TIME) that keep the last value; and the daily
// morning counters of BrokerStats.
//
// Hot path: adding to an existing item is one sync.Map load and two atomic
// adds; items are created once per key. Sampling takes a per-item mutex
// that the hot path never touches.
package stats

import (
	"sync"
	"sync/atomic"
	"time"
)

// Window lengths and sizes of the three sampled series (StatsItem): a
// sample every 10 s kept 7 deep covers a minute, every 10 min 7 deep an
// hour, every hour 25 deep a day.
const (
	SecondsPeriod = 10 * time.Second
	MinutesPeriod = 10 * time.Minute
	HourPeriod    = time.Hour

	minuteDepth = 7
	hourDepth   = 7
	dayDepth    = 25
)

// callSnapshot is one sample of an item's running totals.
type callSnapshot struct {
	ms, times, value int64
}

// Snapshot is the figure one series gives (StatsSnapshot): the value and
// call count added between its oldest and newest sample, the value rate
// per second and the value per call.
type Snapshot struct {
	Sum   int64
	Tps   float64
	Avgpt float64
	Times int64
}

// Item is one counter (StatsItem): a value and a number of calls, plus the
// three sampled series.
type Item struct {
	value, times atomic.Int64
	dead         atomic.Bool // deleted from its set: cached pointers must re-resolve

	mu                 sync.Mutex // guards the series
	minute, hour, days []callSnapshot
}

// Add adds v to the value and n to the call count.
func (it *Item) Add(v, n int64) {
	it.value.Add(v)
	if n != 0 {
		it.times.Add(n)
	}
}

// Value is the running total of the value.
func (it *Item) Value() int64 { return it.value.Load() }

// Times is the running number of calls.
func (it *Item) Times() int64 { return it.times.Load() }

// sample appends the current totals to *list; an empty series first gets a
// zero sample one period back, so the first real sample already spans a
// period (Java does the same).
func (it *Item) sample(list *[]callSnapshot, now time.Time, period time.Duration, depth int) {
	it.mu.Lock()
	defer it.mu.Unlock()
	if len(*list) == 0 {
		*list = append(*list, callSnapshot{ms: now.Add(-period).UnixMilli()})
	}
	*list = append(*list, callSnapshot{ms: now.UnixMilli(), times: it.times.Load(), value: it.value.Load()})
	if len(*list) > depth {
		*list = append((*list)[:0], (*list)[1:]...)
	}
}

// compute is computeStatsData over one series; the caller holds mu.
func compute(list []callSnapshot) Snapshot {
	var s Snapshot
	if len(list) == 0 {
		return s
	}
	first, last := list[0], list[len(list)-1]
	s.Sum = last.value - first.value
	s.Tps = float64(s.Sum) * 1000 / float64(last.ms-first.ms)
	s.Times = last.times - first.times
	if s.Times > 0 {
		s.Avgpt = float64(s.Sum) / float64(s.Times)
	}
	return s
}

// Minute is the figure over the last minute (10 s samples).
func (it *Item) Minute() Snapshot {
	it.mu.Lock()
	defer it.mu.Unlock()
	return compute(it.minute)
}

// Hour is the figure over the last hour (10 min samples).
func (it *Item) Hour() Snapshot {
	it.mu.Lock()
	defer it.mu.Unlock()
	return compute(it.hour)
}

// Day is the figure over the last day (hourly samples).
func (it *Item) Day() Snapshot {
	it.mu.Lock()
	defer it.mu.Unlock()
	return compute(it.days)
}
