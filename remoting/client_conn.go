package remoting

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

const clientReadBuffer = 64 << 10

// startConn wraps a dialled connection in a Channel served by a reader and a
// writer goroutine owned by the client's endpoint.
func (c *Client) startConn(addr string, conn net.Conn) (*Channel, error) {
	ep := c.ep
	ch := newChannel(ep, conn.RemoteAddr().String(), conn.LocalAddr().String())
	kick := setChanKick(ch)
	ch.closeFn = closeFunc(conn, ep.goFunc)
	ep.addChannel(ch)
	if !ep.goFunc(func() { writeLoop(c.lg, ch, conn, kick) }) {
		_ = conn.Close()
		ep.channelGone(ch)
		return nil, ErrShutdown
	}
	if !ep.goFunc(func() { c.readLoop(addr, ch, conn) }) {
		_ = conn.Close()
		ep.channelGone(ch)
		return nil, ErrShutdown
	}
	return ch, nil
}

// setChanKick makes ch's kick wake a writer goroutine (writeLoop) through
// the returned channel.
func setChanKick(ch *Channel) <-chan struct{} {
	kick := make(chan struct{}, 1)
	ch.kick = func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	return kick
}

// closeFunc returns what Channel.Close runs for conn. A TLS connection's
// Close writes close_notify under a write deadline of up to 5 s when the
// peer does not read, so it runs on a goroutine started by spawn (which
// the owner's shutdown waits for), apart from callers such as the idle
// sweep, the managers' scans or a timed-out InvokeSync; like gnet's and
// Netty's close. When spawn refuses (shutdown under way) the socket under
// it is closed at once.
func closeFunc(conn net.Conn, spawn func(func()) bool) func() error {
	tc, ok := conn.(*tls.Conn)
	if !ok {
		return conn.Close
	}
	return func() error {
		if !spawn(func() { _ = tc.Close() }) {
			return tc.NetConn().Close()
		}
		return nil
	}
}

// writeLoop writes everything queued on ch to conn in one Write per
// wake-up, until ch is gone or a write fails (ch is then closed). It serves
// client connections and the server's TLS ones.
func writeLoop(lg *zap.Logger, ch *Channel, conn net.Conn, kick <-chan struct{}) {
	for {
		select {
		case <-kick:
		case <-ch.done:
			return
		}
		for b := ch.takeBatch(); b != nil; b = ch.takeBatch() {
			if _, err := conn.Write(b); err != nil {
				lg.Debug("write failed, close the channel", zap.String("remoteAddr", ch.remoteAddr), zap.Error(err))
				ch.abortFlush()
				_ = ch.Close()
				return
			}
			ch.recycle(b)
		}
	}
}

// readLoop decodes frames until the connection fails, then retires the channel.
func (c *Client) readLoop(addr string, ch *Channel, conn net.Conn) {
	defer func() {
		_ = ch.Close()
		c.ep.channelGone(ch)
		c.mu.Lock()
		if c.conns[addr] == ch {
			delete(c.conns, addr)
		}
		c.mu.Unlock()
	}()
	br := bufio.NewReaderSize(conn, clientReadBuffer)
	readCommands(br, c.ep.maxFrame, ch, c.lg, func(cmd *codec.RemotingCommand) { c.ep.handle(ch, cmd) })
}

// readCommands decodes frames from br (the connection of ch) and hands
// each command to each, until the connection fails or a frame does not
// decode (the stream is then out of step: the caller closes it).
func readCommands(br *bufio.Reader, maxFrame int, ch *Channel, lg *zap.Logger, each func(*codec.RemotingCommand)) {
	for {
		frame, err := readFrame(br, maxFrame)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				lg.Debug("read failed, close the channel", zap.String("remoteAddr", ch.remoteAddr), zap.Error(err))
			}
			return
		}
		ch.touch()
		cmd, err := codec.Decode(frame)
		if err != nil {
			lg.Warn("decode frame failed, close the channel", zap.String("remoteAddr", ch.remoteAddr), zap.Error(err))
			return
		}
		each(cmd)
	}
}

// readFrame reads one whole frame (length prefix included) into a new slice.
func readFrame(br *bufio.Reader, maxFrame int) ([]byte, error) {
	hdr, err := br.Peek(4)
	if err != nil {
		return nil, err
	}
	n, err := codec.FrameLength(hdr, maxFrame)
	if err != nil {
		return nil, err
	}
	if n < 4 {
		return nil, codec.ErrBadFrame
	}
	frame := make([]byte, n)
	if _, err := io.ReadFull(br, frame); err != nil {
		return nil, err
	}
	return frame, nil
}
