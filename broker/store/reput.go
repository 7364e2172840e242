package store

// The dispatcher: Java DefaultMessageStore.ReputMessageService,
// CommitLogDispatcherBuildConsumeQueue and CommitLogDispatcherBuildIndex.

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/consumequeue"
	"github.com/rocketmq-go/rmq/broker/store/index"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/service"
)

// reputInterval is the fallback poll of the dispatcher; appends wake it at
// once (Java polls every 1 ms).
const reputInterval = 10 * time.Millisecond

// reputService turns new CommitLog records into consume-queue units and
// index entries. Its goroutine (or Start, before it runs) calls doReput;
// SettleReplicatedTail runs passes too, serialised by mu.
type reputService struct {
	s    *DefaultMessageStore
	svc  *service.Service
	from atomic.Int64 // reputFromOffset: next CommitLog offset to dispatch

	// stall is the failed dispatch being retried, nil while dispatch keeps
	// up. Only dispatch passes (under mu) write it; RuntimeInfo reads it.
	stall atomic.Pointer[dispatchStall]

	// mu is held by each dispatch pass and by CommitLog truncation, so a
	// pass never writes units of a tail being truncated nor moves from
	// past the truncation point afterwards. Only truncation (a role switch,
	// rare) contends with the dispatcher.
	mu sync.Mutex
}

func newReputService(s *DefaultMessageStore) *reputService {
	r := &reputService{s: s}
	r.svc = service.New("reputMessageService", reputInterval, func(context.Context) {
		for r.doReput() {
		}
	})
	return r
}

func (r *reputService) setFrom(v int64) { r.from.Store(v) }

// behind is the number of CommitLog bytes not yet dispatched.
func (r *reputService) behind() int64 { return r.s.cl.MaxOffset() - r.from.Load() }

// drain gives the dispatcher up to 5 s to catch up before shutdown (Java
// ReputMessageService.shutdown).
func (r *reputService) drain(ctx context.Context) {
	deadline := time.Now().Add(5 * time.Second)
	// A stalled dispatcher is not waited for: the next start dispatches
	// again from what the consume queues hold.
	for r.behind() > 0 && r.stall.Load() == nil && time.Now().Before(deadline) && ctx.Err() == nil {
		r.svc.Wakeup()
		time.Sleep(10 * time.Millisecond)
	}
	if r.behind() > 0 {
		r.s.lg.Warn("shutdown reput service, but commitlog have not finish to be dispatched",
			zap.Int64("commitLogMaxOffset", r.s.cl.MaxOffset()), zap.Int64("reputFromOffset", r.from.Load()))
	}
}

// doReput dispatches the readable part of one CommitLog file from the
// reput offset (Java doReput). It reports whether progress was made and
// more may be readable.
func (r *reputService) doReput() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.doReputLocked()
}

// doReputLocked is doReput with r.mu held.
func (r *reputService) doReputLocked() bool {
	s := r.s
	if from, minOff := r.from.Load(), s.cl.MinOffset(); from < minOff {
		s.lg.Warn("reputFromOffset is smaller than minPyOffset, dispatch fell behind expired files",
			zap.Int64("reputFromOffset", from), zap.Int64("commitLogMinOffset", minOff))
		r.from.Store(minOff)
	}
	from := r.from.Load()
	if from >= s.cl.MaxOffset() || !r.retryDue() {
		return false
	}
	if s.cfg.DuplicationEnable && from >= s.cl.ConfirmOffset() {
		return false
	}
	buf := s.cl.GetData(from)
	if buf == nil {
		return false
	}
	defer buf.Release()
	return r.dispatchBuffer(buf)
}

// dispatchBuffer walks the records of buf; see doReput. Records are parsed
// in place; the properties map is built only for the listener.
func (r *reputService) dispatchBuffer(buf *commitlog.Buffer) bool {
	s := r.s
	start := r.from.Load()
	read := 0
	for read < len(buf.Bytes) {
		v, st := parseRecord(buf.Bytes[read:], false)
		switch st {
		case recordValid:
			// KEYS and UNIQ_KEY alias buf (held until doReput returns): the
			// index only hashes them.
			topic, cq := s.queueOf(v.topic, v.queueID)
			d := s.dispatchRequestNamed(&v, topic, s.listenerWantsProperties(), aliasString)
			if err := s.dispatchOne(&d, cq); err != nil {
				// Stay on this record: nothing after it is dispatched
				// before it, so no acknowledged message is skipped.
				r.failed(&d, err)
				return false
			}
			r.succeeded()
			r.notify(&d)
			read += int(v.size)
			r.from.Store(buf.StartOffset + int64(read))
			if s.isSlave() {
				s.stats.addPut(d.Topic, int64(v.size))
			}
		case recordBlank: // the rest of the file is unused
			r.from.Store(s.cl.RollNextFile(buf.StartOffset + int64(read)))
			return true
		case recordMismatch:
			s.lg.Error("read total count not equals msg total size", zap.Int64("reputFromOffset", r.from.Load()))
			read += int(v.size)
			r.from.Store(buf.StartOffset + int64(read))
		default:
			// Unreadable record: a slave waits for the rest of a partly
			// replicated record; a master skips the rest of the buffer.
			if s.isDispatchMaster() {
				s.lg.Error("dispatch message to consume queue error", zap.Int64("commitLogOffset", r.from.Load()))
				r.from.Store(buf.StartOffset + int64(len(buf.Bytes)))
				return true
			}
			return r.from.Load() != start
		}
	}
	return r.from.Load() != start
}

