package mmap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// OSPageSize is the page size used for flush accounting (Java MappedFile.OS_PAGE_SIZE).
const OSPageSize = 4096

// Errors returned by mapped files.
var (
	ErrBadFileName = errors.New("mmap: file name is not a 20-digit offset")
	ErrFileSize    = errors.New("mmap: file size differs from the configured size")
	ErrNotWritable = errors.New("mmap: mapped file destroyed")
	ErrNoSpace     = errors.New("mmap: bytes do not fit in the mapped file")
)

// OffsetToFileName renders a start offset as Java's UtilAll.offset2FileName.
func OffsetToFileName(offset int64) string { return fmt.Sprintf("%020d", offset) }

// MappedFile is one fixed-size file mapped read-write (Java MappedFile).
// TODO(transientStorePoolEnable): the write-buffer pool mode (write into
// off-heap buffers, commit to the file channel) is not implemented; the
// store always writes into the mapping, so committed == wrote.
type MappedFile struct {
	path     string
	fromOff  int64
	fileSize int
	// f is open only in AppendByWrite mode, where pwrite needs it. The
	// mapping keeps the file itself open (Linux holds the file in the
	// mapping's vma), so every other file closes its descriptor as soon as
	// it is mapped: flush is msync on the mapping, delete is by path, and a
	// store with tens of thousands of ConsumeQueue files does not need as
	// many descriptors.
	f     *os.File
	data  []byte
	fresh bool // created empty by this process: every byte is zero
	// byWrite makes AppendBytes/Append/WriteAt copy with pwrite(2) into the
	// page cache instead of storing through the mapping (see
	// QueueOptions.AppendByWrite). Set before the file is published.
	byWrite bool
	// populate makes the mapping-mode writer pre-fault, with one madvise,
	// the chunk of pages it is about to store into (QueueOptions.
	// PopulateAhead); populated is the end of that chunk. Writer only.
	populate  bool
	populated int
	// smallPages: the mapping is MADV_RANDOM for the writer
	// (QueueOptions.SmallPages) until FinishWriting. Writer only.
	smallPages bool
	// reserveErr is why the blocks of an existing file could not be
	// reserved when it was opened (nil: reserved); see LogReserveProblem.
	reserveErr error

	// warm is the queue's warm-ahead worker (QueueOptions.WarmAhead), nil
	// when off. warmAsked is the end of the window the writer last asked
	// for (writer only); warmedTo is the end of the prefix known to be
	// write-faulted (the warmer's one running goroutine only).
	warm      *warmer
	warmAsked int
	warmedTo  int

	wrote     atomic.Int32
	committed atomic.Int32
	flushed   atomic.Int32
	storeTS   atomic.Int64 // store timestamp of the last record appended (CommitLog)

	flushMu sync.Mutex // serialises Flush on this file

	refMu     sync.Mutex
	refs      int  // holders besides the owner
	destroyed bool // unlinked; unmap when refs drops to 0
	unmapped  bool

	// FirstCreateInQueue mirrors Java's flag: the file was created as the
	// first file of an empty queue (the ConsumeQueue fills blanks before its
	// first unit).
	FirstCreateInQueue bool
}

// OpenMappedFile opens (creating if needed) path, sizes it to fileSize,
// reserves its blocks (Reserve) and maps it. The start offset is parsed
// from the file name.
func OpenMappedFile(path string, fileSize int) (*MappedFile, error) {
	return openMappedFile(path, fileSize, true)
}

