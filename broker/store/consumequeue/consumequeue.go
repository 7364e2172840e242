package consumequeue

// This file mirrors Java org.apache.rocketmq.store.ConsumeQueue (4.9.8).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
)

// UnitSize is the size of one consume-queue unit (CQ_STORE_UNIT_SIZE).
const UnitSize = 20

// ErrNoFile is returned by Put when no mapped file can be created.
var ErrNoFile = errors.New("consumequeue: cannot create mapped file")

// blankUnit fills the positions before the first unit of a queue that starts
// at an offset > 0 (fillPreBlank).
var blankUnit = func() [UnitSize]byte {
	var b [UnitSize]byte
	binary.BigEndian.PutUint32(b[8:], math.MaxInt32)
	return b
}()

// ConsumeQueue is one logical queue (topic, queueId).
type ConsumeQueue struct {
	topic    string
	queueID  int32
	fileSize int
	q        *mmap.MappedFileQueue
	lg       *zap.Logger

	wmu sync.Mutex // serialises writers: Put, truncation, deletion, destroy

	maxPhysicOffset atomic.Int64 // CommitLog end of the last unit written (-1: none)
	minLogicOffset  atomic.Int64 // byte offset of the first valid unit
}

// New returns an unloaded queue stored under root/topic/queueID. fileSize
// must be a multiple of UnitSize.
func New(root, topic string, queueID int32, fileSize int, lg *zap.Logger) *ConsumeQueue {
	if lg == nil {
		lg = zap.NewNop()
	}
	dir := filepath.Join(root, topic, strconv.Itoa(int(queueID)))
	cq := &ConsumeQueue{
		topic:    topic,
		queueID:  queueID,
		fileSize: fileSize,
		q:        mmap.NewMappedFileQueue(dir, fileSize, mmap.QueueOptions{PopulateAhead: true, Sparse: true}, lg),
		lg:       lg.With(zap.String("topic", topic), zap.Int32("queueId", queueID)),
	}
	cq.maxPhysicOffset.Store(-1)
	return cq
}

// Topic is the queue's topic.
func (cq *ConsumeQueue) Topic() string { return cq.topic }

// QueueID is the queue's id.
func (cq *ConsumeQueue) QueueID() int32 { return cq.queueID }

// Dir is the directory holding the queue's files.
func (cq *ConsumeQueue) Dir() string { return cq.q.Dir() }

// Load maps the queue's existing files.
func (cq *ConsumeQueue) Load() error {
	if err := cq.q.Load(); err != nil {
		return fmt.Errorf("consumequeue: load %s-%d: %w", cq.topic, cq.queueID, err)
	}
	return nil
}

// decodeUnit reads the unit at b[0:20].
func decodeUnit(b []byte) (phy int64, size int32, tags int64) {
	return int64(binary.BigEndian.Uint64(b)), int32(binary.BigEndian.Uint32(b[8:])),
		int64(binary.BigEndian.Uint64(b[12:]))
}

// Recover finds the last valid unit, scanning from the third-last file, and
// truncates everything after it (ConsumeQueue.recover).
func (cq *ConsumeQueue) Recover() error {
	cq.wmu.Lock()
	defer cq.wmu.Unlock()
	files := cq.q.Files()
	if len(files) == 0 {
		return nil
	}
	idx := max(len(files)-3, 0)
	process := files[idx].FileFromOffset()
	for ; idx < len(files); idx++ {
		f := files[idx]
		process = f.FileFromOffset()
		n := cq.scanValid(f.Data())
		process += int64(n)
		if n != cq.fileSize {
			break
		}
	}
	cq.q.SetFlushedWhere(process)
	cq.q.SetCommittedWhere(process)
	if err := cq.q.TruncateDirtyFiles(process); err != nil {
		return fmt.Errorf("consumequeue: truncate %s-%d: %w", cq.topic, cq.queueID, err)
	}
	cq.lg.Debug("recover consume queue over", zap.Int64("logicOffset", process),
		zap.Int64("maxPhysicOffset", cq.maxPhysicOffset.Load()))
	return nil
}

