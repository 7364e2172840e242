package remoting

import (
	"bufio"
	"net"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

// The standard-library connection path serves the server's TLS
// connections, which gnet cannot carry: one goroutine reads and dispatches
// frames (this file's stdReadLoop), one writes (writeLoop, shared with the client). Both feed
// the same endpoint as gnet connections, so processors, responses,
// server-to-client requests, oneway calls and connect/close/idle events
// behave the same. The cost is two goroutines (about 16 KiB of stack) and
// a 64 KiB read buffer per TLS connection, and a goroutine hand-off for
// each batch of writes instead of an event-loop write.

// track records c as a connection the server must close on Shutdown and
// counts the goroutine that will serve it; false once Shutdown closed them.
func (s *Server) track(c net.Conn) bool {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.connsClosed {
		return false
	}
	s.conns[c] = struct{}{}
	s.connWG.Add(1)
	return true
}

// goConn runs f on a goroutine Shutdown waits for; false once it closed
// the connections.
func (s *Server) goConn(f func()) bool {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.connsClosed {
		return false
	}
	s.connWG.Add(1)
	go func() {
		defer s.connWG.Done()
		f()
	}()
	return true
}

// untrack forgets c (handed to gnet, or closed).
func (s *Server) untrack(c net.Conn) {
	s.connMu.Lock()
	delete(s.conns, c)
	s.connMu.Unlock()
}

func (s *Server) dropConn(c net.Conn) {
	_ = c.Close()
	s.untrack(c)
}

// closeStdConns closes every connection not served by gnet (being sniffed,
// in a TLS handshake, or served by serveStd) and refuses new ones.
func (s *Server) closeStdConns() {
	s.connMu.Lock()
	s.connsClosed = true
	conns := s.conns
	s.conns = map[net.Conn]struct{}{}
	s.connMu.Unlock()
	for c := range conns {
		_ = c.Close()
	}
}

// serveStd serves an established connection on the calling goroutine
// until it closes; raw is the tracked socket under c.
func (s *Server) serveStd(c, raw net.Conn) {
	ep := s.ep
	ch := newChannel(ep, addrString(c.RemoteAddr()), addrString(c.LocalAddr()))
	kick := setChanKick(ch)
	ch.closeFn = closeFunc(c, s.goConn)
	ep.addChannel(ch)
	defer func() {
		_ = c.Close()
		s.untrack(raw)
		ep.channelGone(ch)
	}()
	if !s.goConn(func() { writeLoop(s.lg, ch, c, kick) }) {
		return
	}
	s.stdReadLoop(ch, c)
}

// stdReadLoop decodes frames until the connection fails. Requests of
// inline processors run here, as gnet runs them on its loop, and their
// responses are queued once no further whole frame is buffered.
func (s *Server) stdReadLoop(ch *Channel, c net.Conn) {
	ep := s.ep
	br := bufio.NewReaderSize(c, clientReadBuffer)
	var out []byte
	readCommands(br, ep.maxFrame, ch, s.lg, func(cmd *codec.RemotingCommand) {
		if pe, ok := ep.inlineEntry(cmd); ok {
			out = ep.runInline(pe, newContext(ch, cmd, ep.lg), cmd, out)
		} else {
			ep.handle(ch, cmd)
		}
		if len(out) > 0 && br.Buffered() == 0 {
			ch.queueBytes(out)
			out = out[:0]
		}
	})
}

// queueBytes appends already encoded frames to the channel's outbound
// buffer, as WriteCommand does for one command.
func (ch *Channel) queueBytes(b []byte) {
	if ch.closed.Load() {
		return
	}
	ch.mu.Lock()
	ch.out = append(ch.out, b...)
	start := !ch.kicked
	ch.kicked = true
	ch.mu.Unlock()
	if start {
		ch.kick()
	}
}