// openMappedFile is OpenMappedFile; reserve false leaves the file sparse
// (QueueOptions.Sparse).
func openMappedFile(path string, fileSize int, reserve bool) (*MappedFile, error) {
	from, err := strconv.ParseInt(filepath.Base(path), 10, 64)
	if err != nil || len(filepath.Base(path)) != 20 {
		return nil, fmt.Errorf("%w: %s", ErrBadFileName, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	mf, err := mapFile(f, path, from, fileSize, reserve)
	cerr := f.Close() // the mapping stays valid without the descriptor
	if err != nil {
		return nil, err
	}
	if cerr != nil {
		_ = syscall.Munmap(mf.data)
		return nil, fmt.Errorf("mmap: close %s: %w", path, cerr)
	}
	return mf, nil
}

func mapFile(f *os.File, path string, from int64, fileSize int, reserve bool) (*MappedFile, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	fresh := st.Size() == 0
	if st.Size() != int64(fileSize) {
		if err := f.Truncate(int64(fileSize)); err != nil {
			return nil, fmt.Errorf("mmap: size %s: %w", path, err)
		}
	}
	// Reserve before mapping: the descriptor may not outlive the mapping.
	var soft error
	if reserve {
		var fatal error
		if fatal, soft = ReserveOnCreate(f, path, int64(fileSize), fresh); fatal != nil {
			return nil, fatal
		}
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, fileSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap: map %s: %w", path, err)
	}
	return &MappedFile{path: path, fromOff: from, fileSize: fileSize, data: data, fresh: fresh, reserveErr: soft}, nil
}

// FileName is the file's path.
func (m *MappedFile) FileName() string { return m.path }

// FileFromOffset is the global offset of the file's first byte.
func (m *MappedFile) FileFromOffset() int64 { return m.fromOff }

// FileSize is the mapped size.
func (m *MappedFile) FileSize() int { return m.fileSize }

// Data is the whole mapping. Only the writer, or a reader holding the file,
// may touch it.
func (m *MappedFile) Data() []byte { return m.data }

// WrotePosition is the end of the written (and readable) bytes.
func (m *MappedFile) WrotePosition() int32 { return m.wrote.Load() }

// ReadPosition is the end of readable bytes (== WrotePosition without the pool).
func (m *MappedFile) ReadPosition() int32 { return m.committed.Load() }

// FlushedPosition is the end of the bytes known to be on disk.
func (m *MappedFile) FlushedPosition() int32 { return m.flushed.Load() }

// CommittedPosition equals WrotePosition (no write-buffer pool).
func (m *MappedFile) CommittedPosition() int32 { return m.committed.Load() }

// SetWrotePosition sets wrote and committed (recovery, truncation, blank fill).
func (m *MappedFile) SetWrotePosition(p int32) {
	m.wrote.Store(p)
	m.committed.Store(p)
}

// FinishWriting tells a file the writer has left it (full): a SmallPages
// file gets read-around back, so that reading it cold from disk later
// (a consumer far behind) reads ahead as any old file does. Writer only.
func (m *MappedFile) FinishWriting() {
	if m.smallPages {
		m.smallPages = false
		adviseNormal(m.data)
	}
}

// SetFlushedPosition sets the flushed position (recovery).
func (m *MappedFile) SetFlushedPosition(p int32) { m.flushed.Store(p) }

// SetPositions sets wrote, committed and flushed to p (recovery / truncate).
func (m *MappedFile) SetPositions(p int32) {
	m.SetWrotePosition(p)
	m.flushed.Store(p)
}

// StoreTimestamp is the store time of the last record appended.
func (m *MappedFile) StoreTimestamp() int64 { return m.storeTS.Load() }

// SetStoreTimestamp records the store time of the last appended record.
func (m *MappedFile) SetStoreTimestamp(ts int64) { m.storeTS.Store(ts) }

// IsFull reports whether nothing more can be written.
func (m *MappedFile) IsFull() bool { return int(m.wrote.Load()) >= m.fileSize }

// AppendBytes copies b at the write position and advances it. It returns
// false (writing nothing visible) when b does not fit or the write failed.
func (m *MappedFile) AppendBytes(b []byte) bool { return m.Append(b) == nil }

// Append copies b at the write position and advances it; ErrNoSpace when b
// does not fit, or the pwrite error in AppendByWrite mode (the position is
// then unchanged, so readers never see the bytes).
func (m *MappedFile) Append(b []byte) error {
	p := int(m.wrote.Load())
	if p+len(b) > m.fileSize {
		return ErrNoSpace
	}
	if err := m.copyAt(b, p); err != nil {
		return err
	}
	m.SetWrotePosition(int32(p + len(b)))
	if p+len(b) == m.fileSize {
		m.FinishWriting() // a slave's CommitLog fills its files this way
	}
	m.WarmAhead()
	return nil
}

// WriteAt copies b at pos without moving positions (in-place patches). It
// reports whether b fits and was written.
func (m *MappedFile) WriteAt(b []byte, pos int) bool {
	if pos < 0 || pos+len(b) > m.fileSize {
		return false
	}
	return m.copyAt(b, pos) == nil
}

// copyAt stores b at pos, through the mapping or with pwrite(2). Both land
// in the same page-cache pages, so readers of the mapping see either.
func (m *MappedFile) copyAt(b []byte, pos int) error {
	if !m.byWrite {
		if m.populate && pos+len(b) > m.populated {
			if err := m.populateFrom(pos, len(b)); err != nil {
				return fmt.Errorf("mmap: write %s at %d: %w", m.path, pos, err)
			}
		}
		if err := Guard(func() { copy(m.data[pos:], b) }); err != nil {
			return fmt.Errorf("mmap: write %s at %d: %w", m.path, pos, err)
		}
		return nil
	}
	if _, err := m.f.WriteAt(b, int64(pos)); err != nil {
		return fmt.Errorf("mmap: write %s at %d: %w", m.path, pos, err)
	}
	return nil
}

// populateChunk is the most bytes PopulateAhead faults in per madvise.
const populateChunk = 64 << 10

// populateFrom write-faults from pos's page, at least to the end of the n
// bytes about to be written there, in one call (MADV_POPULATE_WRITE). The
// chunk grows with what the file already holds (one page at first, then as
// much again as is written, up to populateChunk), so a queue that has
// written one 20-byte unit holds one page: 40,000 queues written once hold
// 160 MB of page cache, not 40,000 × 64 KiB = 2.6 GB, while a busy queue
// still pays one madvise per 64 KiB.
//
// The populate is also the write's reservation on a sparse file: when the
// filesystem has no block for those pages it fails (EFAULT from the fault,
// ENOSPC, ENOMEM) and nothing is written, so a unit is never torn across a
// page the disk could not give. Where MADV_POPULATE_WRITE is unsupported
// the stores fault as usual, under Guard.
func (m *MappedFile) populateFrom(pos, n int) error {
	from := pos &^ (OSPageSize - 1)
	chunk := min(max(from, OSPageSize), populateChunk)
	end := (pos + n + OSPageSize - 1) &^ (OSPageSize - 1)
	to := min(max(from+chunk, end), m.fileSize)
	if err := populateWrite(m.data[from:to]); err != nil && !populateUnsupported(err) {
		return fmt.Errorf("%w: populate: %w", ErrFault, err)
	}
	m.populated = to
	return nil
}

// setAppendMode applies a queue's append options to a file before it is
// published; AppendByWrite reopens the file for pwrite.
func (m *MappedFile) setAppendMode(opts QueueOptions, w *warmer) error {
	if opts.AppendByWrite && m.f == nil {
		f, err := os.OpenFile(m.path, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("mmap: open %s for pwrite: %w", m.path, err)
		}
		m.f = f
	}
	m.byWrite = opts.AppendByWrite
	if opts.PopulateAhead && !opts.AppendByWrite {
		m.populate = true
	}
	// Fresh files only: read-around would only zero-fill holes (or build
	// large folios, see SmallPages); old files keep it for readers.
	if (opts.PopulateAhead || opts.SmallPages) && !opts.AppendByWrite && m.fresh {
		adviseRandom(m.data)
		m.smallPages = opts.SmallPages
	}
	if !opts.AppendByWrite {
		m.warm = w
	}
	return nil
}

// IsAbleToFlush reports whether at least leastPages dirty pages wait
// (leastPages <= 0: any dirty byte; full file: always).
func (m *MappedFile) IsAbleToFlush(leastPages int) bool {
	flushed, wrote := int(m.flushed.Load()), int(m.committed.Load())
	if m.IsFull() && wrote > flushed {
		return true
	}
	if leastPages > 0 {
		return wrote/OSPageSize-flushed/OSPageSize >= leastPages
	}
	return wrote > flushed
}

// Flush writes back the dirty range when IsAbleToFlush(leastPages) and
// returns the flushed position.
func (m *MappedFile) Flush(leastPages int) (int32, error) {
	m.flushMu.Lock()
	defer m.flushMu.Unlock()
	if !m.IsAbleToFlush(leastPages) || !m.Hold() {
		return m.flushed.Load(), nil
	}
	defer m.Release()
	to := m.committed.Load()
	if err := syncRange(m.path, m.data, int(m.flushed.Load()), int(to)); err != nil {
		return m.flushed.Load(), fmt.Errorf("mmap: flush %s: %w", m.path, err)
	}
	m.flushed.Store(to)
	return to, nil
}

// Warmup touches every page so that later appends do not fault
// (MappedFile.warmMappedFile). Only for fresh, all-zero files.
func (m *MappedFile) Warmup() {
	for i := 0; i < m.fileSize; i += OSPageSize {
		m.data[i] = 0
	}
	adviseWillNeed(m.data)
}

// ZeroRange clears [from, to) (tail cleanup after truncation), skipping pages
// that are already zero so that clean pages are not dirtied. A fault (see
// ErrFault) stops it and is returned.
func (m *MappedFile) ZeroRange(from, to int) error {
	from, to = max(from, 0), min(to, m.fileSize)
	if err := Guard(func() { m.zeroRange(from, to) }); err != nil {
		return fmt.Errorf("mmap: zero %s [%d, %d): %w", m.path, from, to, err)
	}
	return nil
}

func (m *MappedFile) zeroRange(from, to int) {
	for p := from; p < to; {
		end := min((p/OSPageSize+1)*OSPageSize, to)
		seg := m.data[p:end]
		for i, c := range seg {
			if c != 0 {
				clear(seg[i:])
				break
			}
		}
		p = end
	}
}

// Hold takes a reference for a reader; false once the file is destroyed.
func (m *MappedFile) Hold() bool {
	m.refMu.Lock()
	defer m.refMu.Unlock()
	if m.destroyed {
		return false
	}
	m.refs++
	return true
}

// Release drops a reference taken by Hold.
func (m *MappedFile) Release() {
	m.refMu.Lock()
	m.refs--
	last := m.refs == 0 && m.destroyed
	m.refMu.Unlock()
	if last {
		m.unmap()
	}
}

// IsAvailable reports whether the file has not been destroyed.
func (m *MappedFile) IsAvailable() bool {
	m.refMu.Lock()
	defer m.refMu.Unlock()
	return !m.destroyed
}

// LastModified is the file's modification time.
func (m *MappedFile) LastModified() time.Time {
	st, err := os.Stat(m.path)
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}

func (m *MappedFile) unmap() {
	m.refMu.Lock()
	defer m.refMu.Unlock()
	if m.unmapped {
		return
	}
	m.unmapped = true
	_ = syscall.Munmap(m.data)
	if m.f != nil {
		_ = m.f.Close()
	}
}

// Close unmaps the file without deleting it (shutdown). Holders must have
// released it.
func (m *MappedFile) Close() {
	m.refMu.Lock()
	m.destroyed = true
	refs := m.refs
	m.refMu.Unlock()
	if refs == 0 {
		m.unmap()
	}
}

// Destroy deletes the file now and unmaps it when the last holder releases
// (Java MappedFile.destroy; unlinking keeps the mapping valid on Linux).
func (m *MappedFile) Destroy() error {
	m.Close()
	if err := os.Remove(m.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// ReserveErr is why the file's blocks could not be reserved when it was
// opened (nil when they were); its writes may then fail with ErrFault.
func (m *MappedFile) ReserveErr() error { return m.reserveErr }
