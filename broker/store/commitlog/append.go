package commitlog

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

// PutMessage appends m and waits for the flush / replica confirmation the
// configuration asks for (Java CommitLog.putMessage). With ASYNC_FLUSH and
// no SYNC_MASTER it returns without waiting; otherwise it blocks on a pooled
// waiter, so the call itself allocates nothing beyond the msgId string.
func (c *CommitLog) PutMessage(m *message.MessageExt) PutMessageResult {
	one := [1]*message.MessageExt{m}
	var info [1]recInfo
	res := c.put(one[:], info[:])
	if res.Status != PutOK {
		return res
	}
	return c.awaitDiskFlushAndHA(res, m)
}

// PutMessages appends a batch (all of one topic and queue, already split
// from the SEND_BATCH_MESSAGE body) as consecutive records in one file, and
// waits like PutMessage. A member with a transaction flag or a DELAY level,
// or members of different queues, give MESSAGE_ILLEGAL (Java rules).
func (c *CommitLog) PutMessages(ms []*message.MessageExt) PutMessageResult {
	if len(ms) == 0 || !batchAllowed(ms) {
		return PutMessageResult{Status: MessageIllegal}
	}
	res := c.put(ms, make([]recInfo, len(ms)))
	if res.Status != PutOK {
		return res
	}
	return c.awaitDiskFlushAndHA(res, ms[0])
}

// PutMessageAsync appends m under the append lock and calls done once the
// flush (SYNC_FLUSH) and replication (SYNC_MASTER) the message needs are
// confirmed or timed out (Java asyncPutMessage). done runs on another
// goroutine unless the result is final at once; it never blocks the caller.
//
// The CommitLog fills StoreTimestamp, QueueOffset, CommitLogOffset (in the
// stored bytes and in m), rewrites DELAY messages to SCHEDULE_TOPIC_XXXX,
// and computes BODYCRC. The caller sets topic, queueId, flag, body,
// PropertiesString, sysFlag, born/store host, bornTimestamp, reconsumeTimes
// and preparedTransactionOffset.
func (c *CommitLog) PutMessageAsync(m *message.MessageExt, done func(PutMessageResult)) {
	one := [1]*message.MessageExt{m}
	var info [1]recInfo
	res := c.put(one[:], info[:])
	if res.Status != PutOK {
		done(res)
		return
	}
	c.handleDiskFlushAndHA(res, m, done)
}

// PutMessagesAsync is the batch form of PutMessageAsync.
func (c *CommitLog) PutMessagesAsync(ms []*message.MessageExt, done func(PutMessageResult)) {
	if len(ms) == 0 || !batchAllowed(ms) {
		done(PutMessageResult{Status: MessageIllegal})
		return
	}
	res := c.put(ms, make([]recInfo, len(ms)))
	if res.Status != PutOK {
		done(res)
		return
	}
	c.handleDiskFlushAndHA(res, ms[0], done)
}

// batchAllowed applies Java asyncPutMessages' rules: no transaction flag and
// no delay level in a batch, and one topic/queue for all members.
func batchAllowed(ms []*message.MessageExt) bool {
	for _, m := range ms {
		if message.TransactionType(m.SysFlag) != message.SysFlagTransactionNot {
			return false
		}
		if lv, err := strconv.Atoi(message.PropertyValue(m.PropertiesString, message.PropertyDelayTimeLevel)); err == nil && lv > 0 {
			return false
		}
		if m.Topic != ms[0].Topic || m.QueueID != ms[0].QueueID {
			return false
		}
	}
	return true
}

// recInfo is what is known about a record before the append lock: its
// stored size, the sysFlag to store and its BODYCRC.
type recInfo struct {
	size int
	sys  int32
	crc  int32
}

// put validates, sizes and checksums ms outside the lock (Java
// MessageExtEncoder's work), then renders them straight into the mapped
// file under it. infos has len(ms) entries and is filled here.
func (c *CommitLog) put(ms []*message.MessageExt, infos []recInfo) PutMessageResult {
	if c.closed.Load() {
		return PutMessageResult{Status: ServiceNotAvailable}
	}
	if len(ms) == 1 {
		c.rewriteDelay(ms[0])
	}
	total, status := c.measure(ms, infos)
	if status != PutOK {
		return PutMessageResult{Status: status, Append: AppendMessageResult{Status: appendStatusFor(status)}}
	}
	res := c.appendLocked(ms, infos, total)
	if res.Status == PutOK {
		res.Append.MsgID = msgIDs(ms) // formatted outside the lock
	}
	return res
}

