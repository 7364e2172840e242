package store

// Store statistics and runtime info (Java StoreStatsService and
// DefaultMessageStore.getRuntimeInfo).

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
)

// maxSamples is MAX_RECORDS_OF_SAMPLING (10 minutes of 1 s samples).
const maxSamples = 600

var putTimeDesc = [...]string{"[<=0ms]", "[0~10ms]", "[10~50ms]", "[50~100ms]", "[100~200ms]", "[200~500ms]",
	"[500ms~1s]", "[1~2s]", "[2~3s]", "[3~4s]", "[4~5s]", "[5~10s]", "[10s~]"}

// putTimeBounds are the upper limits (exclusive, ms) of putTimeDesc[1:].
var putTimeBounds = [...]int64{10, 50, 100, 200, 500, 1000, 2000, 3000, 4000, 5000, 10000}

// latencyBuckets are the upper bounds (inclusive, ms) of the put latency
// histogram (PUT_MESSAGE_ENTIRE_TIME_BUCKETS: steps of 1 up to 20, 2 up to
// 50, 5 up to 100, 10 up to 200, 50 up to 500, 100 up to 1000, 1000 up to
// 10000, then Long.MAX_VALUE).
var latencyBuckets = func() []int64 {
	var out []int64
	idx := int64(0)
	for _, st := range [][2]int64{{1, 20}, {2, 15}, {5, 10}, {10, 10}, {50, 6}, {100, 5}, {1000, 9}} {
		for i := int64(0); i < st[1]; i++ {
			idx += st[0]
			out = append(out, idx)
		}
	}
	return append(out, math.MaxInt64)
}()

// putGeneration is one minute of put latency counters (Java rotates them
// every printTPSInterval, 60 s, and reports the previous minute).
type putGeneration struct {
	dist    [len(putTimeDesc)]atomic.Int64
	buckets []atomic.Int64 // parallel to latencyBuckets
}

func newPutGeneration() *putGeneration {
	return &putGeneration{buckets: make([]atomic.Int64, len(latencyBuckets))}
}

// add counts one put of ms milliseconds.
func (g *putGeneration) add(ms int64) {
	i := 0
	if ms > 0 {
		i = 1
		for i-1 < len(putTimeBounds) && ms >= putTimeBounds[i-1] {
			i++
		}
	}
	g.dist[i].Add(1)
	b, _ := slices.BinarySearch(latencyBuckets, ms)
	g.buckets[b].Add(1)
}

// percentile is findPutMessageEntireTimePX over the generation.
func (g *putGeneration) percentile(px float64) float64 {
	total := int64(0)
	for i := range g.buckets {
		total += g.buckets[i].Load()
	}
	pxIndex := int64(float64(total) * px)
	pass := int64(0)
	for i := range g.buckets {
		count := g.buckets[i].Load()
		if pxIndex > pass+count {
			pass += count
			continue
		}
		rel, prev := float64(pxIndex-pass), int64(0)
		if i > 0 {
			prev = latencyBuckets[i-1]
		}
		if count == 0 {
			return float64(prev)
		}
		return float64(prev) + float64(latencyBuckets[i]-prev)*rel/float64(count)
	}
	return 0
}

type snapshot struct {
	ms                                int64
	put, getFound, getMiss, transfers int64
}

type storeStats struct {
	boot time.Time

	putTimes, putSize, putFailed   atomic.Int64
	getFound, getMiss              atomic.Int64
	getTransferred                 atomic.Int64
	putMaxMs, getMaxMs             atomic.Int64
	dispatchMaxBuffer, lastCQFlush atomic.Int64

	curPut    atomic.Pointer[putGeneration] // counting now
	lastPut   atomic.Pointer[putGeneration] // previous minute (nil at first)
	lastPrint time.Time                     // last rotation (mu)

	mu      sync.Mutex // guards samples
	samples []snapshot
}

func newStoreStats(now time.Time) *storeStats {
	st := &storeStats{boot: now, lastPrint: now}
	st.curPut.Store(newPutGeneration())
	return st
}

