package store

// Read path: Java DefaultMessageStore.getMessage, the queue offset lookups,
// lookMessageByOffset / selectOneMessageByOffset and queryMessage.

import (
	"bytes"
	"math"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/consumequeue"
	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

// GetMessage reads up to maxMsgNums messages of (topic, queueID) starting at
// queue offset offset, keeping those filter accepts (Java getMessage). It
// returns nil when the store is shut down or unreadable.
func (s *DefaultMessageStore) GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int32,
	filter MessageFilter) *GetMessageResult {
	if s.shutdown.Load() {
		s.lg.Debug("message store has shutdown, so getMessage is forbidden")
		return nil
	}
	if !s.flags.isReadable() {
		s.lg.Debug("message store is not readable, so getMessage is forbidden")
		return nil
	}
	begin := time.Now()
	defer func() { s.stats.getDone(time.Since(begin)) }()
	res := &GetMessageResult{Status: NoMessageInQueue, NextBeginOffset: offset}
	maxOffsetPy := s.cl.MaxOffset()
	// Java findConsumeQueue creates the queue, so NO_MATCHED_LOGIC_QUEUE is
	// never reached in 4.9.8: an unknown queue is an empty one.
	cq := s.findConsumeQueue(topic, queueID)
	res.MinOffset, res.MaxOffset = cq.MinOffsetInQueue(), cq.MaxOffsetInQueue()
	switch {
	case res.MaxOffset == 0:
		res.Status, res.NextBeginOffset = NoMessageInQueue, s.nextOffsetCorrection(offset, 0)
	case offset < res.MinOffset:
		res.Status, res.NextBeginOffset = OffsetTooSmall, s.nextOffsetCorrection(offset, res.MinOffset)
	case offset == res.MaxOffset:
		res.Status, res.NextBeginOffset = OffsetOverflowOne, s.nextOffsetCorrection(offset, offset)
	case offset > res.MaxOffset:
		res.Status, res.NextBeginOffset = OffsetOverflowBadly, s.nextOffsetCorrection(offset, res.MaxOffset)
	default:
		units := cq.Units(offset)
		if units == nil {
			res.Status, res.NextBeginOffset = OffsetFoundNull, s.nextOffsetCorrection(offset, cq.RollNextFile(offset))
			s.lg.Warn("consumer request offset but access logic queue failed", zap.String("topic", topic),
				zap.Int64("offset", offset), zap.Int64("minOffset", res.MinOffset), zap.Int64("maxOffset", res.MaxOffset))
			break
		}
		s.scanUnits(res, units, offset, maxMsgNums, maxOffsetPy, filter)
		units.Release()
	}
	if res.Status == Found {
		s.stats.getFound.Add(1)
	} else {
		s.stats.getMiss.Add(1)
	}
	return res
}

// scanUnits is the FOUND branch of getMessage: walk the units, filter,
// locate the records and apply the transfer limits, then copy the records
// into one body allocated at its final size.
func (s *DefaultMessageStore) scanUnits(res *GetMessageResult, units *consumequeue.Units, offset int64,
	maxMsgNums int32, maxOffsetPy int64, filter MessageFilter) {
	res.Status = NoMatchedMessage
	nextPhyFileStart := int64(math.MinInt64)
	var maxPhyPulling int64
	var held [32]heldRecord // the usual batch needs no heap for its bookkeeping
	recs := held[:0]
	var hold holdSet
	total := 0
	maxFilter := max(16000, int(maxMsgNums)*consumequeue.UnitSize)
	i := 0
	for ; i < units.Size() && i < maxFilter; i += consumequeue.UnitSize {
		phy, size, tagsCode := units.At(i / consumequeue.UnitSize)
		maxPhyPulling = phy
		if nextPhyFileStart != math.MinInt64 && phy < nextPhyFileStart {
			continue
		}
		if s.isTheBatchFull(size, maxMsgNums, total, len(recs), s.checkInDiskByCommitOffset(phy, maxOffsetPy)) {
			break
		}
		if filter != nil && !filter.IsMatchedByConsumeQueue(tagsCode, nil) {
			if total == 0 {
				res.Status = NoMatchedMessage
			}
			continue
		}
		rec := hold.record(s.cl.MappedFileQueue(), phy, size)
		if rec == nil {
			if total == 0 {
				res.Status = MessageWasRemoving
			}
			nextPhyFileStart = s.cl.RollNextFile(phy)
			continue
		}
		if filter != nil && !filter.IsMatchedByCommitLog(rec, nil) {
			if total == 0 {
				res.Status = NoMatchedMessage
			}
			continue
		}
		recs = append(recs, heldRecord{rec})
		total += len(rec)
		res.Status = Found
		nextPhyFileStart = math.MinInt64
	}
	s.stats.getTransferred.Add(int64(len(recs)))
	res.NextBeginOffset = offset + int64(i/consumequeue.UnitSize)
	res.MaxPhyOffsetPulling = maxPhyPulling
	res.SuggestPullingFromSlave = maxOffsetPy-maxPhyPulling > s.memoryLimit()
	res.Body, res.Messages = copyRecords(recs)
	hold.release()
}

