package commitlog

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/service"
)

// groupCommit mirrors Java GroupCommitService: appenders queue "flush up to
// offset" requests; one goroutine takes everything queued, makes it durable
// with one flush (one msync per file touched) and completes every request
// the flush covers, so one disk sync serves every writer that queued while
// the previous sync ran.
//
// The flush goroutine only flushes: it hands each flushed batch to a
// completer goroutine (Java answers on putMessageFutureExecutor, not on the
// flush thread) and starts the next sync at once, so answering one batch
// (encoding and writing the send responses) overlaps the next fsync instead
// of delaying it. The hand-off is unbuffered: one batch completes while the
// next flushes, and completions keep the order of the batches.
//
// Requests are plain values in a slice (no goroutine, timer or allocation
// per request). A request not covered within SyncFlushTimeout completes
// with FLUSH_DISK_TIMEOUT (the data stays and is flushed later); one
// watchdog timer, armed for the oldest pending deadline, enforces that even
// while the flush itself is stuck.
type groupCommit struct {
	c    *CommitLog
	svc  *service.Service
	base time.Time // deadlines are nanoseconds since base (monotonic)

	mu       sync.Mutex
	queue    []flushReq   // submitted, not yet taken; deadlines non-decreasing
	inflight []flushReq   // taken by the running flush; nil while none runs
	spares   [][]flushReq // recycled backing arrays: one per batch in flight or completing
	watchdog *time.Timer  // fires at the oldest pending deadline
	armed    bool         // watchdog is set
	stopped  bool         // shutdown's final flush ran; complete new requests at once

	flushed    chan flushedBatch // flush goroutine -> completer; unbuffered
	quit       chan struct{}     // closed by completeAll: the completer drains and returns
	completing bool              // the completer runs (start); under mu
	quitDone   chan struct{}     // closed when the completer has returned
}

// flushedBatch is a batch taken by one flush and the durable end after it.
type flushedBatch struct {
	reqs []flushReq
	to   int64
}

// flushCompleter receives the result of one flush request exactly once.
type flushCompleter interface{ flushDone(PutMessageStatus) }

type flushReq struct {
	offset   int64
	deadline int64          // ns since base
	w        flushCompleter // nil once completed (by the watchdog)
}

func newGroupCommit(c *CommitLog) *groupCommit {
	g := &groupCommit{
		c: c, base: time.Now(),
		flushed: make(chan flushedBatch), quit: make(chan struct{}), quitDone: make(chan struct{}),
	}
	g.svc = service.New("groupCommitService", 10*time.Millisecond, g.run)
	g.watchdog = time.AfterFunc(time.Hour, g.expire)
	g.watchdog.Stop()
	return g
}

func (g *groupCommit) now() int64 { return int64(time.Since(g.base)) }

// submit queues a request to flush up to offset and wakes the service.
func (g *groupCommit) submit(offset int64, w flushCompleter) {
	g.mu.Lock()
	if g.stopped {
		g.mu.Unlock()
		if g.c.q.FlushedWhere() >= offset {
			w.flushDone(PutOK)
		} else {
			w.flushDone(FlushDiskTimeout)
		}
		return
	}
	timeout := g.c.cfg.SyncFlushTimeout
	g.queue = append(g.queue, flushReq{offset: offset, deadline: g.now() + int64(timeout), w: w})
	if !g.armed {
		g.armed = true
		g.watchdog.Reset(timeout)
	}
	g.mu.Unlock()
	g.svc.Wakeup()
}

// run is one round of the service: take the queue, flush once far enough
// for all of it, hand it to the completer.
func (g *groupCommit) run(context.Context) {
	g.mu.Lock()
	reqs := g.queue
	if len(reqs) == 0 {
		g.mu.Unlock()
		return
	}
	g.queue = nil
	if n := len(g.spares); n > 0 {
		g.queue, g.spares = g.spares[n-1][:0], g.spares[:n-1]
	}
	g.inflight = reqs
	// The target is read under the lock: once the batch is in inflight the
	// watchdog may clear any request's completer, and copying a request out
	// of the slice reads that field too.
	var target int64
	for i := range reqs {
		target = max(target, reqs[i].offset)
	}
	g.mu.Unlock()

	g.flushTo(target)
	b := flushedBatch{reqs: reqs, to: g.c.q.FlushedWhere()}

	g.mu.Lock() // take the batch back: the watchdog no longer sees it
	g.inflight = nil
	g.mu.Unlock()
	select {
	case g.flushed <- b:
	case <-g.quit: // shut down: no completer takes it
		g.complete(b)
	}
}

// start spawns the completer; the service is started by the caller.
func (g *groupCommit) start() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.completing || g.stopped {
		return
	}
	g.completing = true
	go g.completer()
}

// completer completes flushed batches in order until quit. The hand-off
// is unbuffered, so no batch is left behind: a flush that finds no
// completer after quit completes its batch itself.
func (g *groupCommit) completer() {
	defer close(g.quitDone)
	for {
		select {
		case b := <-g.flushed:
			g.complete(b)
		case <-g.quit:
			return
		}
	}
}

// complete answers every request of a flushed batch not yet timed out and
// recycles the batch's slice.
func (g *groupCommit) complete(b flushedBatch) {
	reqs, flushed := b.reqs, b.to
	for i := range reqs {
		w := reqs[i].w
		reqs[i].w = nil
		if w == nil {
			continue // timed out already
		}
		if flushed >= reqs[i].offset {
			w.flushDone(PutOK)
		} else {
			w.flushDone(FlushDiskTimeout)
		}
	}
	g.mu.Lock()
	if len(g.spares) < 2 {
		g.spares = append(g.spares, reqs[:0])
	}
	g.mu.Unlock()
}

// flushTo flushes file after file until target is durable or the flush
// stops moving (error, or nothing left).
func (g *groupCommit) flushTo(target int64) {
	q := g.c.q
	for q.FlushedWhere() < target {
		noMove, err := q.Flush(0)
		if err != nil {
			g.c.lg.Error("group commit flush failed", zap.Error(err))
			break
		}
		if noMove {
			break
		}
	}
	g.c.recordFlushTimestamp()
}

// expire is the watchdog: complete every pending request past its deadline
// with FLUSH_DISK_TIMEOUT and re-arm for the oldest one left.
func (g *groupCommit) expire() {
	var late []flushCompleter
	g.mu.Lock()
	now := g.now()
	next := int64(-1)
	for _, list := range [][]flushReq{g.inflight, g.queue} {
		for i := range list {
			r := &list[i]
			if r.w == nil {
				continue
			}
			if r.deadline > now {
				if next < 0 || r.deadline < next {
					next = r.deadline
				}
				break // deadlines are non-decreasing within a list
			}
			late = append(late, r.w)
			r.w = nil
		}
	}
	g.armed = next >= 0 && !g.stopped
	if g.armed {
		g.watchdog.Reset(time.Duration(next - now))
	}
	g.mu.Unlock()
	for _, w := range late {
		w.flushDone(FlushDiskTimeout)
	}
}

// completeAll answers every queued request after the final flush
// (shutdown, service stopped) and makes later submits answer at once.
func (g *groupCommit) completeAll() {
	g.mu.Lock()
	g.stopped = true
	completing := g.completing
	g.mu.Unlock()
	// The completer finishes the batch it has, then the last flush
	// completes the rest itself, after it.
	close(g.quit)
	if completing {
		<-g.quitDone
	}
	g.run(context.Background())
	g.mu.Lock()
	g.watchdog.Stop()
	g.armed = false
	g.mu.Unlock()
}
