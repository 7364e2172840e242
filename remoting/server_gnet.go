package remoting

import (
	"runtime"

	"github.com/panjf2000/gnet/v2"
	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

// gnetHandler is the server's gnet.EventHandler. Its methods run on event
// loops and never block: frames are copied out and handed to pools.
type gnetHandler struct {
	gnet.BuiltinEventEngine
	s *Server
}

func (h *gnetHandler) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	s := h.s
	if s.closing.Load() {
		return nil, gnet.Close
	}
	ch := newChannel(s.ep, addrString(c.RemoteAddr()), addrString(c.LocalAddr()))
	ch.kick = func() { kickOnLoop(ch, c) }
	ch.closeFn = c.Close
	c.SetContext(ch)
	s.ep.addChannel(ch)
	return nil, gnet.None
}

func (h *gnetHandler) OnClose(c gnet.Conn, err error) gnet.Action {
	ch, ok := c.Context().(*Channel)
	if !ok {
		return gnet.None
	}
	if err != nil {
		h.s.lg.Debug("channel closed with error", zap.String("remoteAddr", ch.remoteAddr), zap.Error(err))
	}
	h.s.ep.channelGone(ch)
	return gnet.None
}

// OnTraffic takes every whole frame buffered, copies them into one new slice
// (decoded commands may alias it), discards them from gnet's buffer and
// dispatches them. Then it writes, in one system call, the answers of inline
// requests and every answer queued on the channel by other goroutines
// (see flushOnLoop). A flush scheduled by Channel.kick arrives here too, as
// gnet's Wake, with nothing to read.
func (h *gnetHandler) OnTraffic(c gnet.Conn) gnet.Action {
	ch, ok := c.Context().(*Channel)
	if !ok {
		return gnet.Close
	}
	a, handed := readFrames(h.s.ep, ch, c)
	if a != gnet.None {
		return a
	}
	a = flushOnLoop(ch, c)
	if handed {
		yieldToHandedWork()
	}
	return a
}

// yieldToHandedWork lets the goroutines this event loop just made runnable
// (pool workers, the broker's timed executors, waiters of responses) run
// before the loop goes back to epoll_wait.
//
// Why: the runtime puts a goroutine woken from this loop in the loop's own
// P (its runnext slot), and gnet's poller then blocks in a plain epoll_wait
// system call that keeps that P. gnet yields once (runtime.Gosched) before
// it blocks, which normally runs the woken goroutine; but one schedule in
// 61 takes the global run queue first (the runtime's fairness check), which
// is where Gosched put the loop itself: the loop then blocks with the woken
// goroutine stranded on its P until sysmon takes the P back, and an idle
// process's sysmon sleeps up to 10 ms. That was most of the long-poll
// wake-up p99 (a send or pull stranded 10-14 ms before its worker started,
// seen in a runtime trace of mqbench -mode wake). With a second yield the
// fairness check can catch at most one of the two, so the woken goroutine
// runs before the loop blocks. (Goroutines woken while every P is held by
// a loop blocked in epoll_wait still wait for sysmon; see docs/benchmarks.md.)
func yieldToHandedWork() { runtime.Gosched() }

// readFrames dispatches the whole frames buffered on c; handed reports
// whether any of them went to another goroutine.
func readFrames(ep *endpoint, ch *Channel, c gnet.Conn) (a gnet.Action, handed bool) {
	buffered := c.InboundBuffered()
	if buffered == 0 { // a wake: nothing to read
		return gnet.None, false
	}
	ch.touch()
	if buffered < ch.need { // a large frame still arriving: no Peek (it may copy)
		return gnet.None, false
	}
	buf, err := c.Peek(buffered)
	if err != nil {
		return gnet.None, false
	}
	off := 0
	ch.need = 0
	for off < len(buf) {
		n, err := codec.FrameLength(buf[off:], ep.maxFrame)
		if err != nil {
			ep.lg.Warn("bad frame, close the connection", zap.String("remoteAddr", ch.remoteAddr), zap.Error(err))
			return gnet.Close, false
		}
		if n == 0 || off+n > len(buf) {
			ch.need = n
			break
		}
		off += n
	}
	if off == 0 {
		return gnet.None, false
	}
	// append, unlike make+copy, does not zero the bytes it then overwrites
	data := append([]byte(nil), buf[:off]...)
	_, _ = c.Discard(off)
	return dispatchFrames(ep, ch, data)
}

// dispatchFrames decodes consecutive whole frames and hands them on.
// Requests for inline processors run here; their responses are appended to
// ch.inlineOut, which flushOnLoop writes once all frames are handled.
// handed reports whether a frame went to another goroutine: to a pool, to
// a response waiter, or queued by an inline processor that answered
// nothing yet.
func dispatchFrames(ep *endpoint, ch *Channel, data []byte) (a gnet.Action, handed bool) {
	out := ch.inlineOut[:0]
	defer func() { ch.inlineOut = out }()
	for len(data) > 0 {
		n, err := codec.FrameLength(data, ep.maxFrame)
		if err != nil || n == 0 || n > len(data) {
			return gnet.Close, handed // cannot happen: frames were measured before
		}
		cmd, err := codec.DecodeLazy(data[:n:n]) // a send's processor reads its header without a map
		if err != nil {
			ep.lg.Warn("decode frame failed, close the connection", zap.String("remoteAddr", ch.remoteAddr), zap.Error(err))
			return gnet.Close, handed
		}
		data = data[n:]
		if pe, ok := ep.inlineEntry(cmd); ok {
			before := len(out)
			out = ep.runInline(pe, newContext(ch, cmd, ep.lg), cmd, out)
			handed = handed || len(out) == before
			continue
		}
		ep.handle(ch, cmd)
		handed = true
	}
	return gnet.None, handed
}

// kickOnLoop is a gnet channel's Channel.kick: it asks the event loop to
// flush the channel, through gnet's Wake (a task on the loop's queue that
// calls OnTraffic). The batch is taken when the task runs, not now, so every
// answer queued until then leaves in the same write; a read of the
// connection that comes first takes it instead (the task then finds
// nothing, or what was queued since).
func kickOnLoop(ch *Channel, c gnet.Conn) {
	if err := c.Wake(nil); err != nil { // the engine is stopping
		ch.abortFlush()
	}
}

// flushOnLoop writes the inline answers of the current read and the frames
// queued on the channel with one write (writev when both are present).
// Conn.Write and Writev copy what the socket does not take at once, so
// both buffers are reused at once. Event loop only.
func flushOnLoop(ch *Channel, c gnet.Conn) gnet.Action {
	inline := ch.inlineOut
	queued := ch.takeQueued()
	var err error
	switch {
	case len(inline) > 0 && len(queued) > 0:
		ch.iov[0], ch.iov[1] = inline, queued
		_, err = c.Writev(ch.iov[:])
		ch.iov[0], ch.iov[1] = nil, nil
	case len(inline) > 0:
		_, err = c.Write(inline)
	case len(queued) > 0:
		_, err = c.Write(queued)
	default:
		return gnet.None
	}
	ch.writes.Add(1)
	ch.touch()
	ch.inlineOut = nil
	if cap(inline) <= maxSpareBuffer {
		ch.inlineOut = inline[:0]
	}
	if queued != nil {
		ch.recycle(queued)
	}
	if err != nil {
		return gnet.Close
	}
	return gnet.None
}

func addrString(a interface{ String() string }) string {
	if a == nil {
		return ""
	}
	return a.String()
}
