package store

// What the dispatcher does when a consume-queue unit cannot be written (no
// file can be created: out of descriptors, disk full...). Java
// ConsumeQueue.putMessagePositionInfoWrapper retries 30 times, 1 s apart,
// then sets the logic-queue error (sends refused from then on) and moves on
// to the next record, so the unit is lost for good. Here the dispatcher
// stays on the record and keeps retrying with backoff: the first 30
// attempts as Java's, then doubling up to a ceiling. When a retry succeeds
// the error bit is cleared, sends are accepted again and dispatch resumes
// where it stopped, skipping nothing.

import (
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
)

const (
	// dispatchMaxRetries is how many failed attempts set the logic-queue
	// error (Java maxRetries in putMessagePositionInfoWrapper).
	dispatchMaxRetries = 30
	// dispatchStallLogEvery bounds the repeats of the stall's error log.
	dispatchStallLogEvery = 30 * time.Second
)

// WithDispatchRetry sets the pause between failed consume-queue writes for
// the first dispatchMaxRetries attempts (Java: 1 s) and the ceiling of the
// doubling backoff after them (default 5 s).
func WithDispatchRetry(interval, maxBackoff time.Duration) Option {
	return func(o *options) { o.dispatchRetry, o.dispatchMaxBackoff = interval, maxBackoff }
}

// dispatchStall describes the record the dispatcher cannot dispatch. A
// value is immutable once published in reputService.stall.
type dispatchStall struct {
	topic           string
	queueID         int32
	commitLogOffset int64
	err             error
	since           time.Time // first failure
	attempts        int
	next            time.Time // earliest next attempt
	lastLog         time.Time // last error log
	refusing        bool      // the logic-queue error is set
}

// String is the dispatchError value of the runtime info.
func (st *dispatchStall) String() string {
	state := "sends still accepted"
	if st.refusing {
		state = "sends refused"
	}
	return fmt.Sprintf("consume queue %s-%d cannot be written at commitLogOffset %d since %s (%d attempts, %s): %v",
		st.topic, st.queueID, st.commitLogOffset, st.since.UTC().Format(time.RFC3339), st.attempts, state, st.err)
}

// retryDue reports whether the dispatcher may try again: always, unless a
// failed record waits for its next attempt.
func (r *reputService) retryDue() bool {
	st := r.stall.Load()
	return st == nil || !time.Now().Before(st.next)
}

// failed records one more failed attempt at d, schedules the next one and,
// at dispatchMaxRetries, makes sends refused.
func (r *reputService) failed(d *commitlog.DispatchRequest, err error) {
	s, now := r.s, time.Now()
	st := dispatchStall{topic: d.Topic, queueID: d.QueueID, commitLogOffset: d.CommitLogOffset, err: err,
		since: now, attempts: 1, refusing: s.flags.bits.Load()&flagLogicsQueueErr != 0}
	if old := r.stall.Load(); old != nil && old.commitLogOffset == d.CommitLogOffset {
		st.since, st.attempts, st.lastLog = old.since, old.attempts+1, old.lastLog
	}
	fields := []zap.Field{zap.String("topic", d.Topic), zap.Int32("queueId", d.QueueID),
		zap.Int64("commitLogOffset", d.CommitLogOffset), zap.Int("attempts", st.attempts),
		zap.Int64("dispatchBehindBytes", r.behind()), zap.Error(err)}
	switch {
	case st.attempts < dispatchMaxRetries:
		s.lg.Warn("[BUG]put commit log position info failed, retrying", fields...)
	case !st.refusing:
		s.flags.makeLogicsQueueError()
		st.refusing, st.lastLog = true, now
		s.lg.Error("[BUG]consume queue can not write, refusing sends until it can", fields...)
	case now.Sub(st.lastLog) >= dispatchStallLogEvery:
		st.lastLog = now
		s.lg.Error("[BUG]consume queue still can not write, sends refused",
			append(fields, zap.Duration("stalledFor", now.Sub(st.since)))...)
	}
	st.next = now.Add(r.backoff(st.attempts))
	r.stall.Store(&st)
}

// backoff is the pause after the given number of failed attempts.
func (r *reputService) backoff(attempts int) time.Duration {
	d := r.s.opts.dispatchRetry
	if attempts < dispatchMaxRetries {
		return d
	}
	for i := dispatchMaxRetries; i <= attempts && d < r.s.opts.dispatchMaxBackoff; i++ {
		d *= 2
	}
	return min(d, r.s.opts.dispatchMaxBackoff)
}

// succeeded ends a stall, if any: the logic-queue error is cleared and
// sends are accepted again.
func (r *reputService) succeeded() {
	if r.stall.Load() == nil {
		return
	}
	st := r.stall.Swap(nil)
	fields := []zap.Field{zap.String("topic", st.topic), zap.Int32("queueId", st.queueID),
		zap.Int64("commitLogOffset", st.commitLogOffset), zap.Int("attempts", st.attempts),
		zap.Duration("stalledFor", time.Since(st.since))}
	if r.s.flags.clearLogicsQueueError() {
		r.s.lg.Warn("consume queue writable again, accepting sends", fields...)
		return
	}
	r.s.lg.Info("consume queue writable again, dispatch resumed", fields...)
}

// DispatchError describes the record the dispatcher cannot write to its
// consume queue, or is "" while dispatch keeps up.
func (s *DefaultMessageStore) DispatchError() string {
	if st := s.reput.stall.Load(); st != nil {
		return st.String()
	}
	return ""
}

// clearLogicsQueueError clears the logic-queue error bit and reports
// whether it was set. Unlike Java, that bit does not stop consume-queue
// writes (cqWriteBlockingFlag): the dispatcher retries the unit that set it.
func (f *runningFlags) clearLogicsQueueError() bool {
	return f.clear(flagLogicsQueueErr)&flagLogicsQueueErr != 0
}
