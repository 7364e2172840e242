package epoch

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// ErrNotNewer is returned by Append for an entry whose epoch or start
// offset is not above the last entry's.
var ErrNotNewer = errors.New("epoch: entry not newer than the last one")

// File is the epoch file with its entries cached in memory (5.x
// EpochFileCache). Its methods are safe for concurrent use.
type File struct {
	path string

	mu      sync.RWMutex // guards entries and seq; never held across file I/O
	entries []Entry      // sorted by epoch, EndOffset set (last: MaxInt64)
	seq     uint64       // bumped by every change

	// writeMu serialises the writers of the file so that a newer content
	// is never overwritten by an older one; only file writes take it.
	writeMu sync.Mutex
	written uint64 // seq of the content on disk; guarded by writeMu
}

// Open reads the file at path (or its .bak when the file is missing,
// empty or unreadable, as Java does); a missing file is an empty history.
func Open(path string) (*File, error) {
	es, err := readWithBackup(path)
	if err != nil {
		return nil, err
	}
	return &File{path: path, entries: es}, nil
}

// NewMemory is a File without a disk file (tests, computations).
func NewMemory(entries []Entry) *File { return &File{entries: Normalize(entries)} }

func readWithBackup(path string) ([]Entry, error) {
	es, err := readOne(path)
	if err == nil && len(es) > 0 {
		return es, nil
	}
	bak, berr := readOne(path + ".bak")
	if berr != nil {
		if err != nil {
			return nil, fmt.Errorf("epoch: %s: %w", path, err)
		}
		return nil, fmt.Errorf("epoch: %s.bak: %w", path, berr)
	}
	return bak, nil
}

func readOne(path string) ([]Entry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// Path is the file's path ("" for a memory-only File).
func (f *File) Path() string { return f.path }

// Entries returns a copy of the entries, oldest epoch first.
func (f *File) Entries() []Entry {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return slices.Clone(f.entries)
}

// Len is the number of entries.
func (f *File) Len() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return len(f.entries)
}

// Last returns the newest entry; ok is false when the file is empty.
func (f *File) Last() (e Entry, ok bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if len(f.entries) == 0 {
		return Entry{}, false
	}
	return f.entries[len(f.entries)-1], true
}

// LastEpoch is the newest epoch, -1 when the file is empty (5.x lastEpoch).
func (f *File) LastEpoch() int32 {
	if e, ok := f.Last(); ok {
		return e.Epoch
	}
	return -1
}

// Get returns the entry of epoch.
func (f *File) Get(epoch int32) (Entry, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, e := range f.entries {
		if e.Epoch == epoch {
			return e, true
		}
	}
	return Entry{}, false
}

// FindByOffset returns the entry whose [StartOffset, EndOffset) holds off
// (5.x findEpochEntryByOffset).
func (f *File) FindByOffset(off int64) (Entry, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, e := range f.entries {
		if e.StartOffset <= off && off < e.EndOffset {
			return e, true
		}
	}
	return Entry{}, false
}

// Next returns the first entry with an epoch above epoch (5.x nextEntry).
func (f *File) Next(epoch int32) (Entry, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, e := range f.entries {
		if e.Epoch > epoch {
			return e, true
		}
	}
	return Entry{}, false
}

// Append adds e as the newest entry and writes the file. Its epoch and
// start offset must be above the last entry's (ErrNotNewer otherwise), as
// in 5.x appendEntry.
func (f *File) Append(e Entry) error {
	f.mu.Lock()
	if n := len(f.entries); n > 0 {
		last := &f.entries[n-1]
		if last.Epoch >= e.Epoch || last.StartOffset >= e.StartOffset {
			f.mu.Unlock()
			return fmt.Errorf("%w: last %d-%d, new %d-%d", ErrNotNewer, last.Epoch, last.StartOffset, e.Epoch, e.StartOffset)
		}
		last.EndOffset = e.StartOffset
	}
	e.EndOffset = maxEnd
	f.entries = append(f.entries, e)
	return f.commitLocked()
}

// TruncateSuffixByOffset drops the entries starting at or after off (5.x
// truncateSuffixByOffset) and writes the file.
func (f *File) TruncateSuffixByOffset(off int64) error {
	return f.truncate(func(e Entry) bool { return e.StartOffset >= off }, true)
}

// TruncateSuffixByEpoch drops the entries of epoch and newer.
func (f *File) TruncateSuffixByEpoch(epoch int32) error {
	return f.truncate(func(e Entry) bool { return e.Epoch >= epoch }, true)
}

// TruncatePrefixByOffset drops the entries that end at or before off (the
// CommitLog files below off were deleted).
func (f *File) TruncatePrefixByOffset(off int64) error {
	return f.truncate(func(e Entry) bool { return e.EndOffset <= off }, false)
}

func (f *File) truncate(drop func(Entry) bool, reopenLast bool) error {
	f.mu.Lock()
	before := len(f.entries)
	f.entries = slices.DeleteFunc(f.entries, drop)
	if len(f.entries) == before {
		f.mu.Unlock()
		return nil
	}
	if n := len(f.entries); n > 0 && reopenLast {
		f.entries[n-1].EndOffset = maxEnd
	}
	return f.commitLocked()
}

// commitLocked bumps seq, releases f.mu and writes the content of that seq
// unless a newer one was written meanwhile.
func (f *File) commitLocked() error {
	f.seq++
	seq, content, empty := f.seq, Format(f.entries), len(f.entries) == 0
	f.mu.Unlock()
	if f.path == "" {
		return nil
	}
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	if seq <= f.written {
		return nil
	}
	if err := writeFile(f.path, content, empty); err != nil {
		return err
	}
	f.written = seq
	return nil
}

const maxEnd = math.MaxInt64

// writeFile replaces path with content crash-safely, keeping the previous
// content in path.bak as Java does. An empty history removes both files:
// Java reads the .bak when the file holds no entry.
func writeFile(path string, content []byte, empty bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("epoch: %w", err)
	}
	if empty {
		for _, p := range []string{path + ".bak", path} {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("epoch: %w", err)
			}
		}
		return syncDir(dir)
	}
	prev, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("epoch: %w", err)
	}
	if err == nil && len(prev) > 0 {
		if err := replace(path+".bak", prev); err != nil {
			return err
		}
	}
	if err := replace(path, content); err != nil {
		return err
	}
	return syncDir(dir)
}

// replace writes content to a temp file next to path, fsyncs it and
// renames it over path.
func replace(path string, content []byte) error {
	tmp := path + ".tmp"
	fh, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("epoch: %w", err)
	}
	_, werr := fh.Write(content)
	serr := fh.Sync()
	cerr := fh.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("epoch: write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("epoch: %w", err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("epoch: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("epoch: sync %s: %w", dir, err)
	}
	return nil
}
