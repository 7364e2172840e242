package store

// Recovery of the store at Open (Java DefaultMessageStore.recover with
// CommitLog.recoverNormally / recoverAbnormally). It is the only CommitLog
// recovery: the commitlog package only takes the end found here
// (SetRecoveredEnd). One walk (walkCommitLog) serves both cases, with the
// record checks of validator.go (magic, sizes, physical offset, body CRC
// when checkCRCOnRecover). After a crash scanner goroutines
// (recover_scan.go) fault the files in, check them and parse their
// records while the recovery goroutine dispatches what was found valid,
// in CommitLog order, skipping records the consume queue and the index
// already hold.

import (
	"encoding/binary"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

// recoverResult is what the CommitLog walk found.
type recoverResult struct {
	// startOffset is where the walk began: the third-last file after a
	// clean shutdown, the file the checkpoint designates after a crash.
	startOffset int64
	// maxOffset is the first byte after the last valid record; the log was
	// cut there.
	maxOffset int64
}

// recover is DefaultMessageStore.recover: consume queues first, then the
// CommitLog (normal, or abnormal: validated and re-dispatched in one
// pass), then the queue offset table. Consume-queue units beyond the
// recovered end are truncated after the re-dispatch, as in Java.
func (s *DefaultMessageStore) recover(pc *phaseClock) error {
	maxPhyOfCQ := int64(-1)
	queues := s.allQueues()
	for _, cq := range queues {
		if err := cq.Recover(); err != nil {
			return err
		}
		maxPhyOfCQ = max(maxPhyOfCQ, cq.MaxPhysicOffset())
	}
	pc.done("consumequeue recover", zap.Int("queues", len(queues)))
	var res recoverResult
	var err error
	if s.lastExitOK {
		res, err = s.recoverNormally()
	} else {
		res, err = s.recoverAbnormally()
		s.abnormalScanFrom = res.startOffset
	}
	if err == nil {
		// stale index files were deleted while the CommitLog was scanned
		err = s.idx.WaitRemoved()
	}
	if err != nil {
		return err
	}
	pc.done("commitlog recover", zap.Bool("lastExitOK", s.lastExitOK), zap.Int64("startOffset", res.startOffset),
		zap.Int64("maxOffset", res.maxOffset))
	if len(s.cl.MappedFileQueue().Files()) == 0 && maxPhyOfCQ >= 0 {
		s.lg.Warn("the commitlog files are deleted, and delete the consume queue files")
		s.destroyLogics()
	} else if maxPhyOfCQ >= res.maxOffset {
		s.lg.Warn("truncate dirty logic files", zap.Int64("maxPhyOffsetOfConsumeQueue", maxPhyOfCQ),
			zap.Int64("commitLogMaxOffset", res.maxOffset))
		if err := s.truncateDirtyLogicFiles(res.maxOffset); err != nil {
			return err
		}
	}
	s.recoverTopicQueueTable()
	pc.done("logic queues settled")
	s.lg.Info("load over", zap.Int64("maxPhyOffset", s.cl.MaxOffset()))
	pc.total("store loaded")
	return nil
}

// recoverNormally is Java CommitLog.recoverNormally after a clean
// shutdown: validate from the third-last file on this goroutine (no
// prefault: only the written part of the files is read), nothing to
// dispatch, cut after the last valid record.
func (s *DefaultMessageStore) recoverNormally() (recoverResult, error) {
	files := s.cl.MappedFileQueue().Files()
	if len(files) == 0 {
		return recoverResult{}, s.cl.SetRecoveredEnd(0)
	}
	idx := max(0, len(files)-3)
	check := func(mf *mmap.MappedFile) (fileCheck, bool) { return validateFile(mf, s.cfg.CheckCRCOnRecover), true }
	end := walkCommitLog(files, idx, check)
	s.lg.Info("commit log recovered", zap.Int64("startOffset", files[idx].FileFromOffset()), zap.Int64("maxOffset", end))
	return recoverResult{startOffset: files[idx].FileFromOffset(), maxOffset: end}, s.cl.SetRecoveredEnd(end)
}

// recoverAbnormally is Java CommitLog.recoverAbnormally after a crash:
// from the newest file whose first record is not newer than the
// checkpoint allows (the first file when none is), the scanners check
// and parse the files ahead while this goroutine dispatches their records
// in order; the log is cut after the last valid record.
func (s *DefaultMessageStore) recoverAbnormally() (recoverResult, error) {
	files := s.cl.MappedFileQueue().Files()
	if len(files) == 0 {
		return recoverResult{}, s.cl.SetRecoveredEnd(0)
	}
	idx := 0
	for i := len(files) - 1; i >= 0; i-- {
		if s.matchedRecover(files[i]) {
			idx = i
			break
		}
	}
	rs := s.newRecoveryScan()
	sc := s.startRecoveryScanner(files[idx:], s.cfg.CheckCRCOnRecover)
	end := walkCommitLog(files, idx, func(*mmap.MappedFile) (fileCheck, bool) { return sc.next(rs.record) })
	sc.finish() // before the cut may unmap a file it reads
	s.lg.Info("commit log recovered abnormally", zap.Int64("startOffset", files[idx].FileFromOffset()),
		zap.Int64("maxOffset", end), zap.Int("dispatched", rs.dispatched), zap.Int("skipped", rs.skipped))
	return recoverResult{startOffset: files[idx].FileFromOffset(), maxOffset: end}, s.cl.SetRecoveredEnd(end)
}

// walkCommitLog is the recovery walk over files[idx:]: check gives the
// verdict on each file in order (false: no more verdicts; after a crash
// it also dispatches the file's valid records). A file leads on into the
// next one only when it ended properly (blank record or its last byte).
// The result is the offset after the last valid record.
func walkCommitLog(files []*mmap.MappedFile, idx int, check func(*mmap.MappedFile) (fileCheck, bool)) int64 {
	end := files[idx].FileFromOffset()
	for i := idx; i < len(files); i++ {
		fc, ok := check(files[i])
		if !ok {
			break
		}
		end = fc.end
		if !fc.cont {
			break
		}
		if i+1 < len(files) {
			end = files[i+1].FileFromOffset()
		}
	}
	return end
}

// matchedRecover is Java isMappedFileMatchedRecover: the file's first
// record was stored no later than the checkpoint's min timestamp (the
// index's too when messageIndexSafe). A file without a record at its
// start, or whose first record has no store time (0; negative times,
// which no broker writes, count as none too), does not match.
func (s *DefaultMessageStore) matchedRecover(mf *mmap.MappedFile) bool {
	d := mf.Data()
	if len(d) < message.PosMagic+4 || int32(binary.BigEndian.Uint32(d[message.PosMagic:])) != message.MagicCode {
		return false
	}
	ts := storeTimestampOf(d)
	if ts <= 0 {
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

// record dispatches one valid record unless both dispatchers already hold
// it: its queue's units reach past it (ConsumeQueue.Put would ignore it)
// and it starts below the index end (BuildIndex would ignore it).
func (rs *recoveryScan) record(d *commitlog.DispatchRequest) {
	s := rs.s
	if d.CommitLogOffset >= rs.confirm {
		return
	}
	if d.CommitLogOffset < rs.indexEnd {
		tx := message.TransactionType(d.SysFlag)
		toCQ := tx == message.SysFlagTransactionNot || tx == message.SysFlagTransCommit
		cq := s.consumeQueue(d.Topic, d.QueueID)
		if !toCQ || (cq != nil && d.CommitLogOffset+int64(d.MsgSize) <= cq.MaxPhysicOffset()) {
			if toCQ {
				// what putMessagePositionInfo does for a duplicate
				if s.cfg.BrokerRole == Slave {
					s.ckpt.SetPhysicMsgTimestamp(d.StoreTimestamp)
				}
				s.ckpt.SetLogicsMsgTimestamp(d.StoreTimestamp)
			}
			rs.skipped++
			return
		}
	}
	s.doDispatch(d)
	rs.dispatched++
}
