package pop

// OrderInfo is the FIFO-pop bookkeeping (5.x ConsumerOrderInfoManager): for
// each topic@group and queue, the batch an orderly pop handed out. While any
// message of that batch is unacknowledged and still invisible the queue is
// blocked for the group; once the invisible time passes the same batch is
// handed out again (its consumed count grows); acks move the group's offset
// to the first unacknowledged message.

import (
	"slices"
	"sync"
)

// orderBatch is one queue's outstanding orderly batch.
type orderBatch struct {
	popTime       int64
	invisibleTime int64
	attemptID     string
	offsets       []int64
	committed     []bool
	nextVisible   map[int64]int64 // offset → next visible time set by CHANGE_INVISIBLE
	consumed      int             // times this batch was handed out
}

type orderKey struct {
	topic, group string
	queueID      int32
}

// OrderInfo is safe for concurrent use.
type OrderInfo struct {
	mu    sync.Mutex
	table map[orderKey]*orderBatch // guarded by mu
}

// NewOrderInfo returns an empty table.
func NewOrderInfo() *OrderInfo { return &OrderInfo{table: make(map[orderKey]*orderBatch)} }

// CheckBlock reports whether the queue is blocked for the group at now (ms):
// some message of its outstanding batch is unacknowledged and invisible. A
// retry of the same attempt (attemptID) is not blocked.
func (o *OrderInfo) CheckBlock(attemptID, topic, group string, queueID int32, _ int64, now int64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.table[orderKey{topic, group, queueID}]
	if b == nil || len(b.offsets) == 0 {
		return false
	}
	if attemptID != "" && attemptID == b.attemptID {
		return false
	}
	for i, off := range b.offsets {
		if b.committed[i] {
			continue
		}
		visible := b.popTime + b.invisibleTime
		if v, ok := b.nextVisible[off]; ok {
			visible = v
		}
		if visible > now {
			return true
		}
	}
	return false
}

// Update records a batch handed out by an orderly pop and appends the
// queue's consumed count to orderCount (orderCountInfo).
func (o *OrderInfo) Update(attemptID string, _ bool, topic, group string, queueID int32, popTime, invisibleTime int64,
	offsets []int64, orderCount *OffsetInfo) {
	o.mu.Lock()
	k := orderKey{topic, group, queueID}
	prev := o.table[k]
	b := &orderBatch{popTime: popTime, invisibleTime: invisibleTime, attemptID: attemptID,
		offsets: slices.Clone(offsets), committed: make([]bool, len(offsets))}
	if prev != nil && len(prev.offsets) > 0 && len(offsets) > 0 && prev.offsets[0] == offsets[0] {
		b.consumed = prev.consumed + 1
	}
	o.table[k] = b
	n := b.consumed
	o.mu.Unlock()
	if orderCount != nil {
		orderCount.AddOrderCount(topic, queueID, n)
	}
}

// CommitAndNext acknowledges offset of the batch popped at popTime and
// returns the group's next offset: the first unacknowledged message, or the
// offset after the batch once all are acknowledged. -1: offset is not in
// the batch; -2: the batch was popped again since (stale receipt handle).
func (o *OrderInfo) CommitAndNext(topic, group string, queueID int32, offset, popTime int64) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	k := orderKey{topic, group, queueID}
	b := o.table[k]
	if b == nil {
		return offset + 1
	}
	if b.popTime != popTime {
		return -2
	}
	i := slices.Index(b.offsets, offset)
	if i < 0 {
		return -1
	}
	b.committed[i] = true
	for j, c := range b.committed {
		if !c {
			return b.offsets[j]
		}
	}
	delete(o.table, k)
	return b.offsets[len(b.offsets)-1] + 1
}

// UpdateNextVisibleTime is CHANGE_INVISIBLE of an orderly message.
func (o *OrderInfo) UpdateNextVisibleTime(topic, group string, queueID int32, offset, popTime, nextVisible int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.table[orderKey{topic, group, queueID}]
	if b == nil || b.popTime != popTime {
		return
	}
	if b.nextVisible == nil {
		b.nextVisible = make(map[int64]int64)
	}
	b.nextVisible[offset] = nextVisible
}

// Clear drops the queue's batch (an offset reset).
func (o *OrderInfo) Clear(topic, group string, queueID int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.table, orderKey{topic, group, queueID})
}
