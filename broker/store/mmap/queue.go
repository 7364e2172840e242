package mmap

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// QueueOptions tune a MappedFileQueue.
type QueueOptions struct {
	// Preallocate creates the next file in the background as soon as a file
	// is created (Java AllocateMappedFileService), off the append path.
	Preallocate bool
	// Warm pre-faults every newly allocated file before handing it out,
	// even one asked for on the append path (warmMapedFileEnable): every
	// page is stored into, so the whole file is resident, allocated on
	// disk and written back, as Java's warmMappedFile does.
	Warm bool
	// WarmAhead keeps this many bytes past the write position
	// write-faulted, in the background (see warmer), so that the writer's
	// stores seldom trap; 0 turns it off. Memory and disk then grow with
	// the written bytes plus at most one window, never a whole file ahead.
	WarmAhead int
	// AppendByWrite makes AppendBytes, Append and WriteAt copy with
	// pwrite(2) instead of storing through the mapping; reads still use
	// the mapping. For small, many-file queues (ConsumeQueue): every first
	// store to a page of a MAP_SHARED file mapping is a write fault that
	// maps the page and runs the filesystem's page_mkwrite (and, on a
	// fresh sparse file, read-around that zero-fills up to read_ahead_kb),
	// and a flush write-protects the page again, so a 20-byte append pays a
	// trap per page per flush; pwrite copies through the kernel's own
	// mapping and takes no fault.
	AppendByWrite bool
	// Sparse leaves the files sparse instead of reserving their blocks
	// (Reserve) when they are created. For queues of many small files
	// (ConsumeQueue): 40,000 queues would otherwise reserve 40,000 whole
	// files (229 GB at 5.72 MB each) where Java's sparse files take only
	// what is written. A store that meets a full disk then fails through
	// Guard (or the PopulateAhead madvise) with an error, never a crash.
	Sparse bool
	// PopulateAhead (mapping mode) turns off fault read-around on the
	// mapping (MADV_RANDOM: a fault on a fresh sparse file would otherwise
	// zero-fill up to read_ahead_kb around it) and pre-faults the next
	// 64 KiB of pages with one MADV_POPULATE_WRITE when the write position
	// enters them, so appends store into mapped pages without trapping.
	PopulateAhead bool
	// SmallPages (mapping mode) keeps the page cache of a fresh file in
	// single pages while it is written (MADV_RANDOM), for a queue synced
	// after every few appends (SYNC_FLUSH). Faulted with read-around, as
	// the warmer's MADV_POPULATE_WRITE is, the kernel fills the file with
	// large folios, and a sync writes back every folio it touches whole:
	// a 1 KiB put made durable wrote up to a MiB (7x the data at 16 x 16).
	// FinishWriting gives the full file read-around back for its readers.
	SmallPages bool
}

// MappedFileQueue is the ordered list of files of one CommitLog or
// ConsumeQueue (Java MappedFileQueue).
type MappedFileQueue struct {
	dir      string
	fileSize int
	opts     QueueOptions
	lg       *zap.Logger

	mu    sync.RWMutex
	files []*MappedFile // sorted by start offset, contiguous

	flushedWhere   atomic.Int64
	committedWhere atomic.Int64
	storeTS        atomic.Int64 // store timestamp covered by the last flush

	alloc *allocator
	warm  *warmer // nil unless WarmAhead > 0
}

// NewMappedFileQueue returns an empty queue over dir; call Load to map the
// existing files.
func NewMappedFileQueue(dir string, fileSize int, opts QueueOptions, lg *zap.Logger) *MappedFileQueue {
	if lg == nil {
		lg = zap.NewNop()
	}
	q := &MappedFileQueue{dir: dir, fileSize: fileSize, opts: opts, lg: lg}
	if opts.Preallocate {
		q.alloc = newAllocator(fileSize, opts.Warm, !opts.Sparse, lg)
	}
	if opts.WarmAhead > 0 {
		q.warm = newWarmer(opts.WarmAhead, lg)
	}
	return q
}

// Dir is the queue's directory.
func (q *MappedFileQueue) Dir() string { return q.dir }

// FileSize is the size of every file.
func (q *MappedFileQueue) FileSize() int { return q.fileSize }

