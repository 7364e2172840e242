package transaction

// Service mirrors TransactionalMessageServiceImpl (broker/transaction/queue,
// 4.9.8): the check pass over the half queues and the half-message lookups
// of END_TRANSACTION.

import (
	"context"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
)

// Java's limits: one half message per read, a queue's pass stops after 60 s,
// and after the second missing half message.
const (
	pullHalfNums             = 1
	opPullNums               = 32
	maxProcessTime           = 60 * time.Second
	maxRetryCountWhenHalfNil = 1
)

// Listener is AbstractTransactionalMessageCheckListener: what the check
// pass does with a half message that needs a check or must be discarded.
type Listener interface {
	// ResolveHalfMsg asks the producer (CHECK_TRANSACTION_STATE); m is the
	// re-put copy and p its properties.
	ResolveHalfMsg(m *message.MessageExt, p *Props)
	// ResolveDiscardMsg handles a half message checked too often or too old.
	ResolveDiscardMsg(m *message.MessageExt, p *Props)
}

// Service is TransactionalMessageServiceImpl.
type Service struct {
	br *Bridge
	lg *zap.Logger

	// pending holds the re-puts of half messages that the store appended
	// but has not confirmed as flushed/replicated. Until one is, the scan
	// offset stays at the original and nobody is asked about the copy; the
	// next pass waits for this copy again instead of writing another one.
	mu      sync.Mutex                              // guards pending
	pending map[halfSlot]commitlog.PutMessageResult // by the original half
}

// halfSlot names a half message by its queue and offset.
type halfSlot struct {
	queueID int32
	offset  int64
}

// NewService returns the service over br.
func NewService(br *Bridge) *Service {
	return &Service{br: br, lg: br.lg, pending: map[halfSlot]commitlog.PutMessageResult{}}
}

// Bridge returns the service's bridge.
func (s *Service) Bridge() *Bridge { return s.br }

// HalfMessageByOffset is getHalfMessageByOffset (commitMessage /
// rollbackMessage): the record at commitLogOffset, nil when there is none.
func (s *Service) HalfMessageByOffset(commitLogOffset int64) *message.MessageExt {
	return s.br.LookMessageByOffset(commitLogOffset)
}

// DeletePrepareMessage is deletePrepareMessage: write the op record that
// marks the half message resolved.
func (s *Service) DeletePrepareMessage(half *message.MessageExt) bool {
	if s.br.PutOpMessage(half) {
		return true
	}
	s.lg.Error("transaction op message write failed", zap.String("msgId", half.MsgID), zap.Int32("queueId", half.QueueID))
	return false
}

// Check is one check pass over every half queue (check): timeout is
// transactionTimeOut, checkMax transactionCheckMax.
func (s *Service) Check(ctx context.Context, timeout time.Duration, checkMax int, l Listener) {
	queues := s.br.fetchMessageQueues(HalfTopic)
	if len(queues) == 0 {
		s.lg.Warn("the queue of topic is empty", zap.String("topic", HalfTopic))
		return
	}
	for _, qid := range queues {
		if ctx.Err() != nil {
			return
		}
		qc := &queueCheck{s: s, ctx: ctx, qid: qid, timeout: timeout.Milliseconds(), checkMax: checkMax, l: l}
		qc.run()
	}
}

// queueCheck is the state of one half queue's pass.
type queueCheck struct {
	s        *Service
	ctx      context.Context
	qid      int32
	timeout  int64 // ms
	checkMax int
	l        Listener

	start      int64           // ms
	stopAt     int64           // half offsets from here on were written in this pass: stop there
	halfOffset int64           // committed scan position of the half queue
	opOffset   int64           // committed scan position of the op queue
	removeMap  map[int64]int64 // half offset → op offset of resolved halves
	doneOp     []int64         // op offsets fully accounted for
	opPull     *pullResult     // the latest op read
}

func (q *queueCheck) run() {
	br := q.s.br
	q.start = br.nowMillis()
	q.halfOffset = br.fetchConsumeOffset(HalfTopic, q.qid)
	q.opOffset = br.fetchConsumeOffset(OpTopic, q.qid)
	if q.halfOffset < 0 || q.opOffset < 0 {
		q.s.lg.Error("illegal offset read, skip this queue", zap.Int32("queueId", q.qid),
			zap.Int64("halfOffset", q.halfOffset), zap.Int64("opOffset", q.opOffset))
		return
	}
	q.removeMap = map[int64]int64{}
	if q.opPull = q.fillOpRemoveMap(q.opOffset); q.opPull == nil {
		q.s.lg.Error("check failed, op pull result is nil", zap.Int32("queueId", q.qid))
		return
	}
	q.stopAt = math.MaxInt64
	newOffset := q.walk()
	q.s.forgetPendingBelow(q.qid, newOffset)
	if newOffset != q.halfOffset {
		br.updateConsumeOffset(HalfTopic, q.qid, newOffset)
	}
	if newOp := calculateOpOffset(q.doneOp, q.opOffset); newOp != q.opOffset {
		br.updateConsumeOffset(OpTopic, q.qid, newOp)
	}
}

