package stats

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// The stats log (Java's RocketmqStats logger, stats.log): every minute,
// hour and day each item of each set writes one line with its figure over
// that window, and every 5 minutes each moment item writes its value:
//
//	[TOPIC_PUT_NUMS] [TopicTest] Stats In One Minute, SUM: 5 TPS: 0.08 AVGPT: 1.00
//	[GROUP_GET_LATENCY] [TopicTest@g] Stats In One Hour, TIMES: 3 AVGRT: 0.33
//	[GROUP_GET_FALL_SIZE] [0@TopicTest@g] Stats Every 5 Minutes, Value: 0
//
// GROUP_GET_LATENCY items are Java's RTStatsItem and print TIMES/AVGRT.
// The commercial sets log to Java's RocketmqCommercial logger; 4.9.8 ships
// nothing that feeds them, so they are never printed here.

// Schedule says when the manager is sampled and when its lines are written.
type Schedule struct {
	// Sampling periods of the minute, hour and day series.
	Seconds, Minutes, Hour time.Duration
	// Periods of the "In One Minute", "In One Hour", "In One Day" and
	// "Every 5 Minutes" lines.
	PrintMinute, PrintHour, PrintDay, PrintMoment time.Duration
	// Aligned starts the lines as Java does: minute lines at the next
	// minute, hour lines at the next hour, day lines at the next local
	// midnight and moment lines at the next minute. Otherwise each starts
	// one period after Start (tests).
	Aligned bool
	// BrokerController's own periodic lines: the [WATERMARK] lines
	// (watermark.log) every WaterMark and the "dispatch behind commit log"
	// line (broker.log) every DispatchBehind, both first after FirstDelay.
	WaterMark, DispatchBehind, FirstDelay time.Duration
}

// JavaSchedule is StatsItemSet's and MomentStatsItemSet's schedule.
func JavaSchedule() Schedule {
	return Schedule{Seconds: SecondsPeriod, Minutes: MinutesPeriod, Hour: HourPeriod,
		PrintMinute: time.Minute, PrintHour: time.Hour, PrintDay: 24 * time.Hour, PrintMoment: 5 * time.Minute,
		Aligned: true, WaterMark: time.Second, DispatchBehind: time.Minute, FirstDelay: 10 * time.Second}
}

// printKind is one of the four kinds of line.
type printKind int

const (
	printMinute printKind = iota
	printHour
	printDay
	printMoment
	printKinds
)

// LogClock tracks when each kind of line is next due; it is driven by one
// goroutine (the broker's stats printer) and needs no lock.
type LogClock struct {
	s   Schedule
	due [printKinds]time.Time
}

// NewLogClock arms the first lines relative to now.
func NewLogClock(s Schedule, now time.Time) *LogClock {
	c := &LogClock{s: s}
	periods := c.periods()
	for k := range printKinds {
		c.due[k] = now.Add(periods[k])
	}
	if s.Aligned {
		c.due[printMinute] = nextMinute(now)
		c.due[printHour] = nextHour(now)
		c.due[printDay] = NextMorning(now)
		c.due[printMoment] = nextMinute(now)
	}
	for k := range printKinds {
		if periods[k] <= 0 {
			c.due[k] = never
		}
	}
	return c
}

// never is the due time of a kind of line with no period.
var never = time.Unix(1<<62, 0)

// CheckEvery is how often the printer should look whether a line is due:
// every second, or a quarter of the shortest print period when shorter.
func (s Schedule) CheckEvery() time.Duration {
	d := time.Second
	for _, p := range []time.Duration{s.PrintMinute, s.PrintHour, s.PrintDay, s.PrintMoment} {
		if p > 0 {
			d = min(d, p/4)
		}
	}
	return max(d, time.Millisecond)
}

func (c *LogClock) periods() [printKinds]time.Duration {
	return [printKinds]time.Duration{c.s.PrintMinute, c.s.PrintHour, c.s.PrintDay, c.s.PrintMoment}
}

// Next is the earliest due time.
func (c *LogClock) Next() time.Time { return slices.MinFunc(c.due[:], time.Time.Compare) }

// Print writes the lines due at now to lg and re-arms them at a fixed rate
// (a late run does not shift the later ones, as scheduleAtFixedRate).
func (c *LogClock) Print(m *Manager, lg *zap.Logger, now time.Time) {
	periods := c.periods()
	for k := range printKinds {
		if now.Before(c.due[k]) || periods[k] <= 0 {
			continue
		}
		for !now.Before(c.due[k]) {
			c.due[k] = c.due[k].Add(periods[k])
		}
		switch k {
		case printMinute:
			m.PrintAtMinutes(lg)
		case printHour:
			m.PrintAtHour(lg)
		case printDay:
			m.PrintAtDay(lg)
		case printMoment:
			m.PrintMoments(lg)
		}
	}
}

