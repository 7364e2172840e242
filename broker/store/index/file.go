package index

// This file mirrors Java org.apache.rocketmq.store.index.IndexFile and
// IndexHeader (4.9.8).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"syscall"
	"unicode/utf8"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

// Layout constants.
const (
	HeaderSize   = 40 // IndexHeader.INDEX_HEADER_SIZE
	hashSlotSize = 4
	EntrySize    = 20 // keyHash i32, phyOffset i64, timeDiff i32, prevIndex i32
	invalidIndex = 0

	offBeginTimestamp = 0
	offEndTimestamp   = 8
	offBeginPhyOffset = 16
	offEndPhyOffset   = 24
	offHashSlotCount  = 32
	offIndexCount     = 36
)

// ErrBadIndexFile is returned when an index file has the wrong size.
var ErrBadIndexFile = errors.New("index: bad index file")

// Header is the 40-byte index file header.
type Header struct {
	BeginTimestamp int64
	EndTimestamp   int64
	BeginPhyOffset int64
	EndPhyOffset   int64
	HashSlotCount  int32
	IndexCount     int32 // starts at 1: entry numbers are 1-based
}

// DecodeHeader reads a header from b[0:40].
func DecodeHeader(b []byte) Header {
	be := binary.BigEndian
	return Header{
		BeginTimestamp: int64(be.Uint64(b[offBeginTimestamp:])),
		EndTimestamp:   int64(be.Uint64(b[offEndTimestamp:])),
		BeginPhyOffset: int64(be.Uint64(b[offBeginPhyOffset:])),
		EndPhyOffset:   int64(be.Uint64(b[offEndPhyOffset:])),
		HashSlotCount:  int32(be.Uint32(b[offHashSlotCount:])),
		IndexCount:     int32(be.Uint32(b[offIndexCount:])),
	}
}

// put writes h into b[0:40].
func (h *Header) put(b []byte) {
	be := binary.BigEndian
	be.PutUint64(b[offBeginTimestamp:], uint64(h.BeginTimestamp))
	be.PutUint64(b[offEndTimestamp:], uint64(h.EndTimestamp))
	be.PutUint64(b[offBeginPhyOffset:], uint64(h.BeginPhyOffset))
	be.PutUint64(b[offEndPhyOffset:], uint64(h.EndPhyOffset))
	be.PutUint32(b[offHashSlotCount:], uint32(h.HashSlotCount))
	be.PutUint32(b[offIndexCount:], uint32(h.IndexCount))
}

// FileSize is the size of an index file with the given capacity.
func FileSize(hashSlotNum, indexNum int) int {
	return HeaderSize + hashSlotNum*hashSlotSize + indexNum*EntrySize
}

// KeyHash is IndexFile.indexKeyHashMethod: |String.hashCode(key)|, with
// Integer.MIN_VALUE mapped to 0.
func KeyHash(key string) int32 { return absHash(message.JavaStringHash(key)) }

func absHash(h int32) int32 {
	if h == math.MinInt32 {
		return 0
	}
	if h < 0 {
		return -h
	}
	return h
}

// topicKeyHash is KeyHash(topic + "#" + key) without building the string.
func topicKeyHash(topic, key string) int32 {
	th := newTopicHash(topic)
	return th.keyHash(key)
}

// topicHash is the running Java hash of topic + "#", so that each key of a
// topic is hashed from there (Java's hash is a running polynomial, so it
// can go part by part when both parts are ASCII; otherwise the string is
// built as UTF-8 decoding needs). The zero value is correct for any topic
// (it always builds the string).
type topicHash struct {
	topic string
	h     int32
	ascii bool
}

func newTopicHash(topic string) topicHash {
	t := topicHash{topic: topic}
	for _, part := range [...]string{topic, "#"} {
		for i := 0; i < len(part); i++ {
			c := part[i]
			if c >= utf8.RuneSelf {
				return t
			}
			t.h = 31*t.h + int32(c)
		}
	}
	t.ascii = true
	return t
}

