package mmap

import (
	"sync"

	"go.uber.org/zap"
)

// allocator creates the next file of a queue in the background (Java
// AllocateMappedFileService): when file N is handed out, file N+1 starts
// being created, sized, mapped and optionally pre-faulted, so that the
// append path only swaps in a ready mapping.
type allocator struct {
	fileSize int
	warm     bool
	lg       *zap.Logger

	mu      sync.Mutex
	pending map[string]*allocation
	closed  bool
	wg      sync.WaitGroup // one per in-flight allocation goroutine
}

type allocation struct {
	done chan struct{} // closed when mf/err are set
	mf   *MappedFile
	err  error
}

func newAllocator(fileSize int, warm bool, lg *zap.Logger) *allocator {
	return &allocator{fileSize: fileSize, warm: warm, lg: lg, pending: map[string]*allocation{}}
}

// get returns the file at path (waiting for its background allocation, or
// creating it now) and starts allocating next.
func (a *allocator) get(path, next string) (*MappedFile, error) {
	a.mu.Lock()
	cur := a.pending[path]
	delete(a.pending, path)
	if cur == nil {
		cur = a.startLocked(path)
	}
	if _, ok := a.pending[next]; !ok && !a.closed {
		a.pending[next] = a.startLocked(next)
	}
	a.mu.Unlock()
	<-cur.done
	return cur.mf, cur.err
}

func (a *allocator) startLocked(path string) *allocation {
	al := &allocation{done: make(chan struct{})}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer close(al.done)
		al.mf, al.err = OpenMappedFile(path, a.fileSize)
		if al.err == nil && a.warm {
			al.mf.Warmup()
		}
		if al.err != nil {
			a.lg.Warn("allocate mapped file failed", zap.String("file", path), zap.Error(al.err))
		}
	}()
	return al
}

// shutdown waits for in-flight allocations and deletes the unused ones.
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