// listenerWantsProperties reports whether the arrival listener needs the
// properties map of the record about to be dispatched (masters only). A
// pull held with a property filter between this question and its record's
// Arriving sees nil properties, which the holder treats as a match: a
// wake-up that may find nothing and answer early, never a missed one.
func (s *DefaultMessageStore) listenerWantsProperties() bool {
	if s.isSlave() || s.opts.listener == nil {
		return false
	}
	if w, ok := s.opts.listener.(ArrivingPropertiesWanter); ok {
		return w.WantsArrivingProperties()
	}
	return true
}

// notify tells the long-poll listener (masters only) the queue's new max
// offset, for every record as Java does.
func (r *reputService) notify(d *commitlog.DispatchRequest) {
	s := r.s
	if s.isSlave() || s.opts.listener == nil {
		return
	}
	s.opts.listener.Arriving(d.Topic, d.QueueID, d.ConsumeQueueOffset+1, d.TagsCode, d.StoreTimestamp, nil, d.Properties)
}

// doDispatch dispatches one record outside the dispatcher (the abnormal
// recovery's scan). A unit that cannot be written there is logged and sets
// the logic-queue error, which, as in Java, refuses sends until a restart:
// only a stall of the dispatcher itself is retried and cleared.
func (s *DefaultMessageStore) doDispatch(d *commitlog.DispatchRequest) {
	if err := s.dispatchOne(d, nil); err != nil {
		s.lg.Error("[BUG]consume queue can not write", zap.String("topic", d.Topic), zap.Int32("queueId", d.QueueID),
			zap.Int64("commitLogOffset", d.CommitLogOffset), zap.Error(err))
		s.flags.makeLogicsQueueError()
	}
}

// dispatchOne builds the consume-queue unit and then the index entries of
// one record (Java doDispatch over the two dispatchers). It fails, with
// nothing indexed, when the unit cannot be written; retrying is safe since
// ConsumeQueue.Put ignores a unit it already holds. cq is d's queue when
// the caller already looked it up, nil otherwise.
func (s *DefaultMessageStore) dispatchOne(d *commitlog.DispatchRequest, cq *consumequeue.ConsumeQueue) error {
	switch message.TransactionType(d.SysFlag) {
	case message.SysFlagTransactionNot, message.SysFlagTransCommit:
		if err := s.putMessagePositionInfo(d, cq); err != nil {
			return err
		}
	}
	if s.cfg.MessageIndexEnable {
		err := s.idx.BuildIndex(&index.Request{Topic: d.Topic, Keys: d.Keys, UniqKey: d.UniqKey,
			CommitLogOffset: d.CommitLogOffset, StoreTimestamp: d.StoreTimestamp, SysFlag: d.SysFlag})
		if err != nil {
			s.flags.makeIndexFileError()
			s.lg.Error("build index error, stop building index", zap.Error(err))
		}
	}
	return nil
}

// putMessagePositionInfo writes the unit once and, on success, updates the
// checkpoint's logics (and, on a slave, physic) timestamp. Java retries
// here 30 times, 1 s apart, then gives up on the record; the dispatcher
// retries instead (dispatch_stall.go), without skipping it. While the
// store refuses consume-queue writes (not writeable, index error) the unit
// is dropped as in Java. cq, when not nil, is d's queue.
func (s *DefaultMessageStore) putMessagePositionInfo(d *commitlog.DispatchRequest, cq *consumequeue.ConsumeQueue) error {
	if !s.flags.isCQWriteable() {
		s.lg.Error("[BUG]consume queue can not write, store not writeable", zap.String("topic", d.Topic),
			zap.Int32("queueId", d.QueueID), zap.Int32("flagBits", s.flags.bits.Load()))
		return nil
	}
	if cq == nil {
		cq = s.findConsumeQueue(d.Topic, d.QueueID)
	}
	ok, err := cq.Put(d.CommitLogOffset, d.MsgSize, d.TagsCode, d.ConsumeQueueOffset)
	if !ok {
		if err == nil {
			err = consumequeue.ErrNoFile
		}
		return err
	}
	if s.isSlave() {
		s.ckpt.SetPhysicMsgTimestamp(d.StoreTimestamp)
	}
	s.ckpt.SetLogicsMsgTimestamp(d.StoreTimestamp)
	return nil
}

// findConsumeQueue returns the queue, creating it on first use.
func (s *DefaultMessageStore) findConsumeQueue(topic string, queueID int32) *consumequeue.ConsumeQueue {
	if cq := s.consumeQueue(topic, queueID); cq != nil {
		return cq
	}
	s.cqMu.Lock()
	defer s.cqMu.Unlock()
	m := s.cqTable[topic]
	if m == nil {
		m = map[int32]*consumequeue.ConsumeQueue{}
		s.cqTable[topic] = m
	}
	if cq := m[queueID]; cq != nil {
		return cq
	}
	cq := consumequeue.New(s.cfg.ConsumeQueueDir(), topic, queueID, s.cfg.MappedFileSizeConsumeQueue, s.lg.Named("consumequeue"))
	m[queueID] = cq
	return cq
}

// consumeQueue returns the queue or nil (Java getConsumeQueue).
func (s *DefaultMessageStore) consumeQueue(topic string, queueID int32) *consumequeue.ConsumeQueue {
	s.cqMu.RLock()
	defer s.cqMu.RUnlock()
	return s.cqTable[topic][queueID]
}

// ConsumeQueue returns the queue of (topic, queueID) or nil.
func (s *DefaultMessageStore) ConsumeQueue(topic string, queueID int32) *consumequeue.ConsumeQueue {
	return s.consumeQueue(topic, queueID)
}

// DispatchBehindBytes is how far the dispatcher lags the CommitLog.
func (s *DefaultMessageStore) DispatchBehindBytes() int64 { return s.reput.behind() }

// ReputFromOffset is the next CommitLog offset the dispatcher will read.
func (s *DefaultMessageStore) ReputFromOffset() int64 { return s.reput.from.Load() }
