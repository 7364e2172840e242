package commitlog

import (
	"encoding/binary"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

// RecoverResult tells the store what recovery found.
type RecoverResult struct {
	// StartOffset is where the validating scan began. After an abnormal
	// exit the store re-dispatches every record from here (Scan) to rebuild
	// consume queues and index; duplicates are the dispatcher's to skip.
	StartOffset int64
	// MaxOffset is the recovered end: first byte after the last valid
	// record. Everything after it was truncated (stale tail zeroed, later
	// files deleted). The store truncates consume queues that point beyond.
	MaxOffset int64
}

// RecoverNormally recovers after a clean shutdown (no abort file): validate
// from the third-last file, stop at the first invalid record (Java
// recoverNormally).
func (c *CommitLog) RecoverNormally() (RecoverResult, error) {
	files := c.q.Files()
	return c.recoverFrom(files, max(0, len(files)-3))
}

// RecoverAbnormally recovers after a crash (abort file present): start at
// the newest file whose first record was stored no later than the
// checkpoint's safe timestamp (Java recoverAbnormally /
// isMappedFileMatchedRecover), validate forward with the body CRC
// (checkCRCOnRecover) and cut the torn tail.
func (c *CommitLog) RecoverAbnormally() (RecoverResult, error) {
	files := c.q.Files()
	idx := 0
	for i := len(files) - 1; i >= 0; i-- {
		if c.matchedRecover(files[i]) {
			idx = i
			break
		}
	}
	return c.recoverFrom(files, idx)
}

func (c *CommitLog) matchedRecover(mf *mmap.MappedFile) bool {
	d := mf.Data()
	if len(d) < message.PosSysFlag+4 || int32(binary.BigEndian.Uint32(d[4:])) != message.MagicCode {
		return false
	}
	p := message.StoreTimestampPos(int32(binary.BigEndian.Uint32(d[message.PosSysFlag:])))
	if p+8 > len(d) {
		return false
	}
	ts := int64(binary.BigEndian.Uint64(d[p:]))
	if ts == 0 {
		return false
	}
	if c.cp == nil {
		return false
	}
	limit := c.cp.MinTimestamp()
	if c.cfg.MessageIndexEnable && c.cfg.MessageIndexSafe {
		limit = c.cp.MinTimestampIndex()
	}
	return ts <= limit
}

// recoverFrom validates records from files[idx] on and truncates after the
// last valid one.
func (c *CommitLog) recoverFrom(files []*mmap.MappedFile, idx int) (RecoverResult, error) {
	if len(files) == 0 {
		c.q.SetFlushedWhere(0)
		c.q.SetCommittedWhere(0)
		return RecoverResult{}, nil
	}
	start := files[idx].FileFromOffset()
	end := start
	for i := idx; i < len(files); i++ {
		next, cont := c.validateFile(files[i])
		end = next
		if !cont {
			break
		}
		if i+1 < len(files) {
			end = files[i+1].FileFromOffset()
		}
	}
	c.q.SetFlushedWhere(end)
	c.q.SetCommittedWhere(end)
	if err := c.q.TruncateDirtyFiles(end); err != nil {
		return RecoverResult{}, err
	}
	c.lg.Info("commit log recovered", zap.Int64("startOffset", start), zap.Int64("maxOffset", end))
	return RecoverResult{StartOffset: start, MaxOffset: end}, nil
}

// validateFile walks one file; it returns the offset after the last valid
// record and whether the walk ended on a blank record (go on with the next
// file).
func (c *CommitLog) validateFile(mf *mmap.MappedFile) (int64, bool) {
	data := mf.Data()
	pos := 0
	for pos < len(data) {
		at := mf.FileFromOffset() + int64(pos)
		d := c.CheckMessageAndReturnSize(data[pos:], c.cfg.CheckCRCOnRecover)
		switch {
		case d.Success && d.MsgSize == 0:
			return at, true
		case d.Success && d.CommitLogOffset == at:
			pos += int(d.MsgSize)
		default:
			return at, false
		}
	}
	return mf.FileFromOffset() + int64(pos), true
}
