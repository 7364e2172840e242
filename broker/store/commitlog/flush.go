package commitlog

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/service"
)

// flushAsync is one round of Java FlushRealTimeService: flush when at least
// FlushLeastPages pages are dirty, or everything once per
// FlushThoroughInterval, then record the checkpoint's physicMsgTimestamp.
func (c *CommitLog) flushAsync(context.Context) {
	least := c.cfg.FlushLeastPages
	now := time.Now().UnixMilli()
	if now >= c.lastThorough.Load()+c.cfg.FlushThoroughInterval.Milliseconds() {
		c.lastThorough.Store(now)
		least = 0
	}
	start := time.Now()
	if _, err := c.q.Flush(least); err != nil {
		c.lg.Error("flush commit log failed", zap.Error(err))
		return
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		c.lg.Warn("slow commit log flush", zap.Duration("took", took), zap.Duration("expected", 500*time.Millisecond))
	}
	c.recordFlushTimestamp()
}

// handleDiskFlushAndHA completes a successful append: SYNC_FLUSH waits for
// the group commit, SYNC_MASTER for the replica, both concurrently (Java
// submitFlushRequest.thenCombine(submitReplicaRequest)).
func (c *CommitLog) handleDiskFlushAndHA(res PutMessageResult, m *message.MessageExt, done func(PutMessageResult)) {
	wait := message.PropertyValue(m.PropertiesString, message.PropertyWaitStoreMsgOK) != "false"
	end := res.Append.WroteOffset + int64(res.Append.WroteBytes)
	needFlush := c.group != nil && wait
	needReplica := c.cfg.SyncMaster && wait
	if c.group == nil && !c.cfg.FlushTimed {
		c.flusher.Wakeup()
	}
	if c.group != nil && !wait {
		c.group.svc.Wakeup()
	}
	if !needFlush && !needReplica {
		done(res)
		return
	}
	p := &pendingPut{res: res, done: done}
	if needFlush && needReplica {
		p.left = 2
	} else {
		p.left = 1
	}
	if needFlush {
		c.group.submit(end, p.flushDone)
	}
	if needReplica {
		c.waitReplica(end, p.replicaDone)
	}
}

func (c *CommitLog) waitReplica(end int64, done func(PutMessageStatus)) {
	box := c.replica.Load()
	if box == nil || !box.w.IsSlaveOK(end) {
		done(SlaveNotAvailable)
		return
	}
	box.w.WaitReplicated(end, c.cfg.SyncFlushTimeout, func(ok bool) {
		if ok {
			done(PutOK)
		} else {
			done(FlushSlaveTimeout)
		}
	})
}

// pendingPut joins the flush and replica confirmations of one put.
type pendingPut struct {
	mu      sync.Mutex
	res     PutMessageResult
	left    int
	flushSt PutMessageStatus
	replSt  PutMessageStatus
	done    func(PutMessageResult)
}

func (p *pendingPut) flushDone(s PutMessageStatus)   { p.finish(s, true) }
func (p *pendingPut) replicaDone(s PutMessageStatus) { p.finish(s, false) }

func (p *pendingPut) finish(s PutMessageStatus, flush bool) {
	p.mu.Lock()
	if flush {
		p.flushSt = s
	} else {
		p.replSt = s
	}
	p.left--
	last := p.left == 0
	p.mu.Unlock()
	if !last {
		return
	}
	// The replica status wins over the flush status, as in Java's combine.
	if p.flushSt != PutOK {
		p.res.Status = p.flushSt
	}
	if p.replSt != PutOK {
		p.res.Status = p.replSt
	}
	p.done(p.res)
}

// groupCommit is Java GroupCommitService: appenders queue "flush up to
// offset" requests; one goroutine flushes and completes every request the
// flush covers. A request not covered within SyncFlushTimeout completes
// with FLUSH_DISK_TIMEOUT (the data stays and is flushed later).
type groupCommit struct {
	c   *CommitLog
	svc *service.Service

	mu   sync.Mutex
	reqs []*flushReq // guarded by mu
}

type flushReq struct {
	offset int64
	once   sync.Once
	timer  *time.Timer
	done   func(PutMessageStatus)
}

// complete reports s once. It does not touch r.timer: the timer callback
// calls it too, and only the group-commit goroutine (ordered after submit
// by g.mu) stops the timer.
func (r *flushReq) complete(s PutMessageStatus) {
	r.once.Do(func() { r.done(s) })
}

func newGroupCommit(c *CommitLog) *groupCommit {
	g := &groupCommit{c: c}
	g.svc = service.New("groupCommitService", 10*time.Millisecond, g.run)
	return g
}

func (g *groupCommit) submit(offset int64, done func(PutMessageStatus)) {
	r := &flushReq{offset: offset, done: done}
	if g.c.closed.Load() { // shutdown already ran its final flush
		if g.c.q.FlushedWhere() >= offset {
			done(PutOK)
		} else {
			done(FlushDiskTimeout)
		}
		return
	}
	g.mu.Lock()
	r.timer = time.AfterFunc(g.c.cfg.SyncFlushTimeout, func() { r.complete(FlushDiskTimeout) })
	g.reqs = append(g.reqs, r)
	g.mu.Unlock()
	g.svc.Wakeup()
}

func (g *groupCommit) take() []*flushReq {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.reqs
	g.reqs = nil
	return r
}

// run flushes until every queued request is covered or the flush stops
// moving (error, or nothing left), then completes the requests.
func (g *groupCommit) run(context.Context) {
	reqs := g.take()
	if len(reqs) == 0 {
		return
	}
	var target int64
	for _, r := range reqs {
		target = max(target, r.offset)
	}
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
	flushed := q.FlushedWhere()
	for _, r := range reqs {
		r.timer.Stop()
		if flushed >= r.offset {
			r.complete(PutOK)
		} else {
			r.complete(FlushDiskTimeout)
		}
	}
}

// completeAll answers every queued request after the final flush (shutdown).
func (g *groupCommit) completeAll() {
	g.run(context.Background())
}
