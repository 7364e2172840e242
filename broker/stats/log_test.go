package stats

import (
	"math"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestStatsJavaFixed2(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0.00"}, {1, "1.00"}, {0.125, "0.13"}, {2.675, "2.68"}, {0.005, "0.01"}, {0.004999, "0.00"},
		{1234.5, "1234.50"}, {-0.125, "-0.13"}, {5.0 / 60, "0.08"}, {math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {1e20, "100000000000000000000.00"}, {9.995, "10.00"}, {99.999, "100.00"}, {0.994, "0.99"},
	} {
		if got := JavaFixed2(c.v); got != c.want {
			t.Errorf("JavaFixed2(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func observed() (*zap.Logger, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.InfoLevel)
	return zap.New(core), logs
}

func messages(logs *observer.ObservedLogs) []string {
	var out []string
	for _, e := range logs.TakeAll() {
		out = append(out, e.Message)
	}
	return out
}

// TestStatsPrintLines: the minute/hour/day lines of StatsItem (SUM/TPS/AVGPT),
// RTStatsItem (TIMES/AVGRT for GROUP_GET_LATENCY) and MomentStatsItem.
func TestStatsPrintLines(t *testing.T) {
	m := New("DefaultCluster", false)
	t0 := time.UnixMilli(1_700_000_000_000)
	m.IncTopicPut("T", 0, 5, 500)
	m.IncGroupGetLatency("g", "T", 0, 3)
	m.RecordFallBehind("g", "T", 0, 1024, 9)
	m.SampleSeconds(t0)
	m.SampleMinutes(t0)
	lg, logs := observed()
	m.PrintAtMinutes(lg)
	got := strings.Join(messages(logs), "\n")
	for _, want := range []string{
		"[TOPIC_PUT_NUMS] [T] Stats In One Minute, SUM: 5 TPS: 0.50 AVGPT: 5.00",
		"[TOPIC_PUT_SIZE] [T] Stats In One Minute, SUM: 500 TPS: 50.00 AVGPT: 500.00",
		"[GROUP_GET_LATENCY] [T@g] Stats In One Minute, TIMES: 1 AVGRT: 3.00",
		"[BROKER_PUT_NUMS] [DefaultCluster] Stats In One Minute, SUM: 0 TPS: 0.00 AVGPT: 0.00",
	} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) {
			t.Errorf("minute lines lack %q:\n%s", want, got)
		}
	}
	m.PrintAtHour(lg)
	if got := strings.Join(messages(logs), "\n"); !strings.Contains(got, "[TOPIC_PUT_NUMS] [T] Stats In One Hour, SUM: 5 TPS: 0.01 AVGPT: 5.00") {
		t.Errorf("hour lines:\n%s", got)
	}
	// Never sampled: an empty series prints zeros (Java's empty StatsSnapshot).
	m.PrintAtDay(lg)
	if got := strings.Join(messages(logs), "\n"); !strings.Contains(got, "[TOPIC_PUT_NUMS] [T] Stats In One Day, SUM: 0 TPS: 0.00 AVGPT: 0.00") {
		t.Errorf("day lines:\n%s", got)
	}
	m.PrintMoments(lg)
	got = strings.Join(messages(logs), "\n")
	want := "[GROUP_GET_FALL_SIZE] [0@T@g] Stats Every 5 Minutes, Value: 1024\n[GROUP_GET_FALL_TIME] [0@T@g] Stats Every 5 Minutes, Value: 9"
	if got != want {
		t.Errorf("moment lines:\n%s\nwant\n%s", got, want)
	}
}

// TestStatsLogClockJavaAlignment: minute and moment lines start at the next
// minute, hour lines at the next hour, day lines at the next midnight, then
// repeat at a fixed rate.
func TestStatsLogClockJavaAlignment(t *testing.T) {
	loc := time.FixedZone("X", 8*3600)
	now := time.Date(2026, 3, 4, 10, 20, 30, 0, loc)
	c := NewLogClock(JavaSchedule(), now)
	wantDue := [printKinds]time.Time{
		time.Date(2026, 3, 4, 10, 21, 0, 0, loc), time.Date(2026, 3, 4, 11, 0, 0, 0, loc),
		time.Date(2026, 3, 5, 0, 0, 0, 0, loc), time.Date(2026, 3, 4, 10, 21, 0, 0, loc),
	}
	if c.due != wantDue {
		t.Fatalf("due %v, want %v", c.due, wantDue)
	}
	if n := c.Next(); !n.Equal(wantDue[printMinute]) {
		t.Fatalf("next %v", n)
	}
	m := New("c", false)
	m.IncTopicPut("T", 0, 1, 1)
	m.RecordFallBehind("g", "T", 0, 1, 1)
	lg, logs := observed()
	c.Print(m, lg, now) // nothing due yet
	if got := messages(logs); len(got) != 0 {
		t.Fatalf("printed early: %q", got)
	}
	c.Print(m, lg, wantDue[printMinute].Add(300*time.Millisecond))
	got := messages(logs)
	if len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), "Stats In One Minute") || !strings.Contains(strings.Join(got, "\n"), "Every 5 Minutes") {
		t.Fatalf("at the minute: %q", got)
	}
	if c.due[printMinute] != wantDue[printMinute].Add(time.Minute) || c.due[printMoment] != wantDue[printMoment].Add(5*time.Minute) {
		t.Fatalf("re-armed %v", c.due)
	}
	for _, l := range got {
		if strings.Contains(l, "Hour") || strings.Contains(l, "Day") {
			t.Fatalf("hour/day line at the minute: %q", l)
		}
	}
}

// TestStatsLogClockZeroPeriods: a kind of line without a period is never
// due (and printing does not spin on it).
func TestStatsLogClockZeroPeriods(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := NewLogClock(Schedule{PrintMinute: time.Second}, now)
	if !c.Next().Equal(now.Add(time.Second)) {
		t.Fatalf("next %v", c.Next())
	}
	m := New("c", false)
	m.IncTopicPut("T", 0, 1, 1)
	lg, logs := observed()
	c.Print(m, lg, now.Add(10*time.Second))
	for _, l := range messages(logs) {
		if !strings.Contains(l, "In One Minute") {
			t.Fatalf("unexpected line %q", l)
		}
	}
	if got := (Schedule{}).CheckEvery(); got != time.Second {
		t.Fatalf("CheckEvery of nothing %v", got)
	}
	if got := (Schedule{PrintMinute: 100 * time.Millisecond, PrintMoment: time.Hour}).CheckEvery(); got != 25*time.Millisecond {
		t.Fatalf("CheckEvery %v", got)
	}
}
