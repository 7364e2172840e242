package pop

// Hold is the POP long-polling table (PopLongPollingService): empty pops
// wait here, keyed by topic, until a message arrives in the topic (or in the
// group's pop retry topic), or until their poll time ends. Waking runs the
// request's Wakeup exactly once, with no lock held; the caller re-runs the
// pop on its pool, never on the notifier's goroutine.

import (
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

// Hold holds waiting pops.
type Hold struct {
	perKey int   // popPollingSize
	total  int64 // maxPopPollingSize

	mu      sync.Mutex
	byTopic map[string][]*Waiter // guarded by mu
	n       int64                // guarded by mu
	stopped bool                 // guarded by mu
}

// NewHold returns a hold with the given limits.
func NewHold(perKey int, total int64) *Hold {
	return &Hold{perKey: perKey, total: total, byTopic: make(map[string][]*Waiter)}
}

// Len is the number of held pops.
func (h *Hold) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return int(h.n)
}

// Poll parks w unless the table is full or w already expired at now (ms).
func (h *Hold) Poll(w *Waiter, now int64) PollResult {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return NotPolling
	}
	if h.n >= h.total {
		return PollingFull
	}
	if w.Expire <= now {
		return PollingTimeout
	}
	same := 0
	for _, o := range h.byTopic[w.Topic] {
		if o.Group == w.Group && o.QueueID == w.QueueID {
			same++
		}
	}
	if same > h.perKey {
		return PollingFull
	}
	h.byTopic[w.Topic] = append(h.byTopic[w.Topic], w)
	h.n++
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
	l := h.byTopic[w.Topic]
	for i, o := range l {
		if o == w {
			l = append(l[:i:i], l[i+1:]...)
			h.n--
			break
		}
	}
	if len(l) == 0 {
		delete(h.byTopic, w.Topic)
	} else {
		h.byTopic[w.Topic] = l
	}
}

// Arriving wakes the pops a new message in topic/queueID may serve: pops of
// the topic (any queue or that queue) and, for a pop retry topic
// %RETRY%<group>_<topic>, that group's pops of the original topic.
// It returns how many were woken.
func (h *Hold) Arriving(topic string, queueID int32) int {
	if strings.HasPrefix(topic, RetryGroupTopicPrefix) {
		return h.arrivingRetry(topic)
	}
	return h.wakeMatching(topic, func(w *Waiter) bool { return w.QueueID < 0 || w.QueueID == queueID })
}

func (h *Hold) arrivingRetry(retryTopic string) int {
	h.mu.Lock()
	var topics []string
	for t, l := range h.byTopic {
		for _, w := range l {
			if retryTopic == RetryTopicV1(t, w.Group) || retryTopic == RetryTopicV2(t, w.Group) {
				topics = append(topics, t)
				break
			}
		}
	}
	h.mu.Unlock()
	n := 0
	for _, t := range topics {
		n += h.wakeMatching(t, func(w *Waiter) bool {
			return retryTopic == RetryTopicV1(t, w.Group) || retryTopic == RetryTopicV2(t, w.Group)
		})
	}
	return n
}

// WakeGroup wakes the group's pops of topic (an orderly ack unblocked a
// queue).
func (h *Hold) WakeGroup(topic, group string) int {
	return h.wakeMatching(topic, func(w *Waiter) bool { return w.Group == group })
}

func (h *Hold) wakeMatching(topic string, match func(*Waiter) bool) int {
	h.mu.Lock()
	var hit []*Waiter
	for _, w := range h.byTopic[topic] {
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
	for _, l := range h.byTopic {
		all = append(all, l...)
	}
	h.byTopic = make(map[string][]*Waiter)
	h.n = 0
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
	n := 0
	for _, w := range h.byTopic[topic] {
		if w.Group == group && w.QueueID == queueID {
			n++
		}
	}
	return n
}
