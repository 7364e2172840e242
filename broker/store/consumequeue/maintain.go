package consumequeue

// Truncation, cleanup and time lookup of ConsumeQueue (Java
// ConsumeQueue.truncateDirtyLogicFiles, deleteExpiredFile, correctMinOffset,
// getOffsetInQueueByTime).

import (
	"fmt"

	"go.uber.org/zap"
)

// Units is a held view of consecutive units of one file.
type Units struct {
	mf interface{ Release() }
	// data holds whole units from StartOffset to the file's read position.
	data []byte
	// StartOffset is the byte offset (queue offset * 20) of the first unit.
	StartOffset int64
}

// Len is the number of units in the view.
func (u *Units) Len() int { return len(u.data) / UnitSize }

// Size is the view's length in bytes.
func (u *Units) Size() int { return len(u.data) - len(u.data)%UnitSize }

// At decodes unit i of the view.
func (u *Units) At(i int) (phyOffset int64, size int32, tagsCode int64) {
	return decodeUnit(u.data[i*UnitSize:])
}

// Release drops the hold on the file.
func (u *Units) Release() {
	if u.mf != nil {
		u.mf.Release()
		u.mf = nil
	}
}

// TruncateDirtyLogicFiles removes every unit whose CommitLog offset is at or
// beyond phyOffset (truncateDirtyLogicFiles).
func (cq *ConsumeQueue) TruncateDirtyLogicFiles(phyOffset int64) error {
	cq.wmu.Lock()
	defer cq.wmu.Unlock()
	cq.maxPhysicOffset.Store(phyOffset)
	for {
		mf := cq.q.LastMappedFile()
		if mf == nil {
			return nil
		}
		data := mf.Data()
		mf.SetPositions(0)
		for i := 0; i+UnitSize <= cq.fileSize; i += UnitSize {
			phy, size, _ := decodeUnit(data[i:])
			if i == 0 {
				if phy >= phyOffset {
					if err := cq.q.DeleteLastMappedFile(); err != nil {
						return fmt.Errorf("consumequeue: truncate %s-%d: %w", cq.topic, cq.queueID, err)
					}
					break
				}
			} else if phy < 0 || size <= 0 || phy >= phyOffset {
				// stale units must not reappear at the next recovery
				return mf.ZeroRange(i, cq.fileSize)
			}
			mf.SetPositions(int32(i + UnitSize))
			cq.maxPhysicOffset.Store(phy + int64(size))
			if i+UnitSize == cq.fileSize {
				return nil
			}
		}
	}
}

// DeleteExpiredFile deletes the leading files whose units all point below
// the CommitLog minimum offset minPhyOffset and corrects the minimum logic
// offset. It returns the number of files deleted.
func (cq *ConsumeQueue) DeleteExpiredFile(minPhyOffset int64) int {
	cq.wmu.Lock()
	n := cq.q.DeleteExpiredFileByOffset(minPhyOffset, UnitSize)
	cq.wmu.Unlock()
	cq.CorrectMinOffset(minPhyOffset)
	return n
}

// CorrectMinOffset moves the minimum logic offset to the first unit of the
// first file that points at or beyond phyMinOffset (correctMinOffset).
func (cq *ConsumeQueue) CorrectMinOffset(phyMinOffset int64) {
	mf := cq.q.FirstMappedFile()
	if mf == nil || !mf.Hold() {
		return
	}
	defer mf.Release()
	read := int(mf.ReadPosition())
	data := mf.Data()
	for i := 0; i+UnitSize <= read; i += UnitSize {
		phy, _, _ := decodeUnit(data[i:])
		if phy >= phyMinOffset {
			cq.minLogicOffset.Store(mf.FileFromOffset() + int64(i))
			cq.lg.Debug("compute logical min offset", zap.Int64("minOffset", cq.MinOffsetInQueue()))
			return
		}
	}
}

// StoreTimeFunc returns the store timestamp of the CommitLog record at
// phyOffset (size bytes), or a negative value when it cannot be read
// (CommitLog.pickupStoreTimestamp).
type StoreTimeFunc func(phyOffset int64, size int32) int64

// OffsetInQueueByTime returns the queue offset whose message was stored
// closest to timestamp (getOffsetInQueueByTime): the file is chosen by its
// modification time (first file modified at or after timestamp, else the
// last), then its units are binary-searched by store time. Units pointing
// below minPhyOffset are treated as older than timestamp.
func (cq *ConsumeQueue) OffsetInQueueByTime(timestamp, minPhyOffset int64, storeTime StoreTimeFunc) int64 {
	files := cq.q.Files()
	if len(files) == 0 {
		return 0
	}
	mf := files[len(files)-1]
	for _, f := range files {
		if f.LastModified().UnixMilli() >= timestamp {
			mf = f
			break
		}
	}
	if mf.ReadPosition() <= 0 || !mf.Hold() {
		return 0
	}
	defer mf.Release()
	data := mf.Data()[:mf.ReadPosition()]
	low := 0
	if m := cq.minLogicOffset.Load(); m > mf.FileFromOffset() {
		low = int(m - mf.FileFromOffset())
	}
	off, ok := searchByTime(data, low, timestamp, minPhyOffset, storeTime)
	if !ok {
		return 0
	}
	return (mf.FileFromOffset() + int64(off)) / UnitSize
}

// searchByTime is the binary search of getOffsetInQueueByTime over the
// units in data, starting at byte low. ok is false when a store time could
// not be read.
func searchByTime(data []byte, low int, timestamp, minPhyOffset int64, storeTime StoreTimeFunc) (int, bool) {
	high := len(data) - UnitSize
	target, left, right := -1, -1, -1
	leftValue, rightValue := int64(-1), int64(-1)
	for high >= low {
		mid := (low + high) / (2 * UnitSize) * UnitSize
		phy, size, _ := decodeUnit(data[mid:])
		if phy < minPhyOffset {
			low = mid + UnitSize
			left = mid
			continue
		}
		st := storeTime(phy, size)
		switch {
		case st < 0:
			return 0, false
		case st == timestamp:
			target = mid
		case st > timestamp:
			high = mid - UnitSize
			right, rightValue = mid, st
		default:
			low = mid + UnitSize
			left, leftValue = mid, st
		}
		if target != -1 {
			break
		}
	}
	switch {
	case target != -1:
		return target, true
	case leftValue == -1:
		return right, true
	case rightValue == -1:
		return left, true
	case abs(timestamp-leftValue) > abs(timestamp-rightValue):
		return right, true
	default:
		return left, true
	}
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
