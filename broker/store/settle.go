package store

import "fmt"

// ErrDispatchStalled is returned by SettleReplicatedTail while the
// dispatcher is retrying a unit it could not write: the bytes after it are
// valid and must not be dropped.
var ErrDispatchStalled = fmt.Errorf("store: dispatcher stalled, cannot settle the commit log tail")

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
	r := s.reput
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.started.Load() {
		for r.doReputLocked() {
		}
	}
	if r.stall.Load() != nil {
		return 0, ErrDispatchStalled
	}
	if from := r.from.Load(); from < s.cl.MaxOffset() {
		if err := s.truncateCommitLogLocked(from); err != nil {
			return 0, err
		}
	}
	s.recoverTopicQueueTable()
	return s.cl.MaxOffset(), nil
}
