package store

import "errors"

// ErrNotStarted is returned by SettleReplicatedTail before Start.
var ErrNotStarted = errors.New("store: not started")

// ErrDispatchStalled is returned by SettleReplicatedTail while the
// dispatcher is retrying a unit it could not write: the bytes after it are
// valid and must not be dropped.
var ErrDispatchStalled = errors.New("store: dispatcher stalled, cannot settle the commit log tail")

// SettleReplicatedTail prepares a replica's store to take puts as a master
// (Java AutoSwitchHAService.truncateInvalidMsg + recoverTopicQueueTable in
// changeToMaster). Call it once replication into the store has stopped: it
// dispatches every complete record, drops the bytes after the last one (a
// record cut off when the replication stream ended), and rebuilds the
// queue offset table from the consume queues, which a slave's appends do
// not maintain. It returns the CommitLog max offset afterwards.
func (s *DefaultMessageStore) SettleReplicatedTail() (int64, error) {
	if s.shutdown.Load() {
		return 0, ErrShutdown
	}
	if !s.started.Load() {
		return 0, ErrNotStarted // the reput offset is not known before Start
	}
	r := s.reput
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		for r.doReputLocked() {
		}
		if r.stall.Load() != nil {
			return 0, ErrDispatchStalled
		}
		from := r.from.Load()
		if from >= s.cl.MaxOffset() {
			break
		}
		if s.recordReadableAt(from) {
			continue // appended after the pass (a put racing the switch): dispatch it
		}
		if err := s.truncateCommitLogLocked(from); err != nil {
			return 0, err
		}
		break
	}
	s.recoverTopicQueueTable()
	return s.cl.MaxOffset(), nil
}

// recordReadableAt reports whether a whole record (or a file's blank end)
// starts at off.
func (s *DefaultMessageStore) recordReadableAt(off int64) bool {
	buf := s.cl.GetData(off)
	if buf == nil {
		return false
	}
	defer buf.Release()
	_, st := parseRecord(buf.Bytes, false)
	return st == recordValid || st == recordBlank
}
