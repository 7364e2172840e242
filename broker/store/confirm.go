package store

import "github.com/rocketmq-go/rmq/broker/store/commitlog"

// AwaitConfirmed waits until the CommitLog up to end is flushed (SYNC_FLUSH)
// and replicated (SYNC_MASTER) as a waiting put requires, and returns PutOK
// or the put status naming what is still missing. The schedule and
// transaction services use it to finish a write whose put answered
// FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT or SLAVE_NOT_AVAILABLE without
// writing the record again.
func (s *DefaultMessageStore) AwaitConfirmed(end int64) commitlog.PutMessageStatus {
	return s.cl.AwaitConfirmed(end)
}