// Load maps every file of the directory. A file whose size differs from the
// configured size fails the load (Java returns false and the broker exits),
// except an empty last file: a crash between creating a file and sizing it
// leaves one, it holds nothing, and it is removed (Java refuses to start on
// it). Loaded files start with all positions at the file size; recovery
// lowers them.
func (q *MappedFileQueue) Load() error {
	ents, err := os.ReadDir(q.dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	var names []string
	for _, e := range ents {
		if _, perr := strconv.ParseInt(e.Name(), 10, 64); perr == nil && len(e.Name()) == 20 && !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, n := range names {
		p := filepath.Join(q.dir, n)
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if st.Size() == 0 && i == len(names)-1 {
			q.lg.Warn("removing an empty last file left by a crash during its creation", zap.String("path", p))
			if err := os.Remove(p); err != nil {
				return err
			}
			break
		}
		if st.Size() != int64(q.fileSize) {
			return fmt.Errorf("%w: %s is %d bytes, want %d", ErrFileSize, p, st.Size(), q.fileSize)
		}
		mf, err := openMappedFile(p, q.fileSize, !q.opts.Sparse)
		if err != nil {
			return err
		}
		LogReserveProblem(q.lg, p, mf.ReserveErr())
		mf.SetPositions(int32(q.fileSize))
		if err := mf.setAppendMode(q.opts, q.warm); err != nil {
			mf.Close()
			return err
		}
		q.files = append(q.files, mf)
	}
	return nil
}

// Files returns a snapshot of the files.
func (q *MappedFileQueue) Files() []*MappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return append([]*MappedFile(nil), q.files...)
}

// FirstMappedFile is the oldest file or nil.
func (q *MappedFileQueue) FirstMappedFile() *MappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if len(q.files) == 0 {
		return nil
	}
	return q.files[0]
}

// LastMappedFile is the newest file or nil.
func (q *MappedFileQueue) LastMappedFile() *MappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if len(q.files) == 0 {
		return nil
	}
	return q.files[len(q.files)-1]
}

// LastMappedFileOrCreate returns the last file, creating a new one when the
// queue is empty (starting at the file boundary at or below startOffset) or
// the last file is full (Java getLastMappedFile(startOffset, true)).
func (q *MappedFileQueue) LastMappedFileOrCreate(startOffset int64) (*MappedFile, error) {
	last := q.LastMappedFile()
	var create int64
	switch {
	case last == nil:
		create = startOffset - startOffset%int64(q.fileSize)
	case last.IsFull():
		create = last.FileFromOffset() + int64(q.fileSize)
	default:
		return last, nil
	}
	mf, err := q.newFile(create)
	if err != nil {
		return nil, err
	}
	q.mu.Lock()
	if len(q.files) == 0 {
		mf.FirstCreateInQueue = true
	}
	q.files = append(q.files, mf)
	q.mu.Unlock()
	return mf, nil
}

// PreallocateNext starts creating, in the background, the next file the
// queue will need: the first file of an empty queue (at the file boundary
// at or below startOffset), else the one after the last file, so that even
// the first roll after start-up (or recovery) finds a mapped, pre-faulted
// file. No-op without Preallocate, and for a file already handed out (a
// writer that rolled meanwhile). Meant for start-up, after Load and
// recovery.
func (q *MappedFileQueue) PreallocateNext(startOffset int64) {
	if q.alloc == nil {
		return
	}
	create := startOffset - startOffset%int64(q.fileSize)
	if last := q.LastMappedFile(); last != nil {
		create = last.FileFromOffset() + int64(q.fileSize)
	}
	q.alloc.ahead(filepath.Join(q.dir, OffsetToFileName(create)))
}

// AwaitPreallocated waits until every background allocation and warm-up
// has finished (tests and benchmarks that must not measure it).
func (q *MappedFileQueue) AwaitPreallocated() {
	if q.alloc != nil {
		q.alloc.wait()
	}
	if q.warm != nil {
		q.warm.wait()
	}
}

func (q *MappedFileQueue) newFile(from int64) (*MappedFile, error) {
	path := filepath.Join(q.dir, OffsetToFileName(from))
	var mf *MappedFile
	var err error
	if q.alloc == nil {
		mf, err = openMappedFile(path, q.fileSize, !q.opts.Sparse)
	} else {
		next := filepath.Join(q.dir, OffsetToFileName(from+int64(q.fileSize)))
		mf, err = q.alloc.get(path, next)
	}
	if err != nil {
		return nil, err
	}
	LogReserveProblem(q.lg, path, mf.ReserveErr())
	if err := mf.setAppendMode(q.opts, q.warm); err != nil {
		mf.Close()
		return nil, err
	}
	return mf, nil
}

