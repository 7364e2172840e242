package pop

// OrderInfo is the FIFO-pop bookkeeping (5.x ConsumerOrderInfoManager): for
// each topic@group and queue, the batch an orderly pop handed out. While any
// message of that batch is unacknowledged and still invisible the queue is
// blocked for the group; once the invisible time passes the batch is handed
// out again and each message's consumed count grows; acks move the group's
// offset to the first unacknowledged message. The table persists as 5.x's
// config/consumerOrderInfo.json.

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// orderBatch is 5.x's OrderInfo (its JSON field names).
type orderBatch struct {
	PopTime       int64 `json:"popTime"`
	InvisibleTime int64 `json:"i"`
	// OffsetList holds the first queue offset, then the others as
	// differences from it.
	OffsetList          []int64         `json:"o"`
	OffsetNextVisible   map[int64]int64 `json:"ot,omitempty"`
	OffsetConsumedCount map[int64]int   `json:"oc,omitempty"`
	LastConsumeTime     int64           `json:"l"`
	CommitOffsetBit     int64           `json:"cm"`
	AttemptID           string          `json:"a,omitempty"`
}

func (b *orderBatch) offset(i int) int64 {
	if i == 0 {
		return b.OffsetList[0]
	}
	return b.OffsetList[0] + b.OffsetList[i]
}

func (b *orderBatch) acked(i int) bool { return i < 64 && b.CommitOffsetBit&(1<<i) != 0 }

// needBlock is OrderInfo.needBlock.
func (b *orderBatch) needBlock(attemptID string, invisibleTime, now int64) bool {
	if len(b.OffsetList) == 0 || attemptID != "" && attemptID == b.AttemptID {
		return false
	}
	if b.InvisibleTime <= 0 {
		b.InvisibleTime = invisibleTime
	}
	for i := range b.OffsetList {
		if b.acked(i) {
			continue
		}
		visible := b.PopTime + b.InvisibleTime
		if v, ok := b.OffsetNextVisible[b.offset(i)]; ok {
			visible = v
		}
		if now < visible {
			return true
		}
	}
	return false
}

// nextOffset is OrderInfo.getNextOffset.
func (b *orderBatch) nextOffset() int64 {
	if len(b.OffsetList) == 0 {
		return -2
	}
	for i := range b.OffsetList {
		if !b.acked(i) {
			return b.offset(i)
		}
	}
	return b.offset(len(b.OffsetList)-1) + 1
}

// mergeConsumedCount is OrderInfo.mergeOffsetConsumedCount: offsets handed
// out again count one more delivery.
func (b *orderBatch) mergeConsumedCount(prev *orderBatch) {
	if prev.AttemptID != "" && prev.AttemptID == b.AttemptID {
		b.OffsetConsumedCount = prev.OffsetConsumedCount
		return
	}
	before := map[int64]bool{}
	for i := range prev.OffsetList {
		before[prev.offset(i)] = true
	}
	b.OffsetConsumedCount = map[int64]int{}
	for i := range b.OffsetList {
		if o := b.offset(i); before[o] {
			b.OffsetConsumedCount[o] = prev.OffsetConsumedCount[o] + 1
		}
	}
}

// OrderInfo is safe for concurrent use.
type OrderInfo struct {
	mu    sync.Mutex
	table map[string]map[int32]*orderBatch // topic@group → queue → batch; guarded by mu
	ver   int64                            // changes so far; guarded by mu
	now   func() int64
}

// Version counts the table's changes (a persister writes when it moved).
func (o *OrderInfo) Version() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ver
}

// NewOrderInfo returns an empty table.
func NewOrderInfo() *OrderInfo {
	return &OrderInfo{table: make(map[string]map[int32]*orderBatch), now: func() int64 { return time.Now().UnixMilli() }}
}

func orderKey(topic, group string) string { return topic + "@" + group }

func (o *OrderInfo) get(topic, group string, queueID int32) *orderBatch {
	return o.table[orderKey(topic, group)][queueID]
}

// CheckBlock reports whether the queue is blocked for the group at now (ms).
// A retry of the same attempt (attemptID) is not blocked.
func (o *OrderInfo) CheckBlock(attemptID, topic, group string, queueID int32, invisibleTime, now int64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.get(topic, group, queueID)
	return b != nil && b.needBlock(attemptID, invisibleTime, now)
}

