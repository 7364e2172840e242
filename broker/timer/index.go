package timer

import "container/heap"

// entry is one pending timer message: its key (deliverAt, qo) and where
// the message is in the CommitLog.
type entry struct {
	deliverAt int64 // TIMER_OUT_MS
	qo        int64 // queue offset in rmq_sys_wheel_timer queue 0
	phy       int64 // CommitLog offset
	enqueueMs int64 // when the service read it (TIMER_ENQUEUE_MS)
}

func (e entry) less(o entry) bool {
	if e.deliverAt != o.deliverAt {
		return e.deliverAt < o.deliverAt
	}
	return e.qo < o.qo
}

// index is a min-heap of pending entries by key.
type index []entry

func (h index) Len() int           { return len(h) }
func (h index) Less(i, j int) bool { return h[i].less(h[j]) }
func (h index) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *index) Push(x any)        { *h = append(*h, x.(entry)) }
func (h *index) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func (h *index) push(e entry) { heap.Push(h, e) }
func (h *index) pop() entry   { return heap.Pop(h).(entry) }

// minQo is the lowest queue offset in the heap, or def when empty.
func (h index) minQo(def int64) int64 {
	m := def
	for _, e := range h {
		m = min(m, e.qo)
	}
	return m
}
