package pop

// ReviveQueue is the bookkeeping of one revive queue (PopReviveService's
// consumeReviveMessage / mergeAndRevive, without a goroutine): it is fed the
// queue's records in order, pairs acks with their checkpoint, and reports
// the checkpoints whose invisible time has passed with the offsets nobody
// acknowledged. The broker's revive service drives it.

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
)

// pendingCk is a checkpoint read from the revive log and not yet settled.
type pendingCk struct {
	ck    Checkpoint
	at    int64 // its own offset in the revive queue
	acked []bool
	left  int // offsets not acknowledged yet
}

// ReviveQueue tracks one queue of the revive topic.
type ReviveQueue struct {
	QueueID int32
	next    int64 // next revive-queue offset to read
	pending map[pendKey]*pendingCk
}

// pendKey names a pending checkpoint: a rewritten one (rePutTimes > 0) can
// share its original's key when it is for the original's first message,
// and both may be pending at once.
type pendKey struct {
	ck ckKey
	rp int
}

func (c *Checkpoint) pendKey() pendKey { return pendKey{c.key(), c.RePutCount()} }

// NewReviveQueue starts reading queue queueID at offset from (the committed
// revive progress).
func NewReviveQueue(queueID int32, from int64) *ReviveQueue {
	return &ReviveQueue{QueueID: queueID, next: max(from, 0), pending: make(map[pendKey]*pendingCk)}
}

// Next is the next revive-queue offset to read.
func (q *ReviveQueue) Next() int64 { return q.next }

// Skip moves the read position to offset (the store corrected it).
func (q *ReviveQueue) Skip(offset int64) {
	if offset > q.next {
		q.next = offset
	}
}

// Pending is the number of unsettled checkpoints.
func (q *ReviveQueue) Pending() int { return len(q.pending) }

// Feed consumes the record at revive-queue offset off. Records that do not
// parse are skipped (a revive log never blocks on a bad record).
func (q *ReviveQueue) Feed(off int64, tag string, body []byte) {
	if off < q.next {
		return
	}
	q.next = off + 1
	switch tag {
	case CkTag:
		var ck Checkpoint
		if json.Unmarshal(body, &ck) != nil || len(ck.QueueOffsetDiff) == 0 {
			return
		}
		k := ck.pendKey()
		if _, dup := q.pending[k]; dup {
			return
		}
		q.pending[k] = &pendingCk{ck: ck, at: off, acked: make([]bool, len(ck.QueueOffsetDiff)), left: len(ck.QueueOffsetDiff)}
	case AckTag, BatchAckTag:
		var a AckMsg
		if json.Unmarshal(body, &a) != nil {
			return
		}
		// An ack names the checkpoint its pop wrote, never a rewrite.
		k := pendKey{ck: a.key()}
		p := q.pending[k]
		if p == nil {
			return // its checkpoint was settled, or is older than our start
		}
		for _, o := range a.Offsets() {
			if i := p.ck.Index(o); i >= 0 && !p.acked[i] {
				p.acked[i] = true
				p.left--
			}
		}
		if p.left == 0 {
			delete(q.pending, k)
		}
	}
}

// Due is one checkpoint whose invisible time has passed: Offsets are the
// queue offsets (of Checkpoint.Topic / QueueID) still unacknowledged.
type Due struct {
	Checkpoint Checkpoint
	Offsets    []int64
}

// Due returns the checkpoints due at now (ms), oldest revive offset first.
// They stay pending until Settle.
func (q *ReviveQueue) Due(now int64) []Due {
	var ps []*pendingCk
	for _, p := range q.pending {
		if p.ck.Due() <= now {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b *pendingCk) int { return cmp.Compare(a.at, b.at) })
	out := make([]Due, 0, len(ps))
	for _, p := range ps {
		d := Due{Checkpoint: p.ck}
		for i, ok := range p.acked {
			if !ok {
				d.Offsets = append(d.Offsets, p.ck.Offset(i))
			}
		}
		out = append(out, d)
	}
	return out
}

// Revived records that the message at offset of ck was re-put: Due no
// longer lists it, so a checkpoint whose other messages failed to re-put
// is retried for those only.
func (q *ReviveQueue) Revived(ck *Checkpoint, offset int64) {
	p := q.pending[ck.pendKey()]
	if p == nil {
		return
	}
	if i := p.ck.Index(offset); i >= 0 && !p.acked[i] {
		p.acked[i] = true
		p.left--
	}
}

// Settle forgets a checkpoint once its unacknowledged messages were
// re-put.
func (q *ReviveQueue) Settle(ck *Checkpoint) { delete(q.pending, ck.pendKey()) }

// Commit is the revive progress that is safe to persist: the offset of the
// oldest unsettled checkpoint, or the read position when none is left. A
// restart re-reads from there, so nothing popped and unacknowledged is lost.
func (q *ReviveQueue) Commit() int64 {
	c := q.next
	for _, p := range q.pending {
		c = min(c, p.at)
	}
	return c
}

// ckRewriteIntervals (seconds) are the back-offs of successive rewrites of
// a checkpoint whose message could not be re-put (5.x's
// PopReviveService.ckRewriteIntervalsInSeconds); the last one repeats.
var ckRewriteIntervals = [...]int64{10, 20, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200}

// MaxRePutTimes is the number of rewrites after which a broker configured
// with skipWhenCKRePutReachMaxTimes drops the message.
const MaxRePutTimes = len(ckRewriteIntervals)

// RePutCount is how many times ck was rewritten (parseRePutTimes: absent or
// unparsable is 0).
func (c *Checkpoint) RePutCount() int {
	if c.RePutTimes == nil {
		return 0
	}
	n, err := strconv.Atoi(*c.RePutTimes)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// RewriteCheckpoint is rePutCK: the one-message checkpoint, for the message
// at queue offset offset of old, that a revive service writes back to the
// revive log when that message could not be re-put, so that the revive
// progress can move past old while the message is tried again later. Its
// pop time is old's and its invisible time is extended by the next
// back-off when old is due at now (ms); it counts one more rewrite. ok is
// false once MaxRePutTimes rewrites were made and skip is set: the message
// is given up.
func RewriteCheckpoint(old *Checkpoint, offset, now int64, skip bool) (ck Checkpoint, ok bool) {
	n := old.RePutCount()
	if n >= MaxRePutTimes && skip {
		return Checkpoint{}, false
	}
	times := strconv.Itoa(n + 1)
	ck = Checkpoint{
		Num: 1, PopTime: old.PopTime, InvisibleTime: old.InvisibleTime, StartOffset: offset,
		CID: old.CID, Topic: old.Topic, QueueID: old.QueueID, BrokerName: old.BrokerName,
		QueueOffsetDiff: []int32{0}, RePutTimes: &times,
	}
	if old.Due() <= now {
		ck.InvisibleTime += ckRewriteIntervals[min(n, MaxRePutTimes-1)] * 1000
	}
	ck.ReviveTime = ck.Due()
	return ck, true
}