func appendStatusFor(s PutMessageStatus) AppendMessageStatus {
	switch s {
	case MessageIllegal:
		return AppendMessageSizeExceeded
	case PropertiesSizeExceeded:
		return AppendPropertiesSizeExceeded
	}
	return AppendUnknownError
}

// rewriteDelay moves a delayed message to SCHEDULE_TOPIC_XXXX (Java
// asyncPutMessage): level clamped to the max, queueId = level-1, REAL_TOPIC
// and REAL_QID appended to the properties.
//
// The level is read from m.Properties when the caller set that map (Java's
// getDelayTimeLevel reads the live map, not the rendered string): the
// schedule service stores a due message with DELAY kept in the string, as
// Java does, but absent from the map, so it is not delayed again.
func (c *CommitLog) rewriteDelay(m *message.MessageExt) {
	t := message.TransactionType(m.SysFlag)
	if c.cfg.MaxDelayLevel <= 0 || (t != message.SysFlagTransactionNot && t != message.SysFlagTransCommit) {
		return
	}
	lv := message.PropertyValue(m.PropertiesString, message.PropertyDelayTimeLevel)
	if m.Properties != nil {
		lv = m.Properties[message.PropertyDelayTimeLevel]
	}
	if lv == "" {
		return
	}
	level, err := strconv.Atoi(lv)
	if err != nil || level <= 0 {
		return
	}
	props := m.PropertiesString
	if level > c.cfg.MaxDelayLevel {
		level = c.cfg.MaxDelayLevel
		props = message.RemoveProperty(props, message.PropertyDelayTimeLevel)
		props = message.AppendProperty(props, message.PropertyDelayTimeLevel, strconv.Itoa(level))
	}
	props = message.AppendProperty(props, message.PropertyRealTopic, m.Topic)
	props = message.AppendProperty(props, message.PropertyRealQueueID, strconv.Itoa(int(m.QueueID)))
	m.PropertiesString = props
	if m.Properties != nil {
		m.Properties = message.UnmarshalProperties(props)
	}
	m.Topic = message.ScheduleTopic
	m.QueueID = int32(level - 1)
}

// measure checks every record against Java's limits and fills infos; it
// returns the total size. The body CRC is computed here, off the lock.
func (c *CommitLog) measure(ms []*message.MessageExt, infos []recInfo) (int, PutMessageStatus) {
	total := 0
	for i, m := range ms {
		if len(m.PropertiesString) > message.MaxPropertiesLength {
			return 0, PropertiesSizeExceeded
		}
		if m.Topic == "" {
			return 0, MessageIllegal
		}
		n, sys, err := message.RecordSize(m)
		if err != nil {
			return 0, MessageIllegal
		}
		if limit := c.maxMessageSize(); n > limit { // Java compares the whole record length
			c.lg.Warn("message size exceeded", zap.String("topic", m.Topic), zap.Int("msgSize", n),
				zap.Int("maxMessageSize", limit))
			return 0, MessageIllegal
		}
		infos[i] = recInfo{size: n, sys: sys, crc: message.BodyCRC(m.Body)}
		total += n
	}
	if total+message.BlankRecordLen > c.cfg.FileSize {
		return 0, MessageIllegal
	}
	return total, PutOK
}

func hostFlagsOf(m *message.MessageExt) int32 {
	var f int32
	if a := m.BornHost.Addr(); a.Is6() && !a.Is4In6() {
		f |= message.SysFlagBornHostV6
	}
	if a := m.StoreHost.Addr(); a.Is6() && !a.Is4In6() {
		f |= message.SysFlagStoreHostV6
	}
	return f
}