// scanValid returns the byte length of the leading valid units of data and
// records the CommitLog end of the last one.
func (cq *ConsumeQueue) scanValid(data []byte) int {
	n := 0
	for ; n+UnitSize <= cq.fileSize && n+UnitSize <= len(data); n += UnitSize {
		phy, size, _ := decodeUnit(data[n:])
		if phy < 0 || size <= 0 {
			break
		}
		cq.maxPhysicOffset.Store(phy + int64(size))
	}
	return n
}

// Put writes the unit for queue offset cqOffset (putMessagePositionInfo).
// A unit already present is ignored and reported as success, as after a
// re-dispatch. ok is false when no file could be obtained.
func (cq *ConsumeQueue) Put(phyOffset int64, size int32, tagsCode, cqOffset int64) (bool, error) {
	cq.wmu.Lock()
	defer cq.wmu.Unlock()
	if phyOffset+int64(size) <= cq.maxPhysicOffset.Load() {
		if ce := cq.lg.Check(zap.DebugLevel, "maybe try to build consume queue repeatedly"); ce != nil {
			ce.Write(zap.Int64("maxPhysicOffset", cq.maxPhysicOffset.Load()), zap.Int64("commitLogOffset", phyOffset))
		}
		return true, nil
	}
	expect := cqOffset * UnitSize
	mf, err := cq.q.LastMappedFileOrCreate(expect)
	if err != nil || mf == nil {
		return false, errors.Join(ErrNoFile, err)
	}
	if mf.FirstCreateInQueue && cqOffset != 0 && mf.WrotePosition() == 0 {
		cq.minLogicOffset.Store(expect)
		cq.q.SetFlushedWhere(expect)
		cq.q.SetCommittedWhere(expect)
		cq.fillPreBlank(mf, expect)
		cq.lg.Info("fill pre blank space", zap.String("file", mf.FileName()), zap.Int64("logicOffset", expect))
	}
	if cqOffset != 0 {
		current := mf.FileFromOffset() + int64(mf.WrotePosition())
		if expect < current {
			if ce := cq.lg.Check(zap.DebugLevel, "build consume queue repeatedly"); ce != nil {
				ce.Write(zap.Int64("expectLogicOffset", expect), zap.Int64("currentLogicOffset", current))
			}
			return true, nil
		}
		if expect != current {
			cq.lg.Warn("logic queue order maybe wrong", zap.Int64("expectLogicOffset", expect),
				zap.Int64("currentLogicOffset", current))
		}
	}
	var unit [UnitSize]byte
	binary.BigEndian.PutUint64(unit[0:], uint64(phyOffset))
	binary.BigEndian.PutUint32(unit[8:], uint32(size))
	binary.BigEndian.PutUint64(unit[12:], uint64(tagsCode))
	if err := mf.Append(unit[:]); err != nil {
		return false, fmt.Errorf("consumequeue: put %s-%d offset %d: %w", cq.topic, cq.queueID, cqOffset, err)
	}
	cq.maxPhysicOffset.Store(phyOffset + int64(size))
	return true, nil
}

// blankChunkUnits is how many blank units fillPreBlank writes per call.
const blankChunkUnits = 4096

// fillPreBlank writes blank units before untilWhere in mf, a chunk per
// write rather than a unit per write.
func (cq *ConsumeQueue) fillPreBlank(mf *mmap.MappedFile, untilWhere int64) {
	until := int(untilWhere % int64(cq.fileSize))
	chunk := make([]byte, min(until, blankChunkUnits*UnitSize))
	for i := 0; i < len(chunk); i += UnitSize {
		copy(chunk[i:], blankUnit[:])
	}
	for left := until; left > 0; left -= len(chunk) {
		n := min(left, len(chunk))
		if err := mf.Append(chunk[:n]); err != nil {
			cq.lg.Warn("fill pre blank space failed", zap.String("file", mf.FileName()), zap.Error(err))
			return
		}
	}
}

