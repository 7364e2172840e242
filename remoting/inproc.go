package remoting

import (
	"context"
	"fmt"
	"net"
	"sync"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

// In-process connections: the gRPC proxy's local mode talks to its broker
// through one end of a net.Pipe, so requests run through the same processor
// registry, pools and server-to-client path as a TCP connection, without a
// socket.

// ServeConn serves an already established connection as a plain (non-TLS)
// accepted one, on goroutines Shutdown waits for. c is closed on error.
func (s *Server) ServeConn(c net.Conn) error {
	if !s.track(c) {
		_ = c.Close()
		return ErrShutdown
	}
	go func() {
		defer s.connWG.Done()
		s.serveStd(c, c)
	}()
	return nil
}

// Dialer makes the connection to addr for a Client.
type Dialer func(ctx context.Context, addr string) (net.Conn, error)

// SetDialer replaces the TCP dial of later connections; a nil result
// connection with a nil error falls back to TCP. Set it before first use.
func (c *Client) SetDialer(d Dialer) {
	c.mu.Lock()
	c.dialer = d
	c.mu.Unlock()
}

// customDial runs the dialer set with SetDialer, if any, under ctx.
func (c *Client) customDial(ctx context.Context, addr string) (net.Conn, error) {
	c.mu.Lock()
	d := c.dialer
	c.mu.Unlock()
	if d == nil {
		return nil, nil
	}
	return d(ctx, addr)
}

// LocalConn is an in-process channel to a Server without request frames:
// Invoke hands the request command itself to the server's dispatch (the
// same processor registry, pools, SYSTEM_BUSY fast failure, panic recovery
// and observer as a socket), and the processor's answer, queued on the
// channel like any response, is decoded as it is queued, on the
// responding goroutine, with no connection, pipe or writer goroutine in
// between. The server registers it as a connection (connect/close events,
// idle sweep) under remoteAddr. Requests the server sends to a LocalConn
// (server-to-client calls) are dropped: use ServeConn for a channel that
// must answer them.
type LocalConn struct {
	s      *Server
	remote string

	mu sync.Mutex // guards ch
	ch *Channel   // current channel; replaced once closed (idle sweep)
}

// NewLocalConn returns an in-process channel to s, which reports its peer
// as remoteAddr.
func (s *Server) NewLocalConn(remoteAddr string) *LocalConn {
	return &LocalConn{s: s, remote: remoteAddr}
}

// channel returns the open channel, registering a new one when needed.
func (lc *LocalConn) channel() (*Channel, error) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.ch != nil && !lc.ch.closed.Load() {
		return lc.ch, nil
	}
	s := lc.s
	s.connMu.Lock()
	closed := s.connsClosed
	s.connMu.Unlock()
	if closed {
		return nil, ErrShutdown
	}
	ep := s.ep
	ch := newChannel(ep, lc.remote, "inproc")
	ch.kick = func() { lc.deliver(ch) }
	ch.closeFn = func() error {
		ep.channelGone(ch) // fails the calls waiting on ch
		return nil
	}
	ep.addChannel(ch)
	lc.ch = ch
	return ch, nil
}

// deliver decodes the frames queued on ch and completes the calls they
// answer; it runs on the goroutine that queued the first of them.
func (lc *LocalConn) deliver(ch *Channel) {
	ep := ch.ep
	for {
		b := ch.takeBatch()
		if b == nil {
			return
		}
		ch.touch()
		for len(b) > 0 {
			n, err := codec.FrameLength(b, ep.maxFrame)
			if err != nil || n < 4 || n > len(b) {
				ep.lg.Warn("bad in-process frame, close the channel", zap.String("remoteAddr", ch.remoteAddr), zap.Error(err))
				_ = ch.Close()
				return
			}
			// Decoded commands may alias the frame: b is never reused.
			cmd, err := codec.Decode(b[:n:n])
			b = b[n:]
			if err != nil {
				ep.lg.Warn("decode in-process frame failed, close the channel", zap.String("remoteAddr", ch.remoteAddr), zap.Error(err))
				_ = ch.Close()
				return
			}
			if !cmd.IsResponse() {
				ep.lg.Debug("in-process channel drops a server request", zap.String("remoteAddr", ch.remoteAddr), zap.Int32("code", cmd.Code))
				continue
			}
			ep.onResponse(ch, cmd)
		}
	}
}

// Invoke runs req on the server and waits for the answer until ctx ends;
// the error then wraps ErrTimeout and ctx.Err(), and the channel stays
// open. req gets a fresh opaque; the server may keep its body until the
// answer.
func (lc *LocalConn) Invoke(ctx context.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	ch, err := lc.channel()
	if err != nil {
		return nil, err
	}
	ep := ch.ep
	req.Opaque = NextOpaque()
	req.Flag &^= codec.FlagResponse | codec.FlagOneway
	rf := &responseFuture{opaque: req.Opaque, ch: ch, result: make(chan invokeResult, 1)}
	ep.pending.put(rf)
	if ch.closed.Load() {
		if ep.pending.remove(rf.opaque) != nil {
			return nil, fmt.Errorf("%w: %s", ErrChannelClosed, ch.remoteAddr)
		}
		r := <-rf.result
		return r.resp, r.err
	}
	ch.touch()
	if pe, ok := ep.inlineEntry(req); ok {
		// As the read loops do: inline processors answer on this goroutine.
		if out := ep.runInline(pe, newContext(ch, req, ep.lg), req, nil); len(out) > 0 {
			ch.queueBytes(out)
		}
	} else {
		ep.onRequest(ch, req)
	}
	select {
	case r := <-rf.result:
		return r.resp, r.err
	case <-ctx.Done():
		if ep.pending.remove(req.Opaque) == nil {
			r := <-rf.result // completed concurrently
			return r.resp, r.err
		}
		return nil, fmt.Errorf("%w: %s code %d opaque %d: %w", ErrTimeout, ch.remoteAddr, req.Code, req.Opaque, ctx.Err())
	}
}

// Close closes the channel; calls waiting on it fail with ErrChannelClosed.
func (lc *LocalConn) Close() error {
	lc.mu.Lock()
	ch := lc.ch
	lc.mu.Unlock()
	if ch == nil {
		return nil
	}
	return ch.Close()
}
