package mmap

import (
	"sync"
	"sync/atomic"

	"go.uber.org/zap"
)

// allocator creates the next file of a queue in the background (Java
// AllocateMappedFileService): when file N is handed out, file N+1 starts
// being created, sized, mapped and its first head bytes write-faulted
// (QueueOptions.WarmAhead), so that the append path only swaps in a ready
// mapping whose first window does not trap into the kernel (a first-touch
// fault on a fresh ext4 page costs about as much as copying the whole page
// ten times); the queue's warmer then keeps the window ahead. The rest of
// the file stays a hole: warming all of it would make a gigabyte resident
// and write a gigabyte of zeros to disk per file.
//
// A file asked for before its head warm-up is finished is handed out at
// once: the warm-up is stopped (it checks a flag every warmChunk bytes), so
// the append lock never waits for more than one chunk.
type allocator struct {
	fileSize int
	warm     bool // Warmup every file (warmMapedFileEnable), even ones asked for now
	head     int  // bytes to write-fault at the head of files created ahead of need
	lg       *zap.Logger

	mu      sync.Mutex
	pending map[string]*allocation
	given   string // highest path handed out by get; ahead never prepares it or one below
	closed  bool
	wg      sync.WaitGroup // one per in-flight allocation goroutine
}

type allocation struct {
	mapped chan struct{} // closed when mf/err are set
	done   chan struct{} // closed when the goroutine no longer touches mf
	stop   atomic.Bool   // asks the head warm-up to return
	mf     *MappedFile
	err    error
}

func newAllocator(fileSize int, warm bool, head int, lg *zap.Logger) *allocator {
	return &allocator{fileSize: fileSize, warm: warm, head: head, lg: lg, pending: map[string]*allocation{}}
}

// get returns the file at path (waiting for its background mapping, or
// creating it now) and starts allocating next.
func (a *allocator) get(path, next string) (*MappedFile, error) {
	a.mu.Lock()
	cur := a.pending[path]
	delete(a.pending, path)
	a.given = max(a.given, path)
	if cur == nil {
		cur = a.startLocked(path, false)
	}
	if _, ok := a.pending[next]; !ok && !a.closed {
		a.pending[next] = a.startLocked(next, true)
	}
	var stale []*allocation // prepared for offsets the queue skipped (a slave starting mid-log)
	for p, al := range a.pending {
		if p < path { // equal-length names in one directory order by offset
			stale = append(stale, al)
			delete(a.pending, p)
		}
	}
	a.mu.Unlock()
	for _, al := range stale {
		al.stop.Store(true)
		<-al.done
		if al.mf != nil {
			_ = al.mf.Destroy()
		}
	}
	<-cur.mapped
	cur.stop.Store(true)
	<-cur.done
	return cur.mf, cur.err
}

func (a *allocator) startLocked(path string, ahead bool) *allocation {
	al := &allocation{mapped: make(chan struct{}), done: make(chan struct{})}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer close(al.done)
		al.mf, al.err = OpenMappedFile(path, a.fileSize)
		if al.err == nil && a.warm {
			al.mf.Warmup()
		}
		close(al.mapped)
		if al.err != nil {
			a.lg.Warn("allocate mapped file failed", zap.String("file", path), zap.Error(al.err))
			return
		}
		if ahead && !a.warm && a.head > 0 {
			al.mf.warmHead(&al.stop, a.head)
		}
	}()
	return al
}

// ahead starts allocating path (with its head warm-up) unless that is
// under way.
func (a *allocator) ahead(path string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.pending[path]; !ok && !a.closed && path > a.given {
		a.pending[path] = a.startLocked(path, true)
	}
}

// wait blocks until every allocation under way, warm-up included, is done.
func (a *allocator) wait() {
	a.mu.Lock()
	var all []*allocation
	for _, al := range a.pending {
		all = append(all, al)
	}
	a.mu.Unlock()
	for _, al := range all {
		<-al.done
	}
}

// shutdown stops in-flight warm-ups, waits for the allocation goroutines
// and deletes the files that were never handed out.
func (a *allocator) shutdown() {
	a.mu.Lock()
	a.closed = true
	left := a.pending
	a.pending = map[string]*allocation{}
	a.mu.Unlock()
	for _, al := range left {
		al.stop.Store(true)
	}
	a.wg.Wait()
	for _, al := range left {
		if al.mf != nil {
			_ = al.mf.Destroy()
		}
	}
}
