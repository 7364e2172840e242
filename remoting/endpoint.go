package remoting

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// endpoint is what Server and Client share (Java's NettyRemotingAbstract):
// the processor table, the pending-response table, the channel set, the
// channel-event goroutine and the housekeeping goroutine.
type endpoint struct {
	lg       *zap.Logger
	maxFrame int
	idle     time.Duration // 0: no idle check

	procMu sync.RWMutex
	procs  map[int32]procEntry
	def    *procEntry
	pools  map[*Pool]struct{} // distinct pools, released on stop

	pending *pendingTable
	tasks   atomic.Int64 // processor tasks queued or running

	observer RPCObserver // set before Start (Server.SetRPCObserver); nil: none

	chMu     sync.Mutex
	channels map[uint64]*Channel

	listenerMu sync.RWMutex
	listener   ChannelEventListener
	evMu       sync.Mutex     // guards evQueue
	evQueue    []channelEvent // to the event goroutine; full → dropped like Java
	evWake     chan struct{}  // buffered(1): evQueue has events

	goMu     sync.Mutex // guards stopping and goWG.Add
	stopping bool
	goWG     sync.WaitGroup
	stopCh   chan struct{} // closed by stopHousekeeping
	evStop   chan struct{} // closed to end the event goroutine after the last events
}

func newEndpoint(lg *zap.Logger, maxFrame int, idle time.Duration) *endpoint {
	if maxFrame <= 0 {
		maxFrame = codec.DefaultMaxFrameLength
	}
	return &endpoint{
		lg:       lg,
		maxFrame: maxFrame,
		idle:     idle,
		procs:    make(map[int32]procEntry),
		pools:    make(map[*Pool]struct{}),
		pending:  newPendingTable(),
		channels: make(map[uint64]*Channel),
		evWake:   make(chan struct{}, 1),
		stopCh:   make(chan struct{}),
		evStop:   make(chan struct{}),
	}
}

// goFunc runs f on a goroutine the endpoint waits for; false once stopping.
func (ep *endpoint) goFunc(f func()) bool {
	ep.goMu.Lock()
	defer ep.goMu.Unlock()
	if ep.stopping {
		return false
	}
	ep.goWG.Add(1)
	go func() {
		defer ep.goWG.Done()
		f()
	}()
	return true
}

func (ep *endpoint) register(c int32, p Processor, pool *Pool) {
	ep.procMu.Lock()
	defer ep.procMu.Unlock()
	ep.procs[c] = procEntry{p: p, pool: ep.adopt(pool)}
}

func (ep *endpoint) registerDefault(p Processor, pool *Pool) {
	ep.procMu.Lock()
	defer ep.procMu.Unlock()
	ep.def = &procEntry{p: p, pool: ep.adopt(pool)}
}

// adopt takes a reference on pool once per endpoint. Caller holds procMu.
func (ep *endpoint) adopt(pool *Pool) *Pool {
	if pool == nil {
		panic("remoting: nil pool registered")
	}
	if _, ok := ep.pools[pool]; !ok {
		ep.pools[pool] = struct{}{}
		pool.acquire()
	}
	return pool
}

func (ep *endpoint) lookup(c int32) (procEntry, bool) {
	ep.procMu.RLock()
	defer ep.procMu.RUnlock()
	if pe, ok := ep.procs[c]; ok {
		return pe, true
	}
	if ep.def != nil {
		return *ep.def, true
	}
	return procEntry{}, false
}

// handle routes one decoded frame; it never blocks (called on event loops).
func (ep *endpoint) handle(ch *Channel, cmd *codec.RemotingCommand) {
	if cmd.IsResponse() {
		ep.onResponse(ch, cmd)
		return
	}
	ep.onRequest(ch, cmd)
}

func (ep *endpoint) onResponse(ch *Channel, resp *codec.RemotingCommand) {
	rf := ep.pending.remove(resp.Opaque)
	if rf == nil {
		ep.lg.Debug("receive response, but not matched any request",
			zap.String("remoteAddr", ch.remoteAddr), zap.Int32("opaque", resp.Opaque), zap.Int32("code", resp.Code))
		return
	}
	ep.complete(rf, resp, nil)
}

// complete delivers the outcome of rf; async callbacks run on their own goroutine.
func (ep *endpoint) complete(rf *responseFuture, resp *codec.RemotingCommand, err error) {
	if rf.result != nil {
		rf.result <- invokeResult{resp: resp, err: err}
		return
	}
	if rf.cb == nil {
		return
	}
	cb := rf.cb
	if !ep.goFunc(func() { ep.runCallback(cb, resp, err) }) {
		go ep.runCallback(cb, resp, err) // endpoint stopping: still answer once
	}
}

func (ep *endpoint) runCallback(cb func(*codec.RemotingCommand, error), resp *codec.RemotingCommand, err error) {
	defer func() {
		if r := recover(); r != nil {
			ep.lg.Error("invoke callback panic", zap.Any("panic", r), zap.Stack("stack"))
		}
	}()
	cb(resp, err)
}