// appendLocked renders the records into the last file under the append
// lock, rolling to a new file with a blank record when they do not fit, and
// assigns physical offsets, queue offsets and the store time. The lock
// covers only position bookkeeping and the copy into the mapping.
func (c *CommitLog) appendLocked(ms []*message.MessageExt, infos []recInfo, total int) PutMessageResult {
	c.putMu.Lock()
	start := time.Now()
	now := start.UnixMilli()
	c.beginTimeInLock.Store(now)
	defer func() {
		c.beginTimeInLock.Store(0)
		c.putMu.Unlock()
	}()
	if c.closed.Load() {
		return PutMessageResult{Status: ServiceNotAvailable}
	}
	mf, err := c.fileFor(total)
	if err != nil || mf == nil {
		c.lg.Error("create mapped file failed", zap.Error(err))
		return PutMessageResult{Status: CreateMappedFileFailed, Append: AppendMessageResult{Status: AppendUnknownError}}
	}
	pos := int(mf.WrotePosition())
	phys := mf.FileFromOffset() + int64(pos)
	var first int64
	if err := mmap.Guard(func() { first = c.render(mf.Data()[pos:pos+total], ms, infos, phys, now) }); err != nil {
		// Nothing is published: the position and the queue offsets stay.
		c.lg.Error("append message into mapped file failed", zap.String("file", mf.FileName()), zap.Error(err))
		return PutMessageResult{Status: UnknownError, Append: AppendMessageResult{Status: AppendUnknownError}}
	}
	mf.SetStoreTimestamp(now)
	mf.SetWrotePosition(int32(pos + total))
	mf.WarmAhead()
	return PutMessageResult{Status: PutOK, Append: AppendMessageResult{
		Status: AppendPutOK, WroteOffset: phys, WroteBytes: int32(total),
		StoreTimestamp: now, LogicsOffset: first,
		MsgNum: int32(len(ms)), PagecacheRT: time.Since(start).Milliseconds(),
	}}
}

// fileFor returns the file to write n bytes into, closing the current one
// with a blank record when n + 8 does not fit (END_OF_FILE).
func (c *CommitLog) fileFor(n int) (*mmap.MappedFile, error) {
	mf, err := c.q.LastMappedFileOrCreate(0)
	if err != nil {
		return nil, err
	}
	pos := int(mf.WrotePosition())
	left := c.cfg.FileSize - pos
	if n+message.BlankRecordLen <= left {
		return mf, nil
	}
	if left >= message.BlankRecordLen {
		d := mf.Data()[pos:]
		err := mmap.Guard(func() {
			binary.BigEndian.PutUint32(d, uint32(left))
			blank := message.BlankMagicCode
			binary.BigEndian.PutUint32(d[4:], uint32(blank))
		})
		if err != nil {
			return nil, fmt.Errorf("commitlog: end-of-file record: %w", err)
		}
	}
	mf.SetWrotePosition(int32(c.cfg.FileSize))
	mf.FinishWriting()
	return c.q.LastMappedFileOrCreate(0)
}

// render assigns queue offset, physical offset and store time to each
// message, writes its record into dst and advances the topic queue table.
// It returns the first queue offset. Called under putMu.
func (c *CommitLog) render(dst []byte, ms []*message.MessageExt, infos []recInfo, phys, now int64) int64 {
	m0 := ms[0]
	c.keyBuf = strconv.AppendInt(append(append(c.keyBuf[:0], m0.Topic...), '-'), int64(m0.QueueID), 10)
	slot := c.topicQueueTable[string(c.keyBuf)] // no allocation for the lookup
	if slot == nil {
		slot = new(int64)
		c.topicQueueTable[string(c.keyBuf)] = slot
	}
	next := *slot
	t := message.TransactionType(m0.SysFlag)
	assign := t == message.SysFlagTransactionNot || t == message.SysFlagTransCommit
	first := next
	if !assign {
		first = 0
	}
	off := 0
	for i, m := range ms {
		in := infos[i]
		qo := int64(0)
		if assign {
			qo = next + int64(i)
		}
		m.QueueOffset, m.CommitLogOffset, m.StoreTimestamp, m.StoreSize = qo, phys+int64(off), now, int32(in.size)
		m.SysFlag = in.sys
		message.PutRecord(dst[off:off+in.size], m, in.sys, in.crc)
		off += in.size
	}
	if assign {
		*slot = next + int64(len(ms))
	}
	return first
}

func msgIDs(ms []*message.MessageExt) string {
	if len(ms) == 1 {
		return message.OffsetMsgID(ms[0].StoreHost, ms[0].CommitLogOffset)
	}
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(message.OffsetMsgID(m.StoreHost, m.CommitLogOffset))
	}
	return b.String()
}