// putDone records one finished put (Java asyncPutMessage thenAccept and the
// CommitLog's per-topic counters).
func (st *storeStats) putDone(topic string, r commitlog.PutMessageResult, elapsed time.Duration) {
	ms := elapsed.Milliseconds()
	for {
		old := st.putMaxMs.Load()
		if ms <= old || st.putMaxMs.CompareAndSwap(old, ms) {
			break
		}
	}
	st.curPut.Load().add(ms)
	if r.Status != commitlog.PutOK {
		st.putFailed.Add(1)
	}
	if r.Append.WroteBytes > 0 {
		// A batch counts each of its messages (Java adds getMsgNum()).
		st.putTimes.Add(int64(max(r.Append.MsgNum, 1)))
		st.putSize.Add(int64(r.Append.WroteBytes))
	}
}

// getDone records the duration of one GetMessage (getMessageEntireTimeMax).
func (st *storeStats) getDone(elapsed time.Duration) {
	ms := elapsed.Milliseconds()
	for {
		old := st.getMaxMs.Load()
		if ms <= old || st.getMaxMs.CompareAndSwap(old, ms) {
			return
		}
	}
}

// addPut counts a stored message (also used by the slave's dispatcher).
func (st *storeStats) addPut(_ string, size int64) {
	st.putTimes.Add(1)
	st.putSize.Add(size)
}

// sample takes the 1 s snapshot used by the TPS figures. Once a minute it
// also starts a new put-latency generation and returns StoreStatsService's
// printTps lines about the minute that ended, for the caller to log
// (outside any lock).
func (st *storeStats) sample(now time.Time) []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.samples = append(st.samples, snapshot{ms: now.UnixMilli(), put: st.putTimes.Load(),
		getFound: st.getFound.Load(), getMiss: st.getMiss.Load(), transfers: st.getTransferred.Load()})
	if len(st.samples) > maxSamples+1 {
		st.samples = st.samples[1:]
	}
	if now.Sub(st.lastPrint) <= time.Minute {
		return nil
	}
	st.lastPrint = now
	tps := func(field func(snapshot) int64) string {
		if v, ok := st.tps(printTPSInterval, field); ok {
			return javaDouble(v)
		}
		return ""
	}
	lines := []string{fmt.Sprintf("[STORETPS] put_tps %s get_found_tps %s get_miss_tps %s get_transfered_tps %s",
		tps(func(x snapshot) int64 { return x.put }), tps(func(x snapshot) int64 { return x.getFound }),
		tps(func(x snapshot) int64 { return x.getMiss }), tps(func(x snapshot) int64 { return x.transfers }))}
	ended := st.curPut.Swap(newPutGeneration())
	st.lastPut.Store(ended)
	for _, px := range []float64{0.99, 0.999} {
		lines = append(lines, fmt.Sprintf("findPutMessageEntireTimePX %s=%.2fms cost 0ms", javaDouble(px), ended.percentile(px)))
	}
	var dist strings.Builder
	total := int64(0)
	for i, d := range putTimeDesc {
		n := ended.dist[i].Load()
		total += n
		fmt.Fprintf(&dist, "%s:%d ", d, n)
	}
	return append(lines, fmt.Sprintf("[PAGECACHERT] TotalPut %d, PutMessageDistributeTime %s", total, dist.String()))
}

// printTPSInterval is StoreStatsService.printTPSInterval: the [STORETPS]
// rates are over the last 60 samples.
const printTPSInterval = 60

// tps is the rate of field over the last n samples ("" when fewer).
func (st *storeStats) tps(n int, field func(snapshot) int64) (float64, bool) {
	if len(st.samples) <= n {
		return 0, false
	}
	last, before := st.samples[len(st.samples)-1], st.samples[len(st.samples)-1-n]
	if last.ms == before.ms {
		return 0, true
	}
	return float64(field(last)-field(before)) / float64(last.ms-before.ms) * 1000, true
}

// tpsString is Java's "tps10 tps60 tps600" with empty parts when short.
func (st *storeStats) tpsString(field func(snapshot) int64) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	parts := make([]string, 3)
	for i, n := range []int{10, 60, 600} {
		if v, ok := st.tps(n, field); ok {
			parts[i] = javaDouble(v)
		}
	}
	return strings.Join(parts, " ")
}

// javaDouble formats v like Java's Double.toString for ordinary values.
func javaDouble(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e7 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	if a := math.Abs(v); a >= 1e-3 && a < 1e7 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	s := strconv.FormatFloat(v, 'E', -1, 64)
	return strings.Replace(strings.Replace(s, "E+", "E", 1), "E0", "E", 1)
}

