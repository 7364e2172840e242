package store

// Abnormal recovery of the CommitLog fused with the re-dispatch, as Java
// CommitLog.recoverAbnormally does it: one pass over the log from the file
// the checkpoint designates validates every record (magic, size, body CRC
// when checkCRCOnRecover) and dispatches it. The pass is split in two
// halves on two goroutines, file by file: the validator (prefetch.go)
// faults a file in and checks it, the recovery goroutine dispatches what
// was found valid. Records the consume queue and the index already hold are
// validated but not dispatched again.

import (
	"encoding/binary"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/consumequeue"
	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

// recoverAbnormally validates and dispatches from the newest file whose
// first record is not newer than the checkpoint allows, then truncates the
// CommitLog after the last valid record. StartOffset of the result is where
// the scan began.
func (s *DefaultMessageStore) recoverAbnormally() (commitlog.RecoverResult, error) {
	files := s.cl.MappedFileQueue().Files()
	if len(files) == 0 {
		return s.cutCommitLog(0, 0)
	}
	idx := 0
	for i := len(files) - 1; i >= 0; i-- {
		if s.matchedRecover(files[i]) {
			idx = i
			break
		}
	}
	rs := s.newRecoveryScan()
	val := startValidator(files[idx:], s.cfg.CheckCRCOnRecover, 2)
	start := files[idx].FileFromOffset()
	end := start
	for i := idx; i < len(files); i++ {
		fc, ok := val.next()
		if !ok {
			break
		}
		end = rs.dispatchFile(files[i], fc.end)
		if end != fc.end || !fc.cont {
			break
		}
		if i+1 < len(files) {
			end = files[i+1].FileFromOffset()
		}
	}
	val.finish()
	s.lg.Info("commit log recovered abnormally", zap.Int64("startOffset", start), zap.Int64("maxOffset", end),
		zap.Int("dispatched", rs.dispatched), zap.Int("skipped", rs.skipped))
	return s.cutCommitLog(start, end)
}

// recoverNormally is Java CommitLog.recoverNormally after a clean shutdown:
// validate from the third-last file (CRC when checkCRCOnRecover), nothing
// to dispatch, and cut after the last valid record.
func (s *DefaultMessageStore) recoverNormally() (commitlog.RecoverResult, error) {
	files := s.cl.MappedFileQueue().Files()
	if len(files) == 0 {
		return s.cutCommitLog(0, 0)
	}
	idx := max(0, len(files)-3)
	start := files[idx].FileFromOffset()
	end := start
	for i := idx; i < len(files); i++ {
		fc := validateFile(files[i], s.cfg.CheckCRCOnRecover)
		end = fc.end
		if !fc.cont {
			break
		}
		if i+1 < len(files) {
			end = files[i+1].FileFromOffset()
		}
	}
	s.lg.Info("commit log recovered", zap.Int64("startOffset", start), zap.Int64("maxOffset", end))
	return s.cutCommitLog(start, end)
}

// cutCommitLog makes end the CommitLog's flushed/committed end and removes
// everything after it (stale tail zeroed, later files deleted).
func (s *DefaultMessageStore) cutCommitLog(start, end int64) (commitlog.RecoverResult, error) {
	q := s.cl.MappedFileQueue()
	q.SetFlushedWhere(end)
	q.SetCommittedWhere(end)
	if err := q.TruncateDirtyFiles(end); err != nil {
		return commitlog.RecoverResult{}, err
	}
	return commitlog.RecoverResult{StartOffset: start, MaxOffset: end}, nil
}

// matchedRecover is Java isMappedFileMatchedRecover: the file's first
// record was stored no later than the checkpoint's min timestamp (the
// index's too when messageIndexSafe).
func (s *DefaultMessageStore) matchedRecover(mf *mmap.MappedFile) bool {
	d := mf.Data()
	if len(d) < message.PosSysFlag+4 || int32(binary.BigEndian.Uint32(d[message.PosMagic:])) != message.MagicCode {
		return false
	}
	p := message.StoreTimestampPos(int32(binary.BigEndian.Uint32(d[message.PosSysFlag:])))
	if p+8 > len(d) {
		return false
	}
	ts := int64(binary.BigEndian.Uint64(d[p:]))
	if ts == 0 {
		return false
	}
	limit := s.ckpt.MinTimestamp()
	if s.cfg.MessageIndexEnable && s.cfg.MessageIndexSafe {
		limit = s.ckpt.MinTimestampIndex()
	}
	return ts <= limit
}

// recoveryScan is the state of one abnormal-recovery pass.
type recoveryScan struct {
	s          *DefaultMessageStore
	indexEnd   int64 // records starting below it are in the index (or it is off)
	confirm    int64 // with duplicationEnable, dispatch only below it
	dispatched int
	skipped    int
}

func (s *DefaultMessageStore) newRecoveryScan() *recoveryScan {
	rs := &recoveryScan{s: s, indexEnd: 1<<63 - 1, confirm: 1<<63 - 1}
	if s.cfg.MessageIndexEnable {
		rs.indexEnd = 0
		if files := s.idx.Files(); len(files) > 0 {
			rs.indexEnd = files[len(files)-1].Header.EndPhyOffset
		}
	}
	if s.cfg.DuplicationEnable {
		rs.confirm = s.cl.ConfirmOffset()
	}
	return rs
}

// dispatchFile walks the records of one mapped file up to validEnd (the
// validator has checked them) and dispatches them; it returns where it
// stopped, validEnd unless a record no longer parses.
func (rs *recoveryScan) dispatchFile(mf *mmap.MappedFile, validEnd int64) int64 {
	data := mf.Data()
	from := mf.FileFromOffset()
	limit := int(validEnd - from)
	pos := 0
	for pos < limit {
		v, st := parseRecord(data[pos:limit], false)
		if st != recordValid || v.commitLogOffset != from+int64(pos) {
			break
		}
		rs.record(&v)
		pos += int(v.size)
	}
	return from + int64(pos)
}

// record dispatches one valid record unless both dispatchers already hold
// it: its queue's units reach past it (ConsumeQueue.Put would ignore it)
// and it starts below the index end (BuildIndex would ignore it).
func (rs *recoveryScan) record(v *recordView) {
	s := rs.s
	if v.commitLogOffset >= rs.confirm {
		return
	}
	if v.commitLogOffset < rs.indexEnd {
		tx := message.TransactionType(v.sysFlag)
		toCQ := tx == message.SysFlagTransactionNot || tx == message.SysFlagTransCommit
		cq := rs.queue(v.topic, v.queueID)
		if !toCQ || (cq != nil && v.commitLogOffset+int64(v.size) <= cq.MaxPhysicOffset()) {
			if toCQ {
				// what putMessagePositionInfo does for a duplicate
				if s.cfg.BrokerRole == Slave {
					s.ckpt.SetPhysicMsgTimestamp(v.storeTimestamp)
				}
				s.ckpt.SetLogicsMsgTimestamp(v.storeTimestamp)
			}
			rs.skipped++
			return
		}
	}
	d := s.dispatchRequest(v, false)
	s.doDispatch(&d)
	rs.dispatched++
}

// queue looks up an existing consume queue (nil when there is none).
func (rs *recoveryScan) queue(topic []byte, queueID int32) *consumequeue.ConsumeQueue {
	rs.s.cqMu.RLock()
	defer rs.s.cqMu.RUnlock()
	return rs.s.cqTable[string(topic)][queueID]
}