// heldRecord is a record's bytes in a mapping the holdSet holds.
type heldRecord struct{ b []byte }

// holdSet keeps a hold on every mapped file the records of one
// GetMessage come from (usually one or two), taken once per file instead
// of once per record.
type holdSet struct {
	files [4]*mmap.MappedFile
	more  []*mmap.MappedFile
	n     int
}

// record returns the size bytes at CommitLog offset phy, aliasing the
// mapping (held until release), or nil when that range is not readable
// within one file (Java CommitLog.getMessage returning null).
func (h *holdSet) record(q *mmap.MappedFileQueue, phy int64, size int32) []byte {
	mf := q.FindMappedFileByOffset(phy, phy == 0)
	if mf == nil || size <= 0 {
		return nil
	}
	pos := int(phy - mf.FileFromOffset())
	end := pos + int(size)
	if pos < 0 || end > int(mf.ReadPosition()) || !h.hold(mf) {
		return nil
	}
	return mf.Data()[pos:end:end]
}

// hold takes a hold on mf unless one is already held.
func (h *holdSet) hold(mf *mmap.MappedFile) bool {
	for i := 0; i < min(h.n, len(h.files)); i++ {
		if h.files[i] == mf {
			return true
		}
	}
	for _, f := range h.more {
		if f == mf {
			return true
		}
	}
	if !mf.Hold() {
		return false
	}
	if h.n < len(h.files) {
		h.files[h.n] = mf
	} else {
		h.more = append(h.more, mf)
	}
	h.n++
	return true
}

// release drops every hold.
func (h *holdSet) release() {
	for i := 0; i < min(h.n, len(h.files)); i++ {
		h.files[i].Release()
	}
	for _, f := range h.more {
		f.Release()
	}
	*h = holdSet{}
}

// copyRecords copies the records into one body and returns it with each
// message's slice of it. bytes.Join allocates the body without zeroing it
// first: make would clear up to 256 KiB per pull only to overwrite it.
func copyRecords(recs []heldRecord) ([]byte, [][]byte) {
	if len(recs) == 0 {
		return nil, nil
	}
	msgs := make([][]byte, len(recs))
	for i, r := range recs {
		msgs[i] = r.b
	}
	body := bytes.Join(msgs, nil)
	p := 0
	for i, m := range msgs {
		msgs[i] = body[p : p+len(m) : p+len(m)]
		p += len(m)
	}
	return body, msgs
}

// memoryLimit is totalPhysicalMemory * accessMessageInMemoryMaxRatio / 100.
func (s *DefaultMessageStore) memoryLimit() int64 {
	return int64(float64(s.opts.totalMemory) * (float64(s.liveConfig().AccessMessageInMemoryMaxRatio) / 100.0))
}

// checkInDiskByCommitOffset reports whether the record at offsetPy is
// probably no longer in the page cache (Java checkInDiskByCommitOffset).
func (s *DefaultMessageStore) checkInDiskByCommitOffset(offsetPy, maxOffsetPy int64) bool {
	return maxOffsetPy-offsetPy > s.memoryLimit()
}

