package commitlog

// AwaitConfirmed waits until the CommitLog up to end is as safe as a put
// that waits for its store (WAIT=true) needs: flushed under SYNC_FLUSH,
// acknowledged by a slave under SYNC_MASTER, each within syncFlushTimeout.
// It returns PutOK, or the status such a put would answer
// (FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT, SLAVE_NOT_AVAILABLE). With
// ASYNC_FLUSH on an ASYNC_MASTER nothing is awaited (PutOK).
//
// It lets a broker service that wrote a record and got an unconfirmed
// answer wait again for that same record instead of writing it twice.
func (c *CommitLog) AwaitConfirmed(end int64) PutMessageStatus {
	needFlush, needReplica := c.group != nil, c.isSyncMaster()
	if !needFlush && !needReplica {
		return PutOK
	}
	p := &pendingPut{ch: make(chan struct{}, 1)}
	p.res.Status = PutOK
	p.res.Append.WroteOffset = end
	c.startWaits(p, needFlush, needReplica)
	<-p.ch
	return p.res.Status
}