// FindMappedFileByOffset returns the file holding offset, or (with
// returnFirstOnNotFound) the first file when offset is outside the queue.
func (q *MappedFileQueue) FindMappedFileByOffset(offset int64, returnFirstOnNotFound bool) *MappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if len(q.files) == 0 {
		return nil
	}
	first := q.files[0]
	last := q.files[len(q.files)-1]
	if offset >= first.FileFromOffset() && offset < last.FileFromOffset()+int64(q.fileSize) {
		i := int((offset - first.FileFromOffset()) / int64(q.fileSize))
		if i >= 0 && i < len(q.files) && offset >= q.files[i].FileFromOffset() &&
			offset < q.files[i].FileFromOffset()+int64(q.fileSize) {
			return q.files[i]
		}
		for _, f := range q.files {
			if offset >= f.FileFromOffset() && offset < f.FileFromOffset()+int64(q.fileSize) {
				return f
			}
		}
	}
	if returnFirstOnNotFound {
		return first
	}
	return nil
}

// MinOffset is the start of the first file (-1 when empty, like Java).
func (q *MappedFileQueue) MinOffset() int64 {
	if f := q.FirstMappedFile(); f != nil {
		return f.FileFromOffset()
	}
	return -1
}

// MaxOffset is the end of the readable bytes (0 when empty).
func (q *MappedFileQueue) MaxOffset() int64 {
	if f := q.LastMappedFile(); f != nil {
		return f.FileFromOffset() + int64(f.ReadPosition())
	}
	return 0
}

// MaxWrotePosition is the end of the written bytes (0 when empty).
func (q *MappedFileQueue) MaxWrotePosition() int64 {
	if f := q.LastMappedFile(); f != nil {
		return f.FileFromOffset() + int64(f.WrotePosition())
	}
	return 0
}

// FlushedWhere is the global offset up to which data is on disk.
func (q *MappedFileQueue) FlushedWhere() int64 { return q.flushedWhere.Load() }

// SetFlushedWhere sets it (recovery).
func (q *MappedFileQueue) SetFlushedWhere(v int64) { q.flushedWhere.Store(v) }

// CommittedWhere is the global committed offset (== written without the pool).
func (q *MappedFileQueue) CommittedWhere() int64 { return q.committedWhere.Load() }

// SetCommittedWhere sets it (recovery).
func (q *MappedFileQueue) SetCommittedWhere(v int64) { q.committedWhere.Store(v) }

// StoreTimestamp is the store time of the last record covered by a flush.
func (q *MappedFileQueue) StoreTimestamp() int64 { return q.storeTS.Load() }

// TotalFileSize is the mapped size of all files (Java getMappedMemorySize).
func (q *MappedFileQueue) TotalFileSize() int64 {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return int64(len(q.files)) * int64(q.fileSize)
}

// HowMuchFallBehind is the number of written bytes not yet flushed.
func (q *MappedFileQueue) HowMuchFallBehind() int64 {
	return q.MaxWrotePosition() - q.FlushedWhere()
}

// Flush writes back the file holding FlushedWhere if at least leastPages are
// dirty and advances FlushedWhere. It returns true when nothing moved
// (Java's result flag).
func (q *MappedFileQueue) Flush(leastPages int) (bool, error) {
	where := q.flushedWhere.Load()
	mf := q.FindMappedFileByOffset(where, where == 0)
	if mf == nil {
		return true, nil
	}
	ts := mf.StoreTimestamp()
	pos, err := mf.Flush(leastPages)
	next := mf.FileFromOffset() + int64(pos)
	moved := next != where
	if next > where {
		q.flushedWhere.Store(next)
		if leastPages == 0 || moved {
			q.storeTS.Store(ts)
		}
	}
	return !moved, err
}

// TruncateDirtyFiles drops everything at and after offset: the file holding
// it is cut (and its stale tail zeroed), later files are deleted.
func (q *MappedFileQueue) TruncateDirtyFiles(offset int64) error {
	q.mu.Lock()
	var keep, drop []*MappedFile
	for _, f := range q.files {
		end := f.FileFromOffset() + int64(q.fileSize)
		switch {
		case end <= offset:
			keep = append(keep, f)
		case offset >= f.FileFromOffset():
			pos := int(offset - f.FileFromOffset())
			old := int(f.WrotePosition())
			f.SetPositions(int32(pos))
			if err := f.ZeroRange(pos, max(old, pos)); err != nil {
				q.lg.Error("clear truncated tail failed", zap.String("file", f.FileName()), zap.Error(err))
			}
			keep = append(keep, f)
		default:
			drop = append(drop, f)
		}
	}
	q.files = keep
	q.mu.Unlock()
	return destroyAll(drop)
}