// isTheBatchFull is Java isTheBatchFull: the hot/cold transfer limits.
func (s *DefaultMessageStore) isTheBatchFull(sizePy, maxMsgNums int32, bufferTotal, messageTotal int, inDisk bool) bool {
	if bufferTotal == 0 || messageTotal == 0 {
		return false
	}
	if int(maxMsgNums) <= messageTotal {
		return true
	}
	live := s.liveConfig()
	maxBytes, maxCount := live.MaxTransferBytesOnMessageInMemory, live.MaxTransferCountOnMessageInMemory
	if inDisk {
		maxBytes, maxCount = live.MaxTransferBytesOnMessageInDisk, live.MaxTransferCountOnMessageInDisk
	}
	return bufferTotal+int(sizePy) > maxBytes || messageTotal > maxCount-1
}

// nextOffsetCorrection moves a client only on a master (or with
// offsetCheckInSlave).
func (s *DefaultMessageStore) nextOffsetCorrection(oldOffset, newOffset int64) int64 {
	if !s.isSlave() || s.cfg.OffsetCheckInSlave {
		return newOffset
	}
	return oldOffset
}

// MaxOffsetInQueue is the next queue offset to be assigned (0 for a new queue).
func (s *DefaultMessageStore) MaxOffsetInQueue(topic string, queueID int32) int64 {
	return s.findConsumeQueue(topic, queueID).MaxOffsetInQueue()
}

// MinOffsetInQueue is the first valid queue offset.
func (s *DefaultMessageStore) MinOffsetInQueue(topic string, queueID int32) int64 {
	return s.findConsumeQueue(topic, queueID).MinOffsetInQueue()
}

// MessageTotalInQueue is max - min offset.
func (s *DefaultMessageStore) MessageTotalInQueue(topic string, queueID int32) int64 {
	return s.findConsumeQueue(topic, queueID).MessageTotalInQueue()
}

// firstUnit reads the unit at a queue offset.
func firstUnit(cq *consumequeue.ConsumeQueue, offset int64) (phy int64, size int32, ok bool) {
	u := cq.Units(offset)
	if u == nil {
		return 0, 0, false
	}
	defer u.Release()
	if u.Len() == 0 {
		return 0, 0, false
	}
	phy, size, _ = u.At(0)
	return phy, size, true
}

// CommitLogOffsetInQueue is the CommitLog offset of a queue offset (0 when
// unknown).
func (s *DefaultMessageStore) CommitLogOffsetInQueue(topic string, queueID int32, cqOffset int64) int64 {
	phy, _, _ := firstUnit(s.findConsumeQueue(topic, queueID), cqOffset)
	return phy
}

// OffsetInQueueByTime is the queue offset stored closest to timestamp
// (SEARCH_OFFSET_BY_TIMESTAMP).
func (s *DefaultMessageStore) OffsetInQueueByTime(topic string, queueID int32, timestamp int64) int64 {
	return s.findConsumeQueue(topic, queueID).OffsetInQueueByTime(timestamp, s.cl.MinOffset(), s.cl.PickupStoreTimestamp)
}

// storeTimeOfUnit is the store time of the record a queue offset points at.
func (s *DefaultMessageStore) storeTimeOfUnit(cq *consumequeue.ConsumeQueue, offset int64) int64 {
	phy, size, ok := firstUnit(cq, offset)
	if !ok || phy < s.cl.MinOffset() {
		return -1
	}
	return s.cl.PickupStoreTimestamp(phy, size)
}

// EarliestMessageTime is the store time of the queue's first message.
func (s *DefaultMessageStore) EarliestMessageTime(topic string, queueID int32) int64 {
	cq := s.findConsumeQueue(topic, queueID)
	return s.storeTimeOfUnit(cq, cq.MinLogicOffset()/consumequeue.UnitSize)
}

