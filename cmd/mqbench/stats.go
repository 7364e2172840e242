package main

import (
	"fmt"
	"io"
	"math/bits"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// histogram is a lock-free latency histogram in microseconds: exact below
// 64 µs, then 64 buckets per power of two (≤ 1.6 % error).
type histogram struct {
	counts [64 * 42]atomic.Int64
}

func bucketOf(us int64) int {
	if us < 64 {
		return int(max(us, 0))
	}
	shift := bits.Len64(uint64(us)) - 7
	return (shift+1)*64 + int(us>>shift) - 64
}

func bucketValue(i int) int64 {
	if i < 64 {
		return int64(i)
	}
	shift := i/64 - 1
	return int64(i%64+64) << shift
}

func (h *histogram) add(us int64) { h.counts[min(bucketOf(us), len(h.counts)-1)].Add(1) }

// quantile returns the q-quantile (0 < q ≤ 1) in microseconds.
func (h *histogram) quantile(q float64) int64 {
	var total int64
	for i := range h.counts {
		total += h.counts[i].Load()
	}
	if total == 0 {
		return 0
	}
	rank := int64(float64(total)*q + 0.5)
	var seen int64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= max(rank, 1) {
			return bucketValue(i)
		}
	}
	return bucketValue(len(h.counts) - 1)
}

func (h *histogram) reset() {
	for i := range h.counts {
		h.counts[i].Store(0)
	}
}

// window accumulates one reporting interval or a whole run.
type window struct {
	ok, failed atomic.Int64
	sumUS      atomic.Int64
	maxUS      atomic.Int64
	hist       histogram
}

func (w *window) record(ok int64, rt time.Duration) {
	us := rt.Microseconds()
	w.ok.Add(ok)
	w.sumUS.Add(us * ok)
	for {
		m := w.maxUS.Load()
		if us <= m || w.maxUS.CompareAndSwap(m, us) {
			break
		}
	}
	for range ok {
		w.hist.add(us)
	}
}

func (w *window) reset() {
	w.ok.Store(0)
	w.failed.Store(0)
	w.sumUS.Store(0)
	w.maxUS.Store(0)
	w.hist.reset()
}

// snapshot is what one report line prints.
type snapshot struct {
	n, failed      int64
	avg, p99, maxi time.Duration
}

func (w *window) snapshot() snapshot {
	s := snapshot{n: w.ok.Load(), failed: w.failed.Load(), maxi: time.Duration(w.maxUS.Load()) * time.Microsecond}
	if s.n > 0 {
		s.avg = time.Duration(w.sumUS.Load()/s.n) * time.Microsecond
	}
	s.p99 = time.Duration(w.hist.quantile(0.99)) * time.Microsecond
	return s
}

var digits = regexp.MustCompile(`[0-9]+`)

// meter is one side (send or consume) of a run: an interval window reset at
// every report and a total window.
type meter struct {
	errMu       sync.Mutex
	errs        map[string]int64 // failure text (digits as N, first 120 bytes) → count
	name        string
	interval    window
	total       window
	start, last time.Time
}

func newMeter(name string) *meter {
	now := time.Now()
	return &meter{name: name, start: now, last: now}
}

// record counts n messages with one latency (a batch counts n times).
func (m *meter) record(n int64, rt time.Duration) {
	m.interval.record(n, rt)
	m.total.record(n, rt)
}

func (m *meter) fail(n int64, err error) {
	m.interval.failed.Add(n)
	m.total.failed.Add(n)
	msg := "unknown"
	if err != nil {
		msg = err.Error()
	}
	msg = digits.ReplaceAllString(msg, "N") // group "period in queue: 285ms" alike
	if len(msg) > 120 {
		msg = msg[:120]
	}
	m.errMu.Lock()
	if m.errs == nil {
		m.errs = map[string]int64{}
	}
	if _, ok := m.errs[msg]; ok || len(m.errs) < 20 {
		m.errs[msg] += n
	}
	m.errMu.Unlock()
}

// report prints and resets the interval window.
func (m *meter) report(w io.Writer, rss string) {
	now := time.Now()
	s := m.interval.snapshot()
	m.interval.reset()
	el := now.Sub(m.last)
	m.last = now
	fmt.Fprintf(w, "%s %s TPS: %.0f Avg RT(ms): %.3f P99 RT(ms): %.3f Max RT(ms): %.3f Failed: %d RSS: %s\n",
		now.Format("15:04:05"), m.name, float64(s.n)/el.Seconds(), ms(s.avg), ms(s.p99), ms(s.maxi), s.failed, rss)
}

// summary prints the totals of the run.
func (m *meter) summary(w io.Writer, rss string) {
	s := m.total.snapshot()
	el := m.last.Sub(m.start)
	fmt.Fprintf(w, "[Complete] %s Total: %d in %.1fs TPS: %.0f Avg RT(ms): %.3f P99 RT(ms): %.3f Max RT(ms): %.3f Failed: %d RSS: %s\n",
		m.name, s.n, el.Seconds(), float64(s.n)/el.Seconds(), ms(s.avg), ms(s.p99), ms(s.maxi), s.failed, rss)
	m.errMu.Lock()
	defer m.errMu.Unlock()
	for msg, n := range m.errs {
		fmt.Fprintf(w, "  failed %d× %s\n", n, strings.ReplaceAll(msg, "\n", " "))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// vmRSS reads VmRSS (and RssAnon/RssFile) of a process from /proc.
func vmRSS(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "n/a"
	}
	var rss, anon, file string
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "VmRSS":
			rss = v
		case "RssAnon":
			anon = v
		case "RssFile":
			file = v
		}
	}
	return fmt.Sprintf("%s (anon %s, file %s)", rss, anon, file)
}