// walk scans the half queue and returns the new half offset. It is the
// loop of TransactionalMessageServiceImpl.check (a documented state
// machine: each iteration settles offset i or stops).
func (q *queueCheck) walk() int64 {
	br := q.s.br
	nullCount := 1
	newOffset, i := q.halfOffset, q.halfOffset
	for q.ctx.Err() == nil {
		if br.nowMillis()-q.start > maxProcessTime.Milliseconds() {
			q.s.lg.Info("queue process time reached the limit", zap.Int32("queueId", q.qid))
			break
		}
		if i >= q.stopAt {
			break // a copy confirmed in this pass: as fresh as one written now
		}
		if opOff, ok := q.removeMap[i]; ok {
			delete(q.removeMap, i)
			q.doneOp = append(q.doneOp, opOff)
			i++
			newOffset = i
			continue
		}
		pr := br.getMessage(HalfTopic, q.qid, i, pullHalfNums)
		if pr == nil || len(pr.msgs) == 0 {
			if nullCount++; nullCount > maxRetryCountWhenHalfNil+1 || pr == nil || pr.status == pullNoNewMsg {
				break
			}
			i = pr.nextBeginOffset
			newOffset = i
			continue
		}
		m := pr.msgs[0]
		p := ParseProps(m.PropertiesString)
		if q.needDiscard(p) || q.needSkip(m) {
			q.l.ResolveDiscardMsg(m, p)
			i++
			newOffset = i
			continue
		}
		if m.StoreTimestamp >= q.start {
			break // fresh: check it next time
		}
		next, stop := q.decide(m, p)
		if stop {
			break
		}
		if !next {
			continue
		}
		i++
		newOffset = i
	}
	return newOffset
}

// decide handles a half message that is neither resolved nor discarded:
// stop = leave the walk, next = offset settled (move on), neither = look
// at the same offset again (more op records read, or the re-put failed).
func (q *queueCheck) decide(m *message.MessageExt, p *Props) (next, stop bool) {
	age := q.s.br.nowMillis() - m.BornTimestamp
	immunity := q.timeout
	if v, ok := p.Get(message.PropertyCheckImmunityTimeInSeconds); ok {
		immunity = immunityTime(v, q.timeout)
		if age < immunity {
			if settled, wait := q.checkPrepareQueueOffset(m, p); settled || wait {
				return settled, wait
			}
		}
	} else if age >= 0 && age < immunity {
		return false, true // new arrival: check it later
	}
	ops := q.opPull.msgs
	needCheck := (len(ops) == 0 && age > immunity) ||
		(len(ops) > 0 && ops[len(ops)-1].BornTimestamp-q.start > q.timeout) ||
		age <= -1
	if !needCheck {
		if q.opPull = q.fillOpRemoveMap(q.opPull.nextBeginOffset); q.opPull == nil {
			return false, true
		}
		return false, false
	}
	switch q.putBackHalfMsgQueue(m, p) {
	case putFailed:
		return false, false
	case putUnconfirmed:
		return false, true // not settled: retried (confirmation only) next pass
	}
	q.l.ResolveHalfMsg(m, p)
	return true, false
}

// needDiscard bumps TRANSACTION_CHECK_TIMES and reports whether the half
// message was already checked checkMax times.
func (q *queueCheck) needDiscard(p *Props) bool {
	checkTime := 1
	if v, ok := p.Get(message.PropertyTransactionCheckTimes); ok {
		checkTime = parseInt(v)
		if checkTime >= q.checkMax {
			return true
		}
		checkTime++
	}
	p.Put(message.PropertyTransactionCheckTimes, strconv.Itoa(checkTime))
	return false
}

// needSkip reports a half message born longer ago than fileReservedTime.
func (q *queueCheck) needSkip(m *message.MessageExt) bool {
	if q.s.br.nowMillis()-m.BornTimestamp > q.s.br.opts.FileReservedTime().Milliseconds() {
		q.s.lg.Info("half message exceeds the file reserved time, skip it", zap.String("msgId", m.MsgID),
			zap.Int64("bornTimestamp", m.BornTimestamp))
		return true
	}
	return false
}