func (st *storeStats) runtime(now time.Time) string {
	d := now.Sub(st.boot).Milliseconds()
	const sec, minute, hour, day = 1000, 60000, 3600000, 86400000
	return fmt.Sprintf("[ %d days, %d hours, %d minutes, %d seconds ]", d/day, d%day/hour, d%hour/minute, d%minute/sec)
}

// distString is putMessageDistributeTime: the previous minute's counts,
// "null" during the first minute as in Java.
func (st *storeStats) distString() string {
	g := st.lastPut.Load()
	if g == nil {
		return "null"
	}
	var b strings.Builder
	for i, d := range putTimeDesc {
		fmt.Fprintf(&b, "%s:%d ", d, g.dist[i].Load())
	}
	return b.String()
}

// latency is putLatency99 / putLatency999 over the previous minute.
func (st *storeStats) latency(px float64) string {
	v := 0.0
	if g := st.lastPut.Load(); g != nil {
		v = g.percentile(px)
	}
	return fmt.Sprintf("%.2f", v)
}

// RuntimeInfo is the store part of GET_BROKER_RUNTIME_INFO (Java
// StoreStatsService.getRuntimeInfo + DefaultMessageStore.getRuntimeInfo),
// plus dispatchBehindBytes.
func (s *DefaultMessageStore) RuntimeInfo() map[string]string {
	st := s.stats
	now := s.opts.now()
	total := max(st.putTimes.Load(), 1)
	m := map[string]string{
		"bootTimestamp":            strconv.FormatInt(st.boot.UnixMilli(), 10),
		"runtime":                  st.runtime(now),
		"putMessageEntireTimeMax":  strconv.FormatInt(st.putMaxMs.Load(), 10),
		"putMessageTimesTotal":     strconv.FormatInt(total, 10),
		"putMessageFailedTimes":    strconv.FormatInt(st.putFailed.Load(), 10),
		"putMessageSizeTotal":      strconv.FormatInt(st.putSize.Load(), 10),
		"putMessageDistributeTime": st.distString(),
		"putMessageAverageSize":    javaDouble(float64(st.putSize.Load()) / float64(total)),
		"dispatchMaxBuffer":        strconv.FormatInt(st.dispatchMaxBuffer.Load(), 10),
		"getMessageEntireTimeMax":  strconv.FormatInt(st.getMaxMs.Load(), 10),
		"putTps":                   st.tpsString(func(x snapshot) int64 { return x.put }),
		"getFoundTps":              st.tpsString(func(x snapshot) int64 { return x.getFound }),
		"getMissTps":               st.tpsString(func(x snapshot) int64 { return x.getMiss }),
		"getTotalTps":              st.tpsString(func(x snapshot) int64 { return x.getFound + x.getMiss }),
		"getTransferedTps":         st.tpsString(func(x snapshot) int64 { return x.transfers }),
		"putLatency99":             st.latency(0.99),
		"putLatency999":            st.latency(0.999),
		"commitLogMinOffset":       strconv.FormatInt(s.MinPhyOffset(), 10),
		"commitLogMaxOffset":       strconv.FormatInt(s.MaxPhyOffset(), 10),
		"dispatchBehindBytes":      strconv.FormatInt(s.DispatchBehindBytes(), 10),
		"dispatchError":            s.DispatchError(),
	}
	clPath := s.cfg.CommitLogDir()
	clRatio := javaDouble(s.opts.diskUsage(clPath))
	m["commitLogDiskRatio_"+clPath] = clRatio
	m["commitLogDiskRatio"] = clRatio
	m["consumeQueueDiskRatio"] = javaDouble(s.opts.diskUsage(s.cfg.ConsumeQueueDir()))
	return m
}

// StatsTotals returns the messages stored and the messages handed out by
// GetMessage since start (getPutMessageTimesTotal and
// getGetMessageTransferedMsgCount: BrokerStats' msgPutTotal*/msgGetTotal*).
func (s *DefaultMessageStore) StatsTotals() (putTimes, getTransferred int64) {
	return s.stats.putTimes.Load(), s.stats.getTransferred.Load()
}