// Units returns the units from queue offset startIndex to the end of the
// written part of its file (getIndexBuffer), or nil when that offset is
// below the minimum or not in any file. The caller must Release it.
func (cq *ConsumeQueue) Units(startIndex int64) *Units {
	offset := startIndex * UnitSize
	if offset < cq.minLogicOffset.Load() {
		return nil
	}
	mf := cq.q.FindMappedFileByOffset(offset, false)
	if mf == nil {
		return nil
	}
	pos := int(offset % int64(cq.fileSize))
	read := int(mf.ReadPosition())
	if pos < 0 || pos >= read || !mf.Hold() {
		return nil
	}
	return &Units{mf: mf, data: mf.Data()[pos:read], StartOffset: mf.FileFromOffset() + int64(pos)}
}

// LastOffset is the CommitLog end of the last unit of the last file, or -1
// (getLastOffset).
func (cq *ConsumeQueue) LastOffset() int64 {
	mf := cq.q.LastMappedFile()
	if mf == nil || !mf.Hold() {
		return -1
	}
	defer mf.Release()
	pos := max(int(mf.WrotePosition())-UnitSize, 0)
	last := int64(-1)
	data := mf.Data()
	for i := pos; i+UnitSize <= cq.fileSize; i += UnitSize {
		phy, size, _ := decodeUnit(data[i:])
		if phy < 0 || size <= 0 {
			break
		}
		last = phy + int64(size)
	}
	return last
}

// Flush writes dirty pages back when at least leastPages are dirty. It
// reports true when nothing was left to flush.
func (cq *ConsumeQueue) Flush(leastPages int) (bool, error) {
	return cq.q.Flush(leastPages)
}

// MinLogicOffset is the byte offset of the first valid unit.
func (cq *ConsumeQueue) MinLogicOffset() int64 { return cq.minLogicOffset.Load() }

// SetMinLogicOffset sets it.
func (cq *ConsumeQueue) SetMinLogicOffset(v int64) { cq.minLogicOffset.Store(v) }

// MinOffsetInQueue is the first valid queue offset.
func (cq *ConsumeQueue) MinOffsetInQueue() int64 { return cq.minLogicOffset.Load() / UnitSize }

// MaxOffsetInQueue is the next queue offset to be assigned.
func (cq *ConsumeQueue) MaxOffsetInQueue() int64 { return cq.q.MaxOffset() / UnitSize }

// MessageTotalInQueue is MaxOffsetInQueue - MinOffsetInQueue.
func (cq *ConsumeQueue) MessageTotalInQueue() int64 {
	return cq.MaxOffsetInQueue() - cq.MinOffsetInQueue()
}

// MaxPhysicOffset is the CommitLog end of the last unit (-1 when none).
func (cq *ConsumeQueue) MaxPhysicOffset() int64 { return cq.maxPhysicOffset.Load() }

// SetMaxPhysicOffset sets it.
func (cq *ConsumeQueue) SetMaxPhysicOffset(v int64) { cq.maxPhysicOffset.Store(v) }

// RollNextFile is the first queue offset of the file after the one holding
// index.
func (cq *ConsumeQueue) RollNextFile(index int64) int64 {
	per := int64(cq.fileSize / UnitSize)
	return index + per - index%per
}

// FileCount is the number of mapped files.
func (cq *ConsumeQueue) FileCount() int { return len(cq.q.Files()) }

// Shutdown unmaps the files without deleting them.
func (cq *ConsumeQueue) Shutdown() {
	cq.wmu.Lock()
	defer cq.wmu.Unlock()
	cq.q.Shutdown()
}

// Destroy deletes every file of the queue and resets its offsets.
func (cq *ConsumeQueue) Destroy() error {
	cq.wmu.Lock()
	defer cq.wmu.Unlock()
	cq.maxPhysicOffset.Store(-1)
	cq.minLogicOffset.Store(0)
	return cq.q.Destroy()
}
