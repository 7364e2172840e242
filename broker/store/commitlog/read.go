package commitlog

import (
	"encoding/binary"
	"fmt"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

// Buffer is a read-only view of mapped CommitLog bytes (Java
// SelectMappedBufferResult). Bytes stay valid until Release; call Release
// exactly once.
type Buffer struct {
	StartOffset int64  // physical offset of Bytes[0]
	Bytes       []byte // aliases the mapping: do not modify
	mf          *mmap.MappedFile
}

// Size is len(Bytes).
func (b *Buffer) Size() int { return len(b.Bytes) }

// Release returns the hold on the file.
func (b *Buffer) Release() {
	if b != nil && b.mf != nil {
		b.mf.Release()
		b.mf = nil
	}
}

// GetData returns the readable bytes from offset to the end of the readable
// part of its file (Java getData; HA transfer reads at most what it needs
// and releases). nil when offset is not readable.
func (c *CommitLog) GetData(offset int64) *Buffer {
	mf := c.q.FindMappedFileByOffset(offset, offset == 0)
	if mf == nil {
		return nil
	}
	pos := int(offset - mf.FileFromOffset())
	read := int(mf.ReadPosition())
	if pos < 0 || pos >= read || !mf.Hold() {
		return nil
	}
	return &Buffer{StartOffset: offset, Bytes: mf.Data()[pos:read:read], mf: mf}
}

// GetMessage returns the size bytes at offset (Java getMessage; size from the
// consume queue). nil when the range is not readable in one file.
func (c *CommitLog) GetMessage(offset int64, size int32) *Buffer {
	mf := c.q.FindMappedFileByOffset(offset, offset == 0)
	if mf == nil || size <= 0 {
		return nil
	}
	pos := int(offset - mf.FileFromOffset())
	end := pos + int(size)
	if pos < 0 || end > int(mf.ReadPosition()) || !mf.Hold() {
		return nil
	}
	return &Buffer{StartOffset: offset, Bytes: mf.Data()[pos:end:end], mf: mf}
}

// ReadRecord returns the whole record at offset, its size read from the
// header. Blank or invalid headers give ErrCorruptRecord.
func (c *CommitLog) ReadRecord(offset int64) (*Buffer, error) {
	b := c.GetMessage(offset, 8)
	if b == nil {
		return nil, fmt.Errorf("%w: %d", ErrNoSuchOffset, offset)
	}
	size := int32(binary.BigEndian.Uint32(b.Bytes))
	magic := int32(binary.BigEndian.Uint32(b.Bytes[4:]))
	b.Release()
	if magic != message.MagicCode || size < 8 {
		return nil, fmt.Errorf("%w at %d", ErrCorruptRecord, offset)
	}
	r := c.GetMessage(offset, size)
	if r == nil {
		return nil, fmt.Errorf("%w: %d+%d", ErrNoSuchOffset, offset, size)
	}
	return r, nil
}

// LookMessageByOffset decodes the record at offset (Java lookMessageByOffset).
// The body is copied, so the result outlives the mapping.
func (c *CommitLog) LookMessageByOffset(offset int64) (*message.MessageExt, error) {
	b, err := c.ReadRecord(offset)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	m, err := message.DecodeRecord(b.Bytes, true)
	if err != nil {
		return nil, fmt.Errorf("%w at %d: %v", ErrCorruptRecord, offset, err)
	}
	m.Body = append([]byte(nil), m.Body...)
	return m, nil
}

// PickupStoreTimestamp is the store time of the record at offset, -1 when it
// cannot be read (Java pickupStoreTimestamp).
func (c *CommitLog) PickupStoreTimestamp(offset int64, size int32) int64 {
	b := c.GetMessage(offset, size)
	if b == nil {
		return -1
	}
	defer b.Release()
	if len(b.Bytes) < message.PosSysFlag+4 {
		return -1
	}
	sys := int32(binary.BigEndian.Uint32(b.Bytes[message.PosSysFlag:]))
	p := message.StoreTimestampPos(sys)
	if p+8 > len(b.Bytes) {
		return -1
	}
	return int64(binary.BigEndian.Uint64(b.Bytes[p:]))
}
