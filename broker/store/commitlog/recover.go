package commitlog

import "go.uber.org/zap"

// SetRecoveredEnd makes offset the end of the log once the store's
// recovery (package store, recover.go) has found where the valid records
// end: the log counts as flushed and committed up to offset, the bytes
// after it in its file are zeroed and every later file is deleted (what
// Java recoverNormally / recoverAbnormally do to the MappedFileQueue after
// their walk). Call it between Load and Start; 0 on an empty log.
func (c *CommitLog) SetRecoveredEnd(offset int64) error {
	c.q.SetFlushedWhere(offset)
	c.q.SetCommittedWhere(offset)
	if err := c.q.TruncateDirtyFiles(offset); err != nil {
		return err
	}
	c.lg.Info("commit log cut at the recovered end", zap.Int64("maxOffset", offset))
	return nil
}
