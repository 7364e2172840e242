package mmap

import (
	"sync"

	"go.uber.org/zap"
)

// allocator creates the next file of a queue in the background (Java
// AllocateMappedFileService): when file N is handed out, file N+1 starts
// being created, sized and mapped, so that the append path only swaps in a
// ready mapping. The file is left a hole: pages are warmed only a window
// ahead of the writer, by the queue's warmer once the file is in use
// (warming all of it would make a gigabyte resident and write a gigabyte of
// zeros to disk per file), or all of it with warm (warmMapedFileEnable).
type allocator struct {
	fileSize int
	warm     bool // Warmup every file (warmMapedFileEnable), even ones asked for now
	reserve  bool // reserve each file's blocks (not QueueOptions.Sparse)
	lg       *zap.Logger

	mu      sync.Mutex
	pending map[string]*allocation
	given   string // highest path handed out by get; ahead never prepares it or one below
	closed  bool
	wg      sync.WaitGroup // one per in-flight allocation goroutine
}

type allocation struct {
	done chan struct{} // closed when mf/err are set and the goroutine is done with mf
	mf   *MappedFile
	err  error
}

func newAllocator(fileSize int, warm, reserve bool, lg *zap.Logger) *allocator {
	return &allocator{fileSize: fileSize, warm: warm, reserve: reserve, lg: lg, pending: map[string]*allocation{}}
}

// get returns the file at path (waiting for its background mapping, or
// creating it now) and starts allocating next.
func (a *allocator) get(path, next string) (*MappedFile, error) {
	a.mu.Lock()
	cur := a.pending[path]
	delete(a.pending, path)
	a.given = max(a.given, path)
	if cur == nil {
		cur = a.startLocked(path)
	}
	if _, ok := a.pending[next]; !ok && !a.closed {
		a.pending[next] = a.startLocked(next)
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
		<-al.done
		if al.mf != nil {
			_ = al.mf.Destroy()
		}
	}
	<-cur.done
	return cur.mf, cur.err
}

func (a *allocator) startLocked(path string) *allocation {
	al := &allocation{done: make(chan struct{})}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer close(al.done)
		al.mf, al.err = openMappedFile(path, a.fileSize, a.reserve)
		if al.err != nil {
			a.lg.Warn("allocate mapped file failed", zap.String("file", path), zap.Error(al.err))
			return
		}
		if a.warm {
			al.mf.Warmup()
		}
	}()
	return al
}

// ahead starts allocating path unless that is under way.
func (a *allocator) ahead(path string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.pending[path]; !ok && !a.closed && path > a.given {
		a.pending[path] = a.startLocked(path)
	}
}

// wait blocks until every allocation under way is done.
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

// shutdown waits for the allocation goroutines and deletes the files that
// were never handed out.
func (a *allocator) shutdown() {
	a.mu.Lock()
	a.closed = true
	left := a.pending
	a.pending = map[string]*allocation{}
	a.mu.Unlock()
	a.wg.Wait()
	for _, al := range left {
		if al.mf != nil {
			_ = al.mf.Destroy()
		}
	}
}