// putBackHalfMsgQueue re-puts the half message at the end of its queue and
// points m at the copy (queue offset, CommitLog offset, msgId).
func (q *queueCheck) putBackHalfMsgQueue(m *message.MessageExt, p *Props) putOutcome {
	res, o := q.reput(m.QueueOffset, renewHalfMessage(m, p))
	if o == putConfirmed {
		m.QueueOffset = res.Append.LogicsOffset
		m.CommitLogOffset = res.Append.WroteOffset
		m.MsgID = res.Append.MsgID
	}
	return o
}

// reput writes dup, the re-put of the half message at offset, unless an
// earlier pass already wrote it and is waiting for its confirmation: then
// it only waits again. An unconfirmed copy is remembered; a copy confirmed
// late ends the walk at its offset, as a copy written in this pass does.
func (q *queueCheck) reput(offset int64, dup *message.MessageExt) (commitlog.PutMessageResult, putOutcome) {
	key := halfSlot{queueID: q.qid, offset: offset}
	q.s.mu.Lock()
	prev, waiting := q.s.pending[key]
	q.s.mu.Unlock()
	if waiting {
		if !q.s.br.confirm(putEnd(prev)) {
			return prev, putUnconfirmed
		}
		q.s.forget(key)
		q.stopAt = min(q.stopAt, prev.Append.LogicsOffset)
		return prev, putConfirmed
	}
	res, o := q.s.br.put(dup)
	if o == putUnconfirmed {
		q.s.mu.Lock()
		q.s.pending[key] = res
		q.s.mu.Unlock()
	}
	return res, o
}

func (s *Service) forget(key halfSlot) {
	s.mu.Lock()
	delete(s.pending, key)
	s.mu.Unlock()
}

// forgetPendingBelow drops the unconfirmed copies of halves the scan has
// moved past (resolved by an op record meanwhile, or discarded).
func (s *Service) forgetPendingBelow(queueID int32, offset int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.pending {
		if k.queueID == queueID && k.offset < offset {
			delete(s.pending, k)
		}
	}
}

// checkPrepareQueueOffset decides an immune half message: settled when its
// original was resolved or it was re-put for later; wait when the re-put
// is written but not confirmed (the walk stops there until it is).
func (q *queueCheck) checkPrepareQueueOffset(m *message.MessageExt, p *Props) (settled, wait bool) {
	v, ok := p.Get(message.PropertyTransactionPreparedQueueOffset)
	if ok {
		prepared := parseLong(v)
		if prepared == -1 {
			return false, false
		}
		if opOff, found := q.removeMap[prepared]; found {
			delete(q.removeMap, prepared)
			q.doneOp = append(q.doneOp, opOff)
			return true, false
		}
	}
	_, o := q.reput(m.QueueOffset, renewImmunityHalfMessage(m, p))
	return o == putConfirmed, o == putUnconfirmed
}

// fillOpRemoveMap reads up to 32 op records from offset into removeMap (or
// doneOp for halves below the scan start).
func (q *queueCheck) fillOpRemoveMap(offset int64) *pullResult {
	pr := q.s.br.getMessage(OpTopic, q.qid, offset, opPullNums)
	if pr == nil {
		return nil
	}
	switch pr.status {
	case pullOffsetIllegal, pullNoMatchedMsg:
		q.s.lg.Warn("illegal op offset", zap.Int32("queueId", q.qid), zap.Int64("queueOffset", offset))
		q.s.br.updateConsumeOffset(OpTopic, q.qid, pr.nextBeginOffset)
		return pr
	case pullNoNewMsg:
		return pr
	}
	for _, op := range pr.msgs {
		halfOff := parseLong(string(op.Body))
		if message.PropertyValue(op.PropertiesString, message.PropertyTags) != RemoveTag {
			q.s.lg.Error("illegal tag in op message", zap.Int64("queueOffset", op.QueueOffset))
			continue
		}
		if halfOff < q.halfOffset {
			q.doneOp = append(q.doneOp, op.QueueOffset)
		} else {
			q.removeMap[halfOff] = op.QueueOffset
		}
	}
	return pr
}

// calculateOpOffset advances the op offset over the contiguous run of done
// op offsets starting at old.
func calculateOpOffset(done []int64, old int64) int64 {
	slices.Sort(done)
	n := old
	for _, d := range done {
		if d != n {
			break
		}
		n++
	}
	return n
}

// immunityTime is getImmunityTime: seconds → ms, -1 → transactionTimeOut.
func immunityTime(v string, timeout int64) int64 {
	t := parseLong(v)
	if t == -1 {
		return timeout
	}
	return t * 1000
}

// parseLong and parseInt are Java's getLong/getInt: -1 on a bad value.
func parseLong(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return v
}

func parseInt(s string) int {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return -1
	}
	return int(v)
}