func nextMinute(now time.Time) time.Time { return now.Truncate(time.Minute).Add(time.Minute) }

// nextHour is the next local hour boundary (computeNextHourTimeMillis).
func nextHour(now time.Time) time.Time {
	y, mo, d := now.Date()
	return time.Date(y, mo, d, now.Hour()+1, 0, 0, 0, now.Location())
}

// PrintAtMinutes writes every item's "Stats In One Minute" line.
func (m *Manager) PrintAtMinutes(lg *zap.Logger) { m.printItems(lg, "Minute", (*Item).Minute) }

// PrintAtHour writes every item's "Stats In One Hour" line.
func (m *Manager) PrintAtHour(lg *zap.Logger) { m.printItems(lg, "Hour", (*Item).Hour) }

// PrintAtDay writes every item's "Stats In One Day" line.
func (m *Manager) PrintAtDay(lg *zap.Logger) { m.printItems(lg, "Day", (*Item).Day) }

// printItems writes one line per item of every non-commercial set, sets by
// name and items by key so that consecutive blocks line up.
func (m *Manager) printItems(lg *zap.Logger, window string, figure func(*Item) Snapshot) {
	for _, name := range m.sortedSetNames() {
		s := m.table[name]
		rt := name == GroupGetLatency
		for _, key := range sortedKeys(&s.items) {
			it := s.Lookup(key)
			if it == nil {
				continue
			}
			lg.Info(ItemLine(name, key, window, figure(it), rt))
		}
	}
}

// PrintMoments writes every moment item's "Stats Every 5 Minutes" line.
// Java never resets the values (MomentStatsItem.init is not called).
func (m *Manager) PrintMoments(lg *zap.Logger) {
	for _, s := range []*MomentSet{m.fallSize, m.fallTime} {
		for _, k := range sortedKeys(&s.items) {
			if v, ok := s.Get(k); ok {
				lg.Info(MomentLine(s.name, k, v))
			}
		}
	}
}

func (m *Manager) sortedSetNames() []string {
	names := make([]string, 0, len(m.table))
	for n := range m.table {
		if !strings.HasPrefix(n, "COMMERCIAL_") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// sortedKeys lists the stats keys of a Set's or MomentSet's items in order.
func sortedKeys(items *sync.Map) []string {
	var keys []string
	items.Range(func(k, _ any) bool {
		keys = append(keys, k.(string))
		return true
	})
	slices.Sort(keys)
	return keys
}

// ItemLine is StatsItem's line for one window ("Minute", "Hour" or
// "Day"); rt selects RTStatsItem's TIMES/AVGRT detail.
func ItemLine(name, key, window string, s Snapshot, rt bool) string {
	head := fmt.Sprintf("[%s] [%s] Stats In One %s, ", name, key, window)
	if rt {
		return head + "TIMES: " + strconv.FormatInt(s.Times, 10) + " AVGRT: " + JavaFixed2(s.Avgpt)
	}
	return head + "SUM: " + strconv.FormatInt(s.Sum, 10) + " TPS: " + JavaFixed2(s.Tps) + " AVGPT: " + JavaFixed2(s.Avgpt)
}

// MomentLine is MomentStatsItem's line.
func MomentLine(name, key string, v int64) string {
	return fmt.Sprintf("[%s] [%s] Stats Every 5 Minutes, Value: %d", name, key, v)
}

// JavaFixed2 formats v as Java's String.format("%.2f", v): the shortest
// decimal form of v rounded half up to two places, "NaN" and "Infinity"
// spelled as Java spells them.
func JavaFixed2(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	digits := strconv.FormatFloat(math.Abs(v), 'f', -1, 64) // shortest form, no exponent
	intPart, frac, _ := strings.Cut(digits, ".")
	frac += "000"
	// Keep integer and two decimals as one digit string, then round half up
	// on the third decimal.
	cents := []byte(intPart + frac[:2])
	if frac[2] >= '5' {
		i := len(cents) - 1
		for ; i >= 0 && cents[i] == '9'; i-- {
			cents[i] = '0'
		}
		if i < 0 {
			cents = append([]byte{'1'}, cents...)
		} else {
			cents[i]++
		}
	}
	out := string(cents[:len(cents)-2]) + "." + string(cents[len(cents)-2:])
	if math.Signbit(v) {
		out = "-" + out
	}
	return out
}
