package timer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
)

// checkpointMagic marks a timercheck file of this layout (version 1).
const checkpointMagic int32 = 0x54494d31 // "TIM1"

// CheckpointSize is the encoded size of a Checkpoint.
const CheckpointSize = 4 + 8*4 + 4

// ErrBadCheckpoint reports a timercheck file that is not ours or is torn.
var ErrBadCheckpoint = errors.New("timer: bad checkpoint")

// Checkpoint is the durable progress of the timer service over queue 0 of
// rmq_sys_wheel_timer (see the package doc for the invariant).
type Checkpoint struct {
	// IngestOffset is the next queue offset to read into the index.
	IngestOffset int64
	// MinPending is the lowest queue offset that may still be pending.
	MinPending int64
	// SettledAt and SettledQo are the smallest pending key: units in
	// [MinPending, IngestOffset) with a smaller key were delivered.
	SettledAt, SettledQo int64
}

// emptyCheckpoint is the state with nothing known settled: everything in
// the queue is pending.
func emptyCheckpoint() Checkpoint {
	return Checkpoint{SettledAt: math.MinInt64, SettledQo: math.MinInt64}
}

// Encode renders c in the timercheck layout.
func (c Checkpoint) Encode() []byte {
	b := make([]byte, CheckpointSize)
	binary.BigEndian.PutUint32(b[0:], uint32(checkpointMagic))
	binary.BigEndian.PutUint64(b[4:], uint64(c.IngestOffset))
	binary.BigEndian.PutUint64(b[12:], uint64(c.MinPending))
	binary.BigEndian.PutUint64(b[20:], uint64(c.SettledAt))
	binary.BigEndian.PutUint64(b[28:], uint64(c.SettledQo))
	binary.BigEndian.PutUint32(b[36:], crc32.ChecksumIEEE(b[:36]))
	return b
}

// DecodeCheckpoint parses a timercheck file; any damage (size, magic, CRC,
// offsets out of order) is ErrBadCheckpoint.
func DecodeCheckpoint(b []byte) (Checkpoint, error) {
	if len(b) != CheckpointSize {
		return Checkpoint{}, fmt.Errorf("%w: size %d", ErrBadCheckpoint, len(b))
	}
	if int32(binary.BigEndian.Uint32(b)) != checkpointMagic {
		return Checkpoint{}, fmt.Errorf("%w: magic", ErrBadCheckpoint)
	}
	if binary.BigEndian.Uint32(b[36:]) != crc32.ChecksumIEEE(b[:36]) {
		return Checkpoint{}, fmt.Errorf("%w: crc", ErrBadCheckpoint)
	}
	c := Checkpoint{
		IngestOffset: int64(binary.BigEndian.Uint64(b[4:])),
		MinPending:   int64(binary.BigEndian.Uint64(b[12:])),
		SettledAt:    int64(binary.BigEndian.Uint64(b[20:])),
		SettledQo:    int64(binary.BigEndian.Uint64(b[28:])),
	}
	if c.MinPending < 0 || c.IngestOffset < c.MinPending {
		return Checkpoint{}, fmt.Errorf("%w: offsets %d..%d", ErrBadCheckpoint, c.MinPending, c.IngestOffset)
	}
	return c, nil
}

// LoadCheckpoint reads path; a missing file is the empty checkpoint.
func LoadCheckpoint(path string) (Checkpoint, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return emptyCheckpoint(), nil
	}
	if err != nil {
		return emptyCheckpoint(), fmt.Errorf("timer: read %s: %w", path, err)
	}
	c, err := DecodeCheckpoint(b)
	if err != nil {
		return emptyCheckpoint(), fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// PersistCheckpoint writes c to path atomically (temp file, fsync, rename).
func PersistCheckpoint(path string, c Checkpoint) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("timer: %w", err)
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("timer: %w", err)
	}
	_, err = f.Write(c.Encode())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("timer: persist %s: %w", path, err)
	}
	return nil
}
