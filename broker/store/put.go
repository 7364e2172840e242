package store

// Write path: Java DefaultMessageStore.asyncPutMessage(s), checkStoreStatus,
// checkMessage(s), isOSPageCacheBusy, RunningFlags.

import (
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
)

// runningFlags is Java RunningFlags: bits that make the store unreadable or
// unwritable.
type runningFlags struct{ bits atomic.Int32 }

const (
	flagNotReadable     = 1
	flagNotWriteable    = 1 << 1
	flagLogicsQueueErr  = 1 << 2
	flagIndexFileErr    = 1 << 3
	flagDiskFull        = 1 << 4
	writeBlockingFlags  = flagNotWriteable | flagLogicsQueueErr | flagDiskFull | flagIndexFileErr
	cqWriteBlockingFlag = flagNotWriteable | flagIndexFileErr // not flagLogicsQueueErr: see dispatch_stall.go
)

func (f *runningFlags) set(b int32) (was int32) {
	for {
		old := f.bits.Load()
		if f.bits.CompareAndSwap(old, old|b) {
			return old
		}
	}
}

func (f *runningFlags) clear(b int32) (was int32) {
	for {
		old := f.bits.Load()
		if f.bits.CompareAndSwap(old, old&^b) {
			return old
		}
	}
}

func (f *runningFlags) isReadable() bool      { return f.bits.Load()&flagNotReadable == 0 }
func (f *runningFlags) isWriteable() bool     { return f.bits.Load()&writeBlockingFlags == 0 }
func (f *runningFlags) isCQWriteable() bool   { return f.bits.Load()&cqWriteBlockingFlag == 0 }
func (f *runningFlags) makeLogicsQueueError() { f.set(flagLogicsQueueErr) }
func (f *runningFlags) makeIndexFileError()   { f.set(flagIndexFileErr) }

// makeDiskFull sets the disk-full bit and reports whether it was clear.
func (f *runningFlags) makeDiskFull() bool { return f.set(flagDiskFull)&flagDiskFull == 0 }

// makeDiskOK clears the disk-full bit and reports whether it was clear.
func (f *runningFlags) makeDiskOK() bool { return f.clear(flagDiskFull)&flagDiskFull == 0 }

// IsDiskFull reports whether writes are refused because the disk is full.
func (s *DefaultMessageStore) IsDiskFull() bool { return s.flags.bits.Load()&flagDiskFull != 0 }

// checkStoreStatus is Java checkStoreStatus.
func (s *DefaultMessageStore) checkStoreStatus() commitlog.PutMessageStatus {
	switch {
	case s.shutdown.Load() || !s.started.Load():
		s.lg.Debug("message store has shutdown, so putMessage is forbidden")
		return commitlog.ServiceNotAvailable
	case s.isSlave():
		s.lg.Debug("broke role is slave, so putMessage is forbidden")
		return commitlog.ServiceNotAvailable
	case s.role.fenced.Load():
		s.lg.Debug("the message store is fenced, so putMessage is forbidden")
		return commitlog.ServiceNotAvailable
	case !s.flags.isWriteable():
		s.lg.Debug("the message store is not writable", zap.Int32("flagBits", s.flags.bits.Load()))
		return commitlog.ServiceNotAvailable
	case s.IsOSPageCacheBusy():
		return commitlog.OSPageCacheBusy
	}
	return commitlog.PutOK
}

// checkMessage is Java checkMessage: topic and properties length limits.
func checkMessage(m *message.MessageExt) commitlog.PutMessageStatus {
	if len(m.Topic) > message.MaxTopicLength || len(m.PropertiesString) > message.MaxPropertiesLength {
		return commitlog.MessageIllegal
	}
	return commitlog.PutOK
}

// IsOSPageCacheBusy reports whether the running append has held the lock
// longer than osPageCacheBusyTimeOutMills.
func (s *DefaultMessageStore) IsOSPageCacheBusy() bool {
	begin := s.cl.BeginTimeInLock()
	if begin == 0 {
		return false
	}
	diff := s.Now() - begin
	return diff < 10000000 && diff > s.cfg.OSPageCacheBusyTimeOutMills
}

// LockTimeMills is how long the running append has held the lock (0 when
// none), Java lockTimeMills.
func (s *DefaultMessageStore) LockTimeMills() int64 {
	begin := s.cl.BeginTimeInLock()
	if begin == 0 {
		return 0
	}
	return s.Now() - begin
}

// PutMessageAsync stores m and calls done with the result once the flush
// and replication it needs are confirmed (Java asyncPutMessage). The append
// itself happens before PutMessageAsync returns.
func (s *DefaultMessageStore) PutMessageAsync(m *message.MessageExt, done func(commitlog.PutMessageResult)) {
	if st := s.checkStoreStatus(); st != commitlog.PutOK {
		done(commitlog.PutMessageResult{Status: st})
		return
	}
	if st := checkMessage(m); st != commitlog.PutOK {
		s.lg.Warn("putMessage message illegal", zap.Int("topicLength", len(m.Topic)),
			zap.Int("propertiesLength", len(m.PropertiesString)))
		done(commitlog.PutMessageResult{Status: st})
		return
	}
	if st := s.checkInSyncReplicas(m); st != commitlog.PutOK {
		done(commitlog.PutMessageResult{Status: st})
		return
	}
	begin := time.Now()
	topic := m.Topic
	s.cl.PutMessageAsync(m, s.afterPut(begin, topic, done))
	s.reput.svc.Wakeup()
}

