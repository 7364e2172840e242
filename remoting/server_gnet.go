package remoting

import (
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
	ch.kick = func() { gnetFlush(ch, c) }
	ch.flushed = func(c gnet.Conn, err error) error { return flushed(ch, c, err) }
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
// dispatches them.
func (h *gnetHandler) OnTraffic(c gnet.Conn) gnet.Action {
	ch, ok := c.Context().(*Channel)
	if !ok {
		return gnet.Close
	}
	ep := h.s.ep
	ch.touch()
	buffered := c.InboundBuffered()
	if buffered < ch.need { // a large frame still arriving: no Peek (it may copy)
		return gnet.None
	}
	buf, err := c.Peek(buffered)
	if err != nil {
		return gnet.None
	}
	off := 0
	ch.need = 0
	for off < len(buf) {
		n, err := codec.FrameLength(buf[off:], ep.maxFrame)
		if err != nil {
			ep.lg.Warn("bad frame, close the connection", zap.String("remoteAddr", ch.remoteAddr), zap.Error(err))
			return gnet.Close
		}
		if n == 0 || off+n > len(buf) {
			ch.need = n
			break
		}
		off += n
	}
	if off == 0 {
		return gnet.None
	}
	// append, unlike make+copy, does not zero the bytes it then overwrites
	data := append([]byte(nil), buf[:off]...)
	_, _ = c.Discard(off)
	return dispatchFrames(ep, ch, c, data)
}

// dispatchFrames decodes consecutive whole frames and hands them on.
// Requests for inline processors run here and their responses leave in one
// Conn.Write once all frames are handled.
func dispatchFrames(ep *endpoint, ch *Channel, c gnet.Conn, data []byte) gnet.Action {
	out := ch.inlineOut[:0]
	for len(data) > 0 {
		n, err := codec.FrameLength(data, ep.maxFrame)
		if err != nil || n == 0 || n > len(data) {
			return gnet.Close // cannot happen: frames were measured before
		}
		cmd, err := codec.DecodeLazy(data[:n:n]) // a send's processor reads its header without a map
		if err != nil {
			ep.lg.Warn("decode frame failed, close the connection", zap.String("remoteAddr", ch.remoteAddr), zap.Error(err))
			return gnet.Close
		}
		data = data[n:]
		if pe, ok := ep.inlineEntry(cmd); ok {
			out = ep.runInline(pe, newContext(ch, cmd, ep.lg), cmd, out)
			continue
		}
		ep.handle(ch, cmd)
	}
	if len(out) > 0 {
		// Conn.Write copies what the socket does not take at once, so the
		// buffer is reused for the next read.
		if _, err := c.Write(out); err != nil {
			return gnet.Close
		}
		ch.touch()
	}
	if cap(out) <= maxSpareBuffer {
		ch.inlineOut = out[:0]
	}
	return gnet.None
}

// gnetFlush writes the channel's queued bytes with AsyncWrite. Its callback
// runs on the event loop and writes whatever was queued meanwhile directly
// (Conn.Write is allowed there), so concurrent responses to one connection
// share write syscalls and event-loop wake-ups.
func gnetFlush(ch *Channel, c gnet.Conn) {
	b := ch.takeBatch()
	if b == nil {
		return
	}
	ch.flushing = b
	if err := c.AsyncWrite(b, ch.flushed); err != nil {
		ch.flushing = nil
		ch.abortFlush()
	}
}

// flushed is the AsyncWrite callback of gnetFlush (cached per channel as
// ch.flushed, so a flush allocates no closure): it recycles the written
// batch and drains what was queued meanwhile.
func flushed(ch *Channel, c gnet.Conn, err error) error {
	b := ch.flushing
	ch.flushing = nil
	ch.recycle(b)
	if err != nil {
		ch.abortFlush()
		return nil
	}
	drainOnLoop(ch, c)
	return nil
}

// drainOnLoop writes queued batches from the event loop until the queue is
// empty; after a few rounds it yields the loop by rescheduling itself.
func drainOnLoop(ch *Channel, c gnet.Conn) {
	for range 4 {
		b := ch.takeBatch()
		if b == nil {
			return
		}
		if _, err := c.Write(b); err != nil {
			ch.abortFlush()
			return
		}
		ch.recycle(b)
	}
	gnetFlush(ch, c)
}

func addrString(a interface{ String() string }) string {
	if a == nil {
		return ""
	}
	return a.String()
}