func destroyAll(fs []*MappedFile) error {
	var first error
	for _, f := range fs {
		if err := f.Destroy(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// DeleteLastMappedFile destroys the newest file (Java deleteLastMappedFile).
func (q *MappedFileQueue) DeleteLastMappedFile() error {
	q.mu.Lock()
	if len(q.files) == 0 {
		q.mu.Unlock()
		return nil
	}
	last := q.files[len(q.files)-1]
	q.files = q.files[:len(q.files)-1]
	q.mu.Unlock()
	return last.Destroy()
}

// DeleteExpiredFileByTime deletes files (never the last one) last modified
// more than expired ago, at most maxBatch per call (10 in Java), waiting
// interval between deletions; with cleanImmediately every non-last file
// qualifies. It stops at the first file that ends after keepFrom (a file
// still needed from keepFrom on is kept, and so is everything after it);
// math.MaxInt64 sets no such bound. It returns how many were deleted.
func (q *MappedFileQueue) DeleteExpiredFileByTime(expired time.Duration, interval time.Duration, cleanImmediately bool, maxBatch int, keepFrom int64) int {
	files := q.Files()
	if len(files) <= 1 {
		return 0
	}
	now := time.Now()
	var drop []*MappedFile
	for _, f := range files[:len(files)-1] {
		if len(drop) >= maxBatch || f.FileFromOffset()+int64(f.FileSize()) > keepFrom {
			break
		}
		if !cleanImmediately && now.Sub(f.LastModified()) <= expired {
			break
		}
		drop = append(drop, f)
	}
	return q.removeFront(drop, interval)
}

// DeleteExpiredFileByOffset deletes the leading files (never the last one)
// whose last unit of unitSize bytes points below offset (ConsumeQueue
// cleanup: maxPhyOffset of a file = i64 at the start of its last unit).
func (q *MappedFileQueue) DeleteExpiredFileByOffset(offset int64, unitSize int) int {
	files := q.Files()
	var drop []*MappedFile
	for i := 0; i < len(files)-1; i++ {
		f := files[i]
		if !f.Hold() {
			break
		}
		pos := q.fileSize - unitSize
		last := int64(0)
		if pos >= 0 && pos+8 <= len(f.Data()) {
			d := f.Data()[pos:]
			last = int64(uint64(d[0])<<56 | uint64(d[1])<<48 | uint64(d[2])<<40 | uint64(d[3])<<32 |
				uint64(d[4])<<24 | uint64(d[5])<<16 | uint64(d[6])<<8 | uint64(d[7]))
		}
		f.Release()
		if last >= offset {
			break
		}
		drop = append(drop, f)
	}
	return q.removeFront(drop, 0)
}

func (q *MappedFileQueue) removeFront(drop []*MappedFile, interval time.Duration) int {
	n := 0
	for i, f := range drop {
		if i > 0 && interval > 0 {
			time.Sleep(interval)
		}
		if err := f.Destroy(); err != nil {
			q.lg.Warn("delete mapped file failed", zap.String("file", f.FileName()), zap.Error(err))
			break
		}
		n++
	}
	q.mu.Lock()
	q.files = q.files[min(n, len(q.files)):]
	q.mu.Unlock()
	if n > 0 {
		q.lg.Info("deleted expired files", zap.Int("count", n), zap.String("dir", q.dir))
	}
	return n
}

// Shutdown unmaps every file (and stops the allocator, deleting any
// preallocated file that was never used).
func (q *MappedFileQueue) Shutdown() {
	q.stopBackground()
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, f := range q.files {
		f.Close()
	}
}

// stopBackground stops the allocator and the warmer before files go.
func (q *MappedFileQueue) stopBackground() {
	if q.alloc != nil {
		q.alloc.shutdown()
	}
	if q.warm != nil {
		q.warm.shutdown()
	}
}

// Destroy deletes every file and the directory's content (Java destroy).
func (q *MappedFileQueue) Destroy() error {
	q.stopBackground()
	q.mu.Lock()
	fs := q.files
	q.files = nil
	q.mu.Unlock()
	q.flushedWhere.Store(0)
	q.committedWhere.Store(0)
	return destroyAll(fs)
}
