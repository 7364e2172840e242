package checkpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// FileSize is the checkpoint file size (one OS page, as Java maps it).
const FileSize = 4096

// ErrShortFile is returned for a checkpoint file shorter than 24 bytes.
var ErrShortFile = errors.New("checkpoint: file shorter than 24 bytes")

// StoreCheckpoint holds the three recovery timestamps (Java StoreCheckpoint).
type StoreCheckpoint struct {
	path   string
	phys   atomic.Int64
	logics atomic.Int64
	index  atomic.Int64
	mu     sync.Mutex // serialises Flush
}

// Open reads path if it exists (a missing file gives zero timestamps, as
// Java's fresh mapping does) and returns the checkpoint.
func Open(path string) (*StoreCheckpoint, error) {
	c := &StoreCheckpoint{path: path}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return c, nil
	case err != nil:
		return nil, err
	case len(b) < 24:
		return nil, fmt.Errorf("%w: %s", ErrShortFile, path)
	}
	be := binary.BigEndian
	c.phys.Store(int64(be.Uint64(b[0:])))
	c.logics.Store(int64(be.Uint64(b[8:])))
	c.index.Store(int64(be.Uint64(b[16:])))
	return c, nil
}

// PhysicMsgTimestamp is the store time of the last flushed CommitLog record.
func (c *StoreCheckpoint) PhysicMsgTimestamp() int64 { return c.phys.Load() }

// SetPhysicMsgTimestamp updates it (written at the next Flush).
func (c *StoreCheckpoint) SetPhysicMsgTimestamp(v int64) { c.phys.Store(v) }

// LogicsMsgTimestamp is the store time of the last flushed ConsumeQueue unit.
func (c *StoreCheckpoint) LogicsMsgTimestamp() int64 { return c.logics.Load() }

// SetLogicsMsgTimestamp updates it.
func (c *StoreCheckpoint) SetLogicsMsgTimestamp(v int64) { c.logics.Store(v) }

// IndexMsgTimestamp is the store time covered by the last flushed IndexFile.
func (c *StoreCheckpoint) IndexMsgTimestamp() int64 { return c.index.Load() }

// SetIndexMsgTimestamp updates it.
func (c *StoreCheckpoint) SetIndexMsgTimestamp(v int64) { c.index.Store(v) }

// MinTimestamp is min(physic, logics) - 3000 ms, floored at 0
// (StoreCheckpoint.getMinTimestamp): the abnormal-recovery start bound.
func (c *StoreCheckpoint) MinTimestamp() int64 {
	m := min(c.phys.Load(), c.logics.Load()) - 3000
	return max(m, 0)
}

// MinTimestampIndex is min(MinTimestamp, indexMsgTimestamp)
// (getMinTimestampIndex, used when messageIndexSafe is on).
func (c *StoreCheckpoint) MinTimestampIndex() int64 {
	return min(c.MinTimestamp(), c.index.Load())
}

// Flush writes the current values durably (temp file, fsync, rename, fsync dir).
func (c *StoreCheckpoint) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var page [FileSize]byte
	be := binary.BigEndian
	be.PutUint64(page[0:], uint64(c.phys.Load()))
	be.PutUint64(page[8:], uint64(c.logics.Load()))
	be.PutUint64(page[16:], uint64(c.index.Load()))
	return WriteFileAtomic(c.path, page[:])
}

// Close flushes the checkpoint (Java shutdown flushes and unmaps it).
func (c *StoreCheckpoint) Close() error { return c.Flush() }

// WriteFileAtomic replaces path with data: write path.tmp, fsync, rename,
// fsync the directory.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("checkpoint: write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // some filesystems refuse fsync on directories
	return nil
}