func (ep *endpoint) onRequest(ch *Channel, req *codec.RemotingCommand) {
	ctx := newContext(ch, req, ep.lg)
	if ep.observer != nil {
		ctx.observe(ep.observer)
	}
	pe, ok := ep.lookup(req.Code)
	if !ok {
		remark := " request type " + strconv.Itoa(int(req.Code)) + " not supported"
		ep.lg.Warn("request code not supported", zap.String("remoteAddr", ch.remoteAddr), zap.Int32("code", req.Code))
		ctx.write(codec.NewResponse(code.RequestCodeNotSupported, remark))
		return
	}
	ep.tasks.Add(1)
	task := func() {
		defer ep.tasks.Add(-1)
		ep.run(pe.p, ctx, req)
	}
	if !pe.pool.Submit(task) {
		ep.tasks.Add(-1)
		ep.lg.Debug("too many requests and thread pool busy", zap.String("remoteAddr", ch.remoteAddr),
			zap.String("pool", pe.pool.name), zap.Int32("code", req.Code))
		ctx.respondAsIs(codec.NewResponse(code.SystemBusy, "[OVERLOAD]system busy, start flow control for a while"))
	}
}

// run executes one processor call on a pool worker and sends its answer.
func (ep *endpoint) run(p Processor, ctx *Context, req *codec.RemotingCommand) {
	resp, asIs := outcome(ep.safeProcess(p, ctx, req))
	if asIs {
		ctx.respondAsIs(resp)
		return
	}
	ctx.Respond(resp) // nil: deferred or oneway
}

func (ep *endpoint) safeProcess(p Processor, ctx *Context, req *codec.RemotingCommand) (resp *codec.RemotingCommand, err error) {
	defer func() {
		if r := recover(); r != nil {
			ep.lg.Error("process request exception", zap.String("remoteAddr", ctx.Channel.remoteAddr),
				zap.Int32("code", req.Code), zap.Int32("opaque", req.Opaque), zap.Any("panic", r), zap.Stack("stack"))
			resp, err = nil, fmt.Errorf("%v", r)
		}
	}()
	return p.ProcessRequest(ctx, req)
}

// addChannel tracks a new connection and announces it.
func (ep *endpoint) addChannel(ch *Channel) {
	ep.chMu.Lock()
	ep.channels[ch.id] = ch
	ep.chMu.Unlock()
	ep.fire(EventConnect, ch)
}

// channelGone is called by the transport once a connection is closed.
func (ep *endpoint) channelGone(ch *Channel) {
	if !ch.markGone() {
		return
	}
	ep.chMu.Lock()
	delete(ep.channels, ch.id)
	ep.chMu.Unlock()
	for _, rf := range ep.pending.ofChannel(ch) {
		ep.complete(rf, nil, closedErr(rf))
	}
	ep.fire(EventClose, ch)
}

func (ep *endpoint) snapshotChannels() []*Channel {
	ep.chMu.Lock()
	defer ep.chMu.Unlock()
	out := make([]*Channel, 0, len(ep.channels))
	for _, ch := range ep.channels {
		out = append(out, ch)
	}
	return out
}

// startHousekeeping spawns the event goroutine and the sweeper (pending
// timeouts every sweepInterval, idle channels).
func (ep *endpoint) startHousekeeping() {
	ep.goFunc(ep.eventLoop)
	ep.goFunc(ep.sweepLoop)
}

func (ep *endpoint) sweepInterval() time.Duration {
	iv := 100 * time.Millisecond
	if ep.idle > 0 && ep.idle/10 < iv {
		iv = max(ep.idle/10, 10*time.Millisecond)
	}
	return iv
}

func (ep *endpoint) sweepLoop() {
	t := time.NewTicker(ep.sweepInterval())
	defer t.Stop()
	for {
		select {
		case <-ep.stopCh:
			return
		case now := <-t.C:
			ep.sweep(now)
		}
	}
}

func (ep *endpoint) sweep(now time.Time) {
	for _, rf := range ep.pending.expired(now) {
		ep.complete(rf, nil, timeoutErr(rf))
	}
	if ep.idle <= 0 {
		return
	}
	for _, ch := range ep.snapshotChannels() {
		if ch.idleFor(now) >= ep.idle && !ch.IsClosed() {
			ep.lg.Info("channel idle, close it", zap.String("remoteAddr", ch.remoteAddr),
				zap.Duration("idle", ch.idleFor(now)))
			ep.fire(EventIdle, ch)
			_ = ch.Close()
		}
	}
}

// stopHousekeeping ends the sweeper, fails every pending call, delivers the
// remaining channel events, waits for the endpoint's goroutines and releases
// the pools.
func (ep *endpoint) stopHousekeeping(ctx context.Context) error {
	ep.goMu.Lock()
	already := ep.stopping
	ep.stopping = true
	ep.goMu.Unlock()
	if already {
		return nil
	}
	close(ep.stopCh)
	for _, rf := range ep.pending.all() {
		go ep.runCallbackOrResult(rf)
	}
	close(ep.evStop)
	done := make(chan struct{})
	go func() { ep.goWG.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	ep.procMu.Lock()
	pools := ep.pools
	ep.pools = map[*Pool]struct{}{}
	ep.procMu.Unlock()
	for p := range pools {
		if perr := p.release(ctx); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}

func (ep *endpoint) runCallbackOrResult(rf *responseFuture) {
	err := fmt.Errorf("%w: opaque %d", ErrShutdown, rf.opaque)
	if rf.result != nil {
		rf.result <- invokeResult{err: err}
		return
	}
	if rf.cb != nil {
		ep.runCallback(rf.cb, nil, err)
	}
}

// waitTasks polls until no processor task is queued or running, or ctx ends.
// (A WaitGroup cannot be used: event loops add tasks while Shutdown waits.)
func (ep *endpoint) waitTasks(ctx context.Context) error {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for ep.tasks.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}
