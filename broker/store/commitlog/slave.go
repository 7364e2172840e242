package commitlog

import (
	"fmt"

	"go.uber.org/zap"
)

// AppendData writes bytes replicated from the master at startOffset, which
// must equal MaxOffset (Java CommitLog.appendData on a slave). The bytes are
// raw CommitLog content (records and blank fillers) and are copied as is,
// rolling to the next file at each file boundary.
func (c *CommitLog) AppendData(startOffset int64, data []byte) error {
	c.putMu.Lock()
	defer c.putMu.Unlock()
	if c.closed.Load() {
		return ErrClosed
	}
	if cur := c.q.MaxWrotePosition(); cur != startOffset && !(cur == 0 && c.q.LastMappedFile() == nil) {
		return fmt.Errorf("%w: got %d, have %d", ErrOffsetGap, startOffset, cur)
	}
	for off := startOffset; len(data) > 0; {
		mf, err := c.q.LastMappedFileOrCreate(off)
		if err != nil {
			return err
		}
		pos := int(mf.WrotePosition())
		if mf.FileFromOffset()+int64(pos) != off {
			return fmt.Errorf("%w: file %s at %d, want %d", ErrOffsetGap, mf.FileName(), pos, off)
		}
		n := min(len(data), c.cfg.FileSize-pos)
		if err := mf.Append(data[:n]); err != nil {
			return fmt.Errorf("commitlog: append replicated data at %d: %w", off, err)
		}
		data = data[n:]
		off += int64(n)
	}
	if c.flusher != nil && !c.cfg.FlushTimed {
		c.flusher.Wakeup()
	}
	if c.group != nil {
		c.group.svc.Wakeup()
	}
	return nil
}

// Truncate drops everything from offset on (a slave whose tail diverged
// from its master). The caller rebuilds consume queues and the topic queue
// table afterwards.
func (c *CommitLog) Truncate(offset int64) error {
	c.putMu.Lock()
	defer c.putMu.Unlock()
	if c.closed.Load() {
		return ErrClosed
	}
	if offset >= c.q.MaxWrotePosition() {
		return nil
	}
	if err := c.q.TruncateDirtyFiles(offset); err != nil {
		return err
	}
	c.q.SetFlushedWhere(min(c.q.FlushedWhere(), offset))
	c.q.SetCommittedWhere(min(c.q.CommittedWhere(), offset))
	c.lg.Warn("commit log truncated", zap.Int64("commitLogOffset", offset))
	return nil
}