// keyHash is KeyHash(t.topic + "#" + key).
func (t *topicHash) keyHash(key string) int32 {
	if !t.ascii {
		return KeyHash(t.topic + "#" + key)
	}
	h := t.h
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c >= utf8.RuneSelf {
			return KeyHash(t.topic + "#" + key)
		}
		h = 31*h + int32(c)
	}
	return absHash(h)
}

// File is one mapped index file. It is not safe for concurrent use: the
// Service serialises writers and readers with its lock.
type File struct {
	path        string
	f           *os.File
	data        []byte
	hashSlotNum int
	indexNum    int
	hdr         Header
	reserveErr  error // why an existing file's blocks could not be reserved (nil: reserved)
}

// openFile maps path (creating it with the right size when new). A new
// file's header starts at endPhyOffset/endTimestamp of the previous file
// when those are > 0.
func openFile(path string, hashSlotNum, indexNum int, endPhyOffset, endTimestamp int64) (*File, error) {
	size := FileSize(hashSlotNum, indexNum)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	fresh := err == nil && st.Size() == 0
	if err == nil && st.Size() != int64(size) {
		if st.Size() != 0 {
			err = fmt.Errorf("%w: %s is %d bytes, want %d", ErrBadIndexFile, path, st.Size(), size)
		} else {
			err = f.Truncate(int64(size))
		}
	}
	var soft error // blocks of an existing file not reserved: kept for the service to log
	if err == nil {
		err, soft = mmap.ReserveOnCreate(f, path, int64(size), fresh)
	}
	var data []byte
	if err == nil {
		data, err = syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("index: open %s: %w", path, err)
	}
	x := &File{path: path, f: f, data: data, hashSlotNum: hashSlotNum, indexNum: indexNum, reserveErr: soft}
	x.hdr = Header{IndexCount: 1}
	if endPhyOffset > 0 {
		x.hdr.BeginPhyOffset, x.hdr.EndPhyOffset = endPhyOffset, endPhyOffset
	}
	if endTimestamp > 0 {
		x.hdr.BeginTimestamp, x.hdr.EndTimestamp = endTimestamp, endTimestamp
	}
	return x, nil
}

// load reads the header from the file (IndexFile.load).
func (x *File) load() {
	x.hdr = DecodeHeader(x.data)
	if x.hdr.IndexCount <= 0 {
		x.hdr.IndexCount = 1
	}
}

// Path is the file's path.
func (x *File) Path() string { return x.path }

// Header returns the in-memory header.
func (x *File) Header() Header { return x.hdr }

// IsWriteFull reports whether no more entries fit.
func (x *File) IsWriteFull() bool { return int(x.hdr.IndexCount) >= x.indexNum }

func (x *File) slotPos(keyHash int32) int {
	return HeaderSize + int(keyHash)%x.hashSlotNum*hashSlotSize
}

func (x *File) entryPos(n int32) int {
	return HeaderSize + x.hashSlotNum*hashSlotSize + int(n)*EntrySize
}

// putKey adds an entry for key (IndexFile.putKey); false when full. A fault
// writing the mapping (mmap.ErrFault) leaves the in-memory header, and so
// the entry count, unchanged.
func (x *File) putKey(keyHash int32, phyOffset, storeTimestamp int64) (ok bool, err error) {
	if x.IsWriteFull() {
		return false, nil
	}
	if err := mmap.Guard(func() { x.putKeyUnguarded(keyHash, phyOffset, storeTimestamp) }); err != nil {
		return false, fmt.Errorf("index: put key in %s: %w", x.path, err)
	}
	return true, nil
}

