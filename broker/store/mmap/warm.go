package mmap

import (
	"sync"
	"sync/atomic"

	"go.uber.org/zap"
)

// warmChunk is how many bytes the warmer write-faults per
// MADV_POPULATE_WRITE call, between looks at the stop flag.
const warmChunk = 1 << 20

// warmer keeps a bounded window of pages past a queue's write position
// write-faulted, off the append path (QueueOptions.WarmAhead): the writer
// asks, cheaply and never blocking, whenever less than half the window is
// left, and one goroutine at a time populates from where the last one
// stopped up to the asked end with MADV_POPULATE_WRITE, which maps the
// pages writable without storing into them, so it never races the
// writer's stores. Only the window is faulted: the rest of the file stays a
// hole, costing neither memory nor disk until the writer reaches it.
//
// A page the writer reaches before the warmer is faulted by the writer, as
// without warming; where the kernel lacks MADV_POPULATE_WRITE the warmer
// turns itself off.
type warmer struct {
	window int
	lg     *zap.Logger

	mu      sync.Mutex
	idle    *sync.Cond  // signalled when running drops to false
	file    *MappedFile // latest request: populate file up to end
	end     int
	running bool // a goroutine is populating
	off     bool // MADV_POPULATE_WRITE unsupported: ignore requests
	closed  atomic.Bool
	wg      sync.WaitGroup // the running goroutine
}

func newWarmer(window int, lg *zap.Logger) *warmer {
	w := &warmer{window: window, lg: lg}
	w.idle = sync.NewCond(&w.mu)
	return w
}

// WarmAhead asks the queue's warmer to keep the pages up to
// QueueOptions.WarmAhead bytes past the write position write-faulted. It
// returns at once; it takes the warmer's mutex only when half the window
// has been used up. Writer only; no-op when the queue does not warm ahead.
func (m *MappedFile) WarmAhead() {
	w := m.warm
	if w == nil || m.warmAsked >= m.fileSize {
		return
	}
	p := int(m.wrote.Load())
	if p+w.window/2 < m.warmAsked {
		return
	}
	m.warmAsked = min(p+w.window, m.fileSize)
	w.ask(m, m.warmAsked)
}

// ask records the request and starts the goroutine unless one runs.
func (w *warmer) ask(m *MappedFile, end int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.file, w.end = m, end
	if w.running || w.off || w.closed.Load() {
		return
	}
	w.running = true
	w.wg.Add(1)
	go w.run()
}

// run serves requests until it has caught up with the latest one.
func (w *warmer) run() {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		m, end := w.file, w.end
		if m == nil || m.warmedTo >= end || w.off || w.closed.Load() {
			w.file = nil
			w.running = false
			w.idle.Broadcast()
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		if !w.populate(m, end) {
			w.mu.Lock()
			w.off = true
			w.mu.Unlock()
			w.lg.Info("warm-ahead off: MADV_POPULATE_WRITE not supported", zap.String("file", m.path))
		}
	}
}

// populate write-faults m from max(warmedTo, the writer's page) to end;
// false when the kernel does not support it. Other failures (the file
// destroyed meanwhile, a fault the filesystem refused) end warming of this
// file: the writer then faults, and reports, by itself.
func (w *warmer) populate(m *MappedFile, end int) bool {
	if !m.Hold() {
		m.warmedTo = end
		return true
	}
	defer m.Release()
	// Both ends may fall mid-page; the kernel wants a page-aligned start.
	from := max(m.warmedTo, int(m.wrote.Load())) &^ (OSPageSize - 1)
	for from < end && !w.closed.Load() {
		to := min(from+warmChunk, end)
		if err := populateWrite(m.data[from:to]); err != nil {
			if populateUnsupported(err) {
				return false
			}
			w.lg.Warn("warm-ahead failed", zap.String("file", m.path), zap.Int("from", from), zap.Error(err))
			m.warmedTo = m.fileSize
			return true
		}
		from = to
	}
	m.warmedTo = max(m.warmedTo, from)
	return true
}

// wait blocks until no goroutine is populating.
func (w *warmer) wait() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.running {
		w.idle.Wait()
	}
}

// shutdown stops the warmer: the running goroutine returns after its
// current chunk and later requests are ignored.
func (w *warmer) shutdown() {
	w.closed.Store(true)
	w.mu.Lock() // orders the Add of a goroutine started before closed was set
	w.mu.Unlock()
	w.wg.Wait()
}