// PutMessagesAsync is the batch form of PutMessageAsync (Java
// asyncPutMessages): every message of ms goes to the same queue.
func (s *DefaultMessageStore) PutMessagesAsync(ms []*message.MessageExt, done func(commitlog.PutMessageResult)) {
	if st := s.checkStoreStatus(); st != commitlog.PutOK {
		done(commitlog.PutMessageResult{Status: st})
		return
	}
	total := 0
	for _, m := range ms {
		if st := checkMessage(m); st != commitlog.PutOK {
			done(commitlog.PutMessageResult{Status: st})
			return
		}
		total += len(m.Body)
	}
	if total > s.liveConfig().MaxMessageSize {
		s.lg.Warn("putMessages body length too long", zap.Int("bodyLength", total))
		done(commitlog.PutMessageResult{Status: commitlog.MessageIllegal})
		return
	}
	topic := ""
	if len(ms) > 0 {
		topic = ms[0].Topic
		if st := s.checkInSyncReplicas(ms[0]); st != commitlog.PutOK {
			done(commitlog.PutMessageResult{Status: st})
			return
		}
	}
	s.cl.PutMessagesAsync(ms, s.afterPut(time.Now(), topic, done))
	s.reput.svc.Wakeup()
}

// afterPut wraps done with the statistics Java keeps.
func (s *DefaultMessageStore) afterPut(begin time.Time, topic string, done func(commitlog.PutMessageResult)) func(commitlog.PutMessageResult) {
	return func(r commitlog.PutMessageResult) {
		elapsed := time.Since(begin)
		if elapsed > 500*time.Millisecond {
			s.lg.Warn("putMessage not in lock elapsed time", zap.Duration("took", elapsed))
		}
		s.stats.putDone(topic, r, elapsed)
		s.markDiskFullOnWriteFailure(r.Status)
		done(r)
	}
}

// markDiskFullOnWriteFailure sets the disk-full flag when the CommitLog
// could not create (reserve) its next file or a store into its mapping
// faulted: both mean the filesystem has no block for it. Later puts then
// get SERVICE_NOT_AVAILABLE at once instead of each retrying; the disk
// check (isSpaceFull, every diskCheckInterval) clears the flag once usage
// is back under the warning ratio, and the next put tries the file again.
func (s *DefaultMessageStore) markDiskFullOnWriteFailure(st commitlog.PutMessageStatus) {
	if st != commitlog.CreateMappedFileFailed && st != commitlog.UnknownError {
		return
	}
	if s.flags.makeDiskFull() {
		s.lg.Error("cannot write the commit log, so mark disk full", zap.Stringer("status", st))
	}
}

// PutMessage is the blocking form of PutMessageAsync.
func (s *DefaultMessageStore) PutMessage(m *message.MessageExt) commitlog.PutMessageResult {
	ch := make(chan commitlog.PutMessageResult, 1)
	s.PutMessageAsync(m, func(r commitlog.PutMessageResult) { ch <- r })
	return <-ch
}

// PutMessages is the blocking form of PutMessagesAsync.
func (s *DefaultMessageStore) PutMessages(ms []*message.MessageExt) commitlog.PutMessageResult {
	ch := make(chan commitlog.PutMessageResult, 1)
	s.PutMessagesAsync(ms, func(r commitlog.PutMessageResult) { ch <- r })
	return <-ch
}

// AppendToCommitLog appends bytes replicated from the master (slave) and
// wakes the dispatcher (Java appendToCommitLog).
func (s *DefaultMessageStore) AppendToCommitLog(startOffset int64, data []byte) error {
	if s.shutdown.Load() {
		return ErrShutdown
	}
	if err := s.cl.AppendData(startOffset, data); err != nil {
		s.lg.Error("appendToPhyQueue failed", zap.Int64("commitLogOffset", startOffset), zap.Error(err))
		return err
	}
	s.reput.svc.Wakeup()
	return nil
}

// TruncateCommitLog drops CommitLog data from offset on, the consume-queue
// units and index entries pointing there, and rebuilds the queue offset
// table; the dispatcher restarts at offset if it was beyond.
func (s *DefaultMessageStore) TruncateCommitLog(offset int64) error {
	s.reput.mu.Lock() // no dispatch pass runs over the tail being dropped
	defer s.reput.mu.Unlock()
	return s.truncateCommitLogLocked(offset)
}

func (s *DefaultMessageStore) truncateCommitLogLocked(offset int64) error {
	if err := s.cl.Truncate(offset); err != nil {
		return err
	}
	if err := s.truncateDirtyLogicFiles(offset); err != nil {
		return err
	}
	if err := s.idx.Truncate(offset); err != nil {
		return err
	}
	for {
		cur := s.reput.from.Load()
		if cur <= offset || s.reput.from.CompareAndSwap(cur, offset) {
			break
		}
	}
	s.recoverTopicQueueTable()
	return nil
}

// ConfirmOffset is the CommitLog offset confirmed by replication.
func (s *DefaultMessageStore) ConfirmOffset() int64 { return s.cl.ConfirmOffset() }

// SetConfirmOffset sets it.
func (s *DefaultMessageStore) SetConfirmOffset(v int64) { s.cl.SetConfirmOffset(v) }

// Flush flushes the CommitLog and returns the flushed offset.
func (s *DefaultMessageStore) Flush() int64 {
	for i := 0; i < 1000; i++ {
		noMove, err := s.cl.MappedFileQueue().Flush(0)
		if err != nil || noMove {
			break
		}
	}
	return s.cl.FlushedWhere()
}

// IsTransientStorePoolDeficient is always false (no write buffer pool).
func (s *DefaultMessageStore) IsTransientStorePoolDeficient() bool { return false }