// MessageStoreTimeStamp is the store time of the message at a queue offset.
func (s *DefaultMessageStore) MessageStoreTimeStamp(topic string, queueID int32, cqOffset int64) int64 {
	return s.storeTimeOfUnit(s.findConsumeQueue(topic, queueID), cqOffset)
}

// EarliestMessageTimeOfStore is the store time of the record at the
// CommitLog min offset.
func (s *DefaultMessageStore) EarliestMessageTimeOfStore() int64 {
	b, err := s.cl.ReadRecord(s.cl.MinOffset())
	if err != nil {
		return -1
	}
	defer b.Release()
	return storeTimestampOf(b.Bytes)
}

func storeTimestampOf(rec []byte) int64 {
	if ts, ok := message.StoreTimestampOf(rec); ok {
		return ts
	}
	return -1
}

// CheckInDiskByConsumeOffset reports whether the message at a queue offset
// is probably out of the page cache.
func (s *DefaultMessageStore) CheckInDiskByConsumeOffset(topic string, queueID int32, consumeOffset int64) bool {
	phy, _, ok := firstUnit(s.findConsumeQueue(topic, queueID), consumeOffset)
	return ok && s.checkInDiskByCommitOffset(phy, s.cl.MaxOffset())
}

// LookMessageByOffset decodes the record at a CommitLog offset.
func (s *DefaultMessageStore) LookMessageByOffset(commitLogOffset int64) (*message.MessageExt, error) {
	return s.cl.LookMessageByOffset(commitLogOffset)
}

// SelectOneMessageByOffset copies the whole record at a CommitLog offset.
func (s *DefaultMessageStore) SelectOneMessageByOffset(commitLogOffset int64) []byte {
	b, err := s.cl.ReadRecord(commitLogOffset)
	if err != nil {
		return nil
	}
	defer b.Release()
	return slices.Clone(b.Bytes)
}

// SelectOneMessageByOffsetSize copies size bytes at a CommitLog offset.
func (s *DefaultMessageStore) SelectOneMessageByOffsetSize(commitLogOffset int64, size int32) []byte {
	b := s.cl.GetMessage(commitLogOffset, size)
	if b == nil {
		return nil
	}
	defer b.Release()
	return slices.Clone(b.Bytes)
}

// GetCommitLogData returns the readable bytes from offset to the end of its
// file; the caller must Release it.
func (s *DefaultMessageStore) GetCommitLogData(offset int64) *commitlog.Buffer {
	if s.shutdown.Load() {
		return nil
	}
	return s.cl.GetData(offset)
}

// MaxPhyOffset is the CommitLog's readable end.
func (s *DefaultMessageStore) MaxPhyOffset() int64 { return s.cl.MaxOffset() }

// MinPhyOffset is the CommitLog's first readable offset.
func (s *DefaultMessageStore) MinPhyOffset() int64 { return s.cl.MinOffset() }

// QueryMessage finds messages indexed under topic#key within [begin, end]
// (Java queryMessage: up to three passes, each narrowing the end to the
// store time of the oldest hit).
func (s *DefaultMessageStore) QueryMessage(topic, key string, maxNum int, begin, end int64) *QueryMessageResult {
	res := &QueryMessageResult{}
	lastQueryMsgTime := end
	for pass := 0; pass < 3; pass++ {
		q := s.idx.QueryOffset(topic, key, maxNum, begin, lastQueryMsgTime)
		if len(q.PhyOffsets) == 0 {
			break
		}
		slices.Sort(q.PhyOffsets)
		res.IndexLastUpdatePhyoffset = q.IndexLastUpdatePhyoffset
		res.IndexLastUpdateTimestamp = q.IndexLastUpdateTimestamp
		for m, off := range q.PhyOffsets {
			rec := s.SelectOneMessageByOffset(off)
			if rec == nil {
				continue
			}
			if m == 0 {
				lastQueryMsgTime = storeTimestampOf(rec)
			}
			res.Messages = append(res.Messages, rec)
		}
		if len(res.Messages) > 0 || lastQueryMsgTime < begin {
			break
		}
	}
	return res
}
