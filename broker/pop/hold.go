package pop

// Hold is the POP long-polling table (PopLongPollingService): empty pops
// wait here, keyed by topic, until a message arrives in the topic (or in the
// group's pop retry topic), or until their poll time ends. Waking runs the
// request's Wakeup exactly once, with no lock held; the caller re-runs the
// pop on its pool, never on the notifier's goroutine.

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// PollResult is PollingResult.
type PollResult int

// PollingResult values.
const (
	PollingSuc PollResult = iota
	PollingFull
	PollingTimeout
	NotPolling
)

// Waiter is one held pop.
type Waiter struct {
	Topic   string
	Group   string
	QueueID int32 // -1: any queue
	// Expire is bornTime + pollTime (ms, wall clock).
	Expire int64
	// Wakeup re-runs the pop; called at most once.
	Wakeup func()

	done  atomic.Bool
	timer *time.Timer // guarded by Hold.mu
}

func (w *Waiter) fire() bool {
	return w.done.CompareAndSwap(false, true)
}

// waiterSet is a set of held pops.
type waiterSet map[*Waiter]struct{}

// Hold holds waiting pops, indexed so that an arrival looks only at the
// pops it may serve: by topic, by the pop retry topics (V1 and V2) of
// their topic and group, and counted per topic@group@queue.
type Hold struct {
	perKey int   // popPollingSize
	total  int64 // maxPopPollingSize

	mu      sync.Mutex
	byTopic map[string]waiterSet // guarded by mu
	byRetry map[string]waiterSet // retry topic → its group's pops of the original topic; guarded by mu
	counts  map[string]int       // topic@group@queueId → held pops; guarded by mu
	// held is the number of held pops, written under mu and read without
	// it by Arriving, which returns at once while no pop is held. A Poll
	// that returned before an Arriving began is counted by then.
	held    atomic.Int64
	stopped bool // guarded by mu
}

// NewHold returns a hold with the given limits.
func NewHold(perKey int, total int64) *Hold {
	h := &Hold{perKey: perKey, total: total}
	h.reset()
	return h
}

func (h *Hold) reset() {
	h.byTopic = make(map[string]waiterSet)
	h.byRetry = make(map[string]waiterSet)
	h.counts = make(map[string]int)
	h.held.Store(0)
}

func countKey(topic, group string, queueID int32) string {
	return topic + "@" + group + "@" + strconv.Itoa(int(queueID))
}

// retryKeys are the retry topics whose arrivals wake w.
func (w *Waiter) retryKeys() [2]string {
	return [2]string{RetryTopicV1(w.Topic, w.Group), RetryTopicV2(w.Topic, w.Group)}
}

func addTo(m map[string]waiterSet, k string, w *Waiter) {
	s := m[k]
	if s == nil {
		s = make(waiterSet)
		m[k] = s
	}
	s[w] = struct{}{}
}

func removeFrom(m map[string]waiterSet, k string, w *Waiter) {
	if s := m[k]; s != nil {
		delete(s, w)
		if len(s) == 0 {
			delete(m, k)
		}
	}
}

// Len is the number of held pops.
func (h *Hold) Len() int {
	return int(h.held.Load())
}

// Poll parks w unless the table is full or w already expired at now (ms).
func (h *Hold) Poll(w *Waiter, now int64) PollResult {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return NotPolling
	}
	if h.held.Load() >= h.total {
		return PollingFull
	}
	if w.Expire <= now {
		return PollingTimeout
	}
	ck := countKey(w.Topic, w.Group, w.QueueID)
	if h.counts[ck] > h.perKey {
		return PollingFull
	}
	addTo(h.byTopic, w.Topic, w)
	for _, k := range w.retryKeys() {
		addTo(h.byRetry, k, w)
	}
	h.counts[ck]++
	h.held.Add(1)
	w.timer = time.AfterFunc(time.Duration(w.Expire-now)*time.Millisecond, func() { h.wake(w) })
	return PollingSuc
}

// wake removes w and runs its Wakeup if nobody did yet.
func (h *Hold) wake(w *Waiter) {
	if !w.fire() {
		return
	}
	h.remove(w)
	w.Wakeup()
}

func (h *Hold) remove(w *Waiter) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
	if _, ok := h.byTopic[w.Topic][w]; !ok {
		return // Stop dropped it
	}
	removeFrom(h.byTopic, w.Topic, w)
	for _, k := range w.retryKeys() {
		removeFrom(h.byRetry, k, w)
	}
	ck := countKey(w.Topic, w.Group, w.QueueID)
	if h.counts[ck]--; h.counts[ck] <= 0 {
		delete(h.counts, ck)
	}
	h.held.Add(-1)
}

// Arriving wakes the pops a new message in topic/queueID may serve: pops of
// the topic (any queue or that queue) and, for a pop retry topic
// %RETRY%<group>_<topic>, that group's pops of the original topic.
// It returns how many were woken.
func (h *Hold) Arriving(topic string, queueID int32) int {
	if h.held.Load() == 0 {
		return 0 // nothing held: no lock, no lookup per dispatched message
	}
	if strings.HasPrefix(topic, RetryGroupTopicPrefix) {
		return h.wakeMatching(h.byRetry, topic, func(*Waiter) bool { return true })
	}
	return h.wakeMatching(h.byTopic, topic, func(w *Waiter) bool { return w.QueueID < 0 || w.QueueID == queueID })
}

// WakeGroup wakes the group's pops of topic (an orderly ack unblocked a
// queue): they are the pops indexed under the group's retry topic.
func (h *Hold) WakeGroup(topic, group string) int {
	return h.wakeMatching(h.byRetry, RetryTopicV1(topic, group), func(w *Waiter) bool {
		return w.Topic == topic && w.Group == group
	})
}

func (h *Hold) wakeMatching(index map[string]waiterSet, key string, match func(*Waiter) bool) int {
	h.mu.Lock()
	var hit []*Waiter
	for w := range index[key] {
		if match(w) {
			hit = append(hit, w)
		}
	}
	h.mu.Unlock()
	n := 0
	for _, w := range hit {
		if w.fire() {
			h.remove(w)
			w.Wakeup()
			n++
		}
	}
	return n
}

// Stop drops every held pop unanswered (the connection's close tells the
// client) and refuses new ones.
func (h *Hold) Stop() int {
	h.mu.Lock()
	var all []*Waiter
	for _, s := range h.byTopic {
		for w := range s {
			all = append(all, w)
		}
	}
	h.reset()
	h.stopped = true
	h.mu.Unlock()
	for _, w := range all {
		w.fire()
		if w.timer != nil {
			w.timer.Stop()
		}
	}
	return len(all)
}

// Count is the number of pops held for topic, group and queueID (-1: the
// all-queue pops), as POLLING_INFO reports them.
func (h *Hold) Count(topic, group string, queueID int32) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.counts[countKey(topic, group, queueID)]
}