// Update records a batch handed out by an orderly pop and appends its
// consumed counts to orderCount (orderCountInfo): one "qo<queueId>%<offset>"
// entry per offset delivered before, then the queue's minimum.
func (o *OrderInfo) Update(attemptID string, _ bool, topic, group string, queueID int32, popTime, invisibleTime int64,
	offsets []int64, orderCount *OffsetInfo) {
	if len(offsets) == 0 {
		return
	}
	b := &orderBatch{PopTime: popTime, InvisibleTime: invisibleTime, AttemptID: attemptID, LastConsumeTime: o.now()}
	b.OffsetList = append(b.OffsetList, offsets[0])
	for _, off := range offsets[1:] {
		b.OffsetList = append(b.OffsetList, off-offsets[0])
	}
	o.mu.Lock()
	k := orderKey(topic, group)
	qs := o.table[k]
	if qs == nil {
		qs = make(map[int32]*orderBatch)
		o.table[k] = qs
	}
	if prev := qs[queueID]; prev != nil {
		b.mergeConsumedCount(prev)
	}
	qs[queueID] = b
	o.ver++
	counts := maps.Clone(b.OffsetConsumedCount)
	n := len(b.OffsetList)
	o.mu.Unlock()
	if orderCount == nil {
		return
	}
	minCount := 0
	if len(counts) == n {
		minCount = int(^uint(0) >> 1)
	}
	for _, off := range slices.Sorted(maps.Keys(counts)) {
		orderCount.addQueueOffsetCount(topic, queueID, off, counts[off])
		minCount = min(minCount, counts[off])
	}
	orderCount.AddOrderCount(topic, queueID, minCount)
}

// CommitAndNext acknowledges offset of the batch popped at popTime and
// returns the group's next offset: the first unacknowledged message, or the
// offset after the batch once all are acknowledged. -1: offset is not in
// the batch; -2: the batch was popped again since (stale receipt handle).
func (o *OrderInfo) CommitAndNext(topic, group string, queueID int32, offset, popTime int64) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.get(topic, group, queueID)
	if b == nil {
		return offset + 1
	}
	if len(b.OffsetList) == 0 {
		return -1
	}
	if b.PopTime != popTime {
		return -2
	}
	for i := range b.OffsetList {
		if b.offset(i) == offset {
			if i < 64 {
				b.CommitOffsetBit |= 1 << i
			}
			o.ver++
			return b.nextOffset()
		}
	}
	return -1
}

// UpdateNextVisibleTime is CHANGE_INVISIBLE of an orderly message.
func (o *OrderInfo) UpdateNextVisibleTime(topic, group string, queueID int32, offset, popTime, nextVisible int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.get(topic, group, queueID)
	if b == nil || b.PopTime != popTime {
		return
	}
	if b.OffsetNextVisible == nil {
		b.OffsetNextVisible = make(map[int64]int64)
	}
	b.OffsetNextVisible[offset] = nextVisible
	o.ver++
}

// Clear drops the queue's batch (an offset reset).
func (o *OrderInfo) Clear(topic, group string, queueID int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.table[orderKey(topic, group)], queueID)
	o.ver++
}

type orderFile struct {
	Table map[string]map[int32]*orderBatch `json:"table"`
}

// Encode is the consumerOrderInfo.json content (standard JSON; 5.x's
// fastjson reads the quoted integer keys too) and the version it holds.
func (o *OrderInfo) Encode() ([]byte, int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b, _ := json.Marshal(orderFile{Table: o.table}) // maps of plain structs always encode
	return b, o.ver
}

// Decode replaces the table with a consumerOrderInfo.json content given as
// standard JSON (see body.Normalize for fastjson's bare keys).
func (o *OrderInfo) Decode(data []byte) error {
	var f orderFile
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	if f.Table == nil {
		f.Table = make(map[string]map[int32]*orderBatch)
	}
	for k, qs := range f.Table {
		if qs == nil || !strings.Contains(k, "@") {
			delete(f.Table, k)
		}
	}
	o.mu.Lock()
	o.table = f.Table
	o.mu.Unlock()
	return nil
}

// addQueueOffsetCount is ExtraInfoUtil.buildQueueOffsetOrderCountInfo.
func (o *OffsetInfo) addQueueOffsetCount(topic string, queueID int32, offset int64, count int) {
	if o.b.Len() > 0 {
		o.b.WriteByte(';')
	}
	o.b.WriteString(RetryMark(topic))
	o.b.WriteString(" qo")
	o.b.WriteString(strconv.Itoa(int(queueID)))
	o.b.WriteByte('%')
	o.b.WriteString(strconv.FormatInt(offset, 10))
	o.b.WriteByte(' ')
	o.b.WriteString(strconv.Itoa(count))
}
