package commitlog

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/message"
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

// waitNeeds reports which confirmations a successful append needs and
// wakes the flush service where Java does.
func (c *CommitLog) waitNeeds(m *message.MessageExt) (needFlush, needReplica bool) {
	wait := message.PropertyValue(m.PropertiesString, message.PropertyWaitStoreMsgOK) != "false"
	if c.group == nil && !c.cfg.FlushTimed {
		c.flusher.Wakeup()
	}
	if c.group != nil && !wait {
		c.group.svc.Wakeup()
	}
	return c.group != nil && wait, c.isSyncMaster() && wait
}

// handleDiskFlushAndHA completes a successful append: SYNC_FLUSH waits for
// the group commit, SYNC_MASTER for the replica, both concurrently (Java
// submitFlushRequest.thenCombine(submitReplicaRequest)).
func (c *CommitLog) handleDiskFlushAndHA(res PutMessageResult, m *message.MessageExt, done func(PutMessageResult)) {
	needFlush, needReplica := c.waitNeeds(m)
	if !needFlush && !needReplica {
		done(res)
		return
	}
	p := &pendingPut{res: res, done: done}
	c.startWaits(p, needFlush, needReplica)
}

// awaitDiskFlushAndHA is the blocking form of handleDiskFlushAndHA, with a
// pooled waiter instead of a callback.
func (c *CommitLog) awaitDiskFlushAndHA(res PutMessageResult, m *message.MessageExt) PutMessageResult {
	needFlush, needReplica := c.waitNeeds(m)
	if !needFlush && !needReplica {
		return res
	}
	p, _ := waiterPool.Get().(*pendingPut)
	if p == nil {
		p = &pendingPut{ch: make(chan struct{}, 1)}
		p.replicatedFn = p.replicated // made once per pooled waiter
	}
	p.res = res
	c.startWaits(p, needFlush, needReplica)
	<-p.ch
	res = p.res
	*p = pendingPut{ch: p.ch, replicatedFn: p.replicatedFn}
	waiterPool.Put(p)
	return res
}

// waiterPool recycles the pendingPuts of blocking puts. A waiter goes back
// only after its final completion was received, and completers drop their
// reference before completing, so a recycled waiter is never completed twice.
var waiterPool sync.Pool

func (c *CommitLog) startWaits(p *pendingPut, needFlush, needReplica bool) {
	end := p.res.Append.WroteOffset + int64(p.res.Append.WroteBytes)
	p.flushSt, p.replSt = PutOK, PutOK
	if needFlush && needReplica {
		p.left.Store(2)
	} else {
		p.left.Store(1)
	}
	if needFlush {
		c.group.submit(end, p)
	}
	if needReplica {
		c.waitReplica(end, p)
	}
}

func (c *CommitLog) waitReplica(end int64, p *pendingPut) {
	box := c.replica.Load()
	if box == nil || !box.w.IsSlaveOK(end) {
		p.replicaDone(SlaveNotAvailable)
		return
	}
	done := p.replicatedFn
	if done == nil {
		done = p.replicated // one allocation (a callback put's pendingPut is not reused)
	}
	box.w.WaitReplicated(end, c.cfg.SyncFlushTimeout, done)
}

// pendingPut joins the flush and replica confirmations of one put and then
// calls done, or (blocking puts) signals ch.
type pendingPut struct {
	res     PutMessageResult
	left    atomic.Int32
	flushSt PutMessageStatus // written before the left decrement that publishes it
	replSt  PutMessageStatus
	done    func(PutMessageResult)
	ch      chan struct{} // buffered(1); nil for callback puts

	replicatedFn func(ok bool) // p.replicated, kept by pooled waiters; nil otherwise
}

func (p *pendingPut) flushDone(s PutMessageStatus) {
	p.flushSt = s
	p.finish()
}

func (p *pendingPut) replicaDone(s PutMessageStatus) {
	p.replSt = s
	p.finish()
}

// replicated is the HA service's answer: ok, or FLUSH_SLAVE_TIMEOUT.
func (p *pendingPut) replicated(ok bool) {
	if ok {
		p.replicaDone(PutOK)
	} else {
		p.replicaDone(FlushSlaveTimeout)
	}
}

func (p *pendingPut) finish() {
	if p.left.Add(-1) != 0 {
		return
	}
	// The replica status wins over the flush status, as in Java's combine.
	if p.flushSt != PutOK {
		p.res.Status = p.flushSt
	}
	if p.replSt != PutOK {
		p.res.Status = p.replSt
	}
	if p.ch != nil {
		p.ch <- struct{}{}
		return
	}
	p.done(p.res)
}