func (x *File) putKeyUnguarded(keyHash int32, phyOffset, storeTimestamp int64) {
	be := binary.BigEndian
	slot := x.slotPos(keyHash)
	slotValue := int32(be.Uint32(x.data[slot:]))
	if slotValue <= invalidIndex || slotValue > x.hdr.IndexCount {
		slotValue = invalidIndex
	}
	timeDiff := (storeTimestamp - x.hdr.BeginTimestamp) / 1000
	switch {
	case x.hdr.BeginTimestamp <= 0:
		timeDiff = 0
	case timeDiff > math.MaxInt32:
		timeDiff = math.MaxInt32
	case timeDiff < 0:
		timeDiff = 0
	}
	pos := x.entryPos(x.hdr.IndexCount)
	be.PutUint32(x.data[pos:], uint32(keyHash))
	be.PutUint64(x.data[pos+4:], uint64(phyOffset))
	be.PutUint32(x.data[pos+12:], uint32(int32(timeDiff)))
	be.PutUint32(x.data[pos+16:], uint32(slotValue))
	be.PutUint32(x.data[slot:], uint32(x.hdr.IndexCount))
	h := x.hdr
	if h.IndexCount <= 1 {
		h.BeginPhyOffset = phyOffset
		h.BeginTimestamp = storeTimestamp
	}
	if slotValue == invalidIndex {
		h.HashSlotCount++
	}
	h.IndexCount++
	h.EndPhyOffset = phyOffset
	h.EndTimestamp = storeTimestamp
	h.put(x.data)
	x.hdr = h
}

// writeHeader stores the in-memory header into the mapping.
func (x *File) writeHeader() error {
	if err := mmap.Guard(func() { x.hdr.put(x.data) }); err != nil {
		return fmt.Errorf("index: write header of %s: %w", x.path, err)
	}
	return nil
}

// isTimeMatched reports whether [begin, end] overlaps the file's range.
func (x *File) isTimeMatched(begin, end int64) bool {
	h := &x.hdr
	return (begin < h.BeginTimestamp && end > h.EndTimestamp) ||
		(begin >= h.BeginTimestamp && begin <= h.EndTimestamp) ||
		(end >= h.BeginTimestamp && end <= h.EndTimestamp)
}

// selectPhyOffset appends to dst the physical offsets of entries whose key
// hash equals key's and whose time is in [begin, end], newest first, until
// dst has maxNum elements (IndexFile.selectPhyOffset).
func (x *File) selectPhyOffset(dst []int64, key string, maxNum int, begin, end int64) []int64 {
	be := binary.BigEndian
	keyHash := KeyHash(key)
	slotValue := int32(be.Uint32(x.data[x.slotPos(keyHash):]))
	if slotValue <= invalidIndex || slotValue > x.hdr.IndexCount || x.hdr.IndexCount <= 1 {
		return dst
	}
	for next := slotValue; len(dst) < maxNum; {
		pos := x.entryPos(next)
		if pos+EntrySize > len(x.data) {
			break
		}
		hashRead := int32(be.Uint32(x.data[pos:]))
		phyRead := int64(be.Uint64(x.data[pos+4:]))
		timeDiff := int64(int32(be.Uint32(x.data[pos+12:])))
		prev := int32(be.Uint32(x.data[pos+16:]))
		if timeDiff < 0 {
			break
		}
		timeRead := x.hdr.BeginTimestamp + timeDiff*1000
		if hashRead == keyHash && timeRead >= begin && timeRead <= end {
			dst = append(dst, phyRead)
		}
		if prev <= invalidIndex || prev > x.hdr.IndexCount || prev == next || timeRead < begin {
			break
		}
		next = prev
	}
	return dst
}

// flush writes the header and the mapping back to disk (IndexFile.flush;
// fsync also writes back pages dirtied through a shared mapping on Linux).
func (x *File) flush() error {
	if err := x.writeHeader(); err != nil {
		return err
	}
	return x.f.Sync()
}

// close unmaps the file.
func (x *File) close() error {
	var err error
	if x.data != nil {
		err = syscall.Munmap(x.data)
		x.data = nil
	}
	return errors.Join(err, x.f.Close())
}

// destroy unmaps and deletes the file.
func (x *File) destroy() error {
	err := x.close()
	if rerr := os.Remove(x.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return err
}
