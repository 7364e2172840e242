package commitlog

import (
	"encoding/binary"
	"strconv"

	"github.com/rocketmq-go/rmq/internal/message"
)

// DispatchRequest is what the reput/dispatch service and recovery need from
// one record (Java DispatchRequest).
//
// MsgSize > 0 and Success: a valid record. MsgSize == 0 and Success: a blank
// (end-of-file) record, continue at the next file. !Success: invalid;
// MsgSize > 0 then means "header sane but contents wrong" (Java logs a BUG
// and the reput skips it), MsgSize == -1 means unreadable.
type DispatchRequest struct {
	Topic                     string
	QueueID                   int32
	CommitLogOffset           int64
	MsgSize                   int32
	TagsCode                  int64
	StoreTimestamp            int64
	ConsumeQueueOffset        int64
	Keys                      string
	UniqKey                   string
	SysFlag                   int32
	PreparedTransactionOffset int64
	BornTimestamp             int64
	Properties                map[string]string
	Success                   bool
}

var invalidRecord = DispatchRequest{MsgSize: -1}

// CheckMessageAndReturnSize validates the record at the start of b and
// extracts its dispatch information (Java CommitLog.checkMessageAndReturnSize).
// With checkCRC the body CRC must match. It never panics on garbage.
func (c *CommitLog) CheckMessageAndReturnSize(b []byte, checkCRC bool) DispatchRequest {
	return CheckRecord(b, checkCRC, c.cfg.DelayLevelTable, c.cfg.MaxDelayLevel)
}

// CheckRecord is CheckMessageAndReturnSize without a CommitLog.
// delayTable/maxDelay give SCHEDULE_TOPIC_XXXX records their delivery time
// as tagsCode (nil: storeTimestamp + 1000, Java's fallback).
func CheckRecord(b []byte, checkCRC bool, delayTable map[int]int64, maxDelay int) DispatchRequest {
	if len(b) < 8 {
		return invalidRecord
	}
	be := binary.BigEndian
	total := int32(be.Uint32(b))
	switch int32(be.Uint32(b[4:])) {
	case message.MagicCode:
	case message.BlankMagicCode:
		return DispatchRequest{Success: true}
	default:
		return invalidRecord
	}
	if total < 8 || int(total) > len(b) {
		return invalidRecord
	}
	m, err := message.DecodeRecord(b[:total], checkCRC)
	if err != nil {
		return DispatchRequest{MsgSize: mismatchSize(err, total)}
	}
	if checkCRC && message.BodyCRC(m.Body) != m.BodyCRC {
		return invalidRecord
	}
	d := DispatchRequest{
		Topic: m.Topic, QueueID: m.QueueID, CommitLogOffset: m.CommitLogOffset, MsgSize: total,
		StoreTimestamp: m.StoreTimestamp, ConsumeQueueOffset: m.QueueOffset,
		Keys: m.Properties[message.PropertyKeys], UniqKey: m.Properties[message.PropertyUniqClientMessageIDKeyidx],
		SysFlag: m.SysFlag, PreparedTransactionOffset: m.PreparedTransactionOffset,
		BornTimestamp: m.BornTimestamp, Properties: m.Properties, Success: true,
	}
	d.TagsCode = message.TagsCode(m.Properties[message.PropertyTags])
	if m.Topic == message.ScheduleTopic {
		if lv, err := strconv.Atoi(m.Properties[message.PropertyDelayTimeLevel]); err == nil && lv > 0 {
			d.TagsCode = deliverTimestamp(lv, m.StoreTimestamp, delayTable, maxDelay)
		}
	}
	return d
}

// mismatchSize mirrors Java: a record whose fields disagree with TOTALSIZE
// reports (totalSize, false); anything else (-1, false).
func mismatchSize(err error, total int32) int32 {
	if err == message.ErrBadRecordSize { //nolint:errorlint // sentinel returned unwrapped
		return total
	}
	return -1
}

// deliverTimestamp is ScheduleMessageService.computeDeliverTimestamp with
// the level clamped to the max level.
func deliverTimestamp(level int, storeTS int64, table map[int]int64, maxLevel int) int64 {
	if maxLevel > 0 && level > maxLevel {
		level = maxLevel
	}
	if d, ok := table[level]; ok {
		return storeTS + d
	}
	return storeTS + 1000
}

// Scan walks the records from offset (which must be a record start),
// calling fn for each valid one, following blank records to the next file.
// It stops at the readable end, at an invalid record, or when fn returns
// false, and returns the offset of the first record not handed to fn.
func (c *CommitLog) Scan(offset int64, checkCRC bool, fn func(*DispatchRequest) bool) int64 {
	for {
		buf := c.GetData(offset)
		if buf == nil {
			return offset
		}
		next, cont := c.scanBuffer(buf, checkCRC, fn)
		buf.Release()
		if !cont || next == offset {
			return next
		}
		offset = next
	}
}

// scanBuffer handles one file's readable bytes; cont reports whether the
// walk may go on at next (new file).
func (c *CommitLog) scanBuffer(buf *Buffer, checkCRC bool, fn func(*DispatchRequest) bool) (int64, bool) {
	pos := 0
	for pos < len(buf.Bytes) {
		d := c.CheckMessageAndReturnSize(buf.Bytes[pos:], checkCRC)
		at := buf.StartOffset + int64(pos)
		switch {
		case d.Success && d.MsgSize == 0:
			return c.RollNextFile(at), true
		case !d.Success:
			return at, false
		}
		if d.CommitLogOffset != at || !fn(&d) {
			return at, false
		}
		pos += int(d.MsgSize)
	}
	return buf.StartOffset + int64(pos), true
}
