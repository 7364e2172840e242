package commitlog

// SetMaxMessageSize changes the record length limit appends check from now
// on (UPDATE_BROKER_CONFIG maxMessageSize; Java's CommitLog re-reads it per
// put). n <= 0 restores the configured limit.
func (c *CommitLog) SetMaxMessageSize(n int) { c.maxMsgSize.Store(int64(n)) }

// maxMessageSize is the limit in force: the live one, else the configured.
func (c *CommitLog) maxMessageSize() int {
	if n := c.maxMsgSize.Load(); n > 0 {
		return int(n)
	}
	return c.cfg.MaxMessageSize
}
