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
	if a := readFrames(h.s.ep, ch, c); a != gnet.None {
		return a
	}
	return flushOnLoop(ch, c)
}

// readFrames dispatches the whole frames buffered on c.
func readFrames(ep *endpoint, ch *Channel, c gnet.Conn) gnet.Action {
	buffered := c.InboundBuffered()
	if buffered == 0 { // a wake: nothing to read
		return gnet.None
	}
	ch.touch()
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
	return dispatchFrames(ep, ch, data)
}

// dispatchFrames decodes consecutive whole frames and hands them on.
// Requests for inline processors run here; their responses are appended to
// ch.inlineOut, which flushOnLoop writes once all frames are handled.
func dispatchFrames(ep *endpoint, ch *Channel, data []byte) gnet.Action {
	out := ch.inlineOut[:0]
	defer func() { ch.inlineOut = out }()
	for len(data) > 0 {
		n, err := codec.FrameLength(data, ep.maxFrame)
		if err != nil || n == 0 || n > len(data) {
			return gnet.Close // cannot happen: frames were measured before
		}
		cmd, err := codec.Decode(data[:n:n])
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
	return gnet.None
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
