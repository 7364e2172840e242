package remoting

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"time"

	"go.uber.org/zap"
)

// tlsRecordHandshake is the first byte of a TLS connection (a handshake
// record); a RocketMQ frame starts with its big-endian length, whose first
// byte would make a frame of at least 352 MiB.
const tlsRecordHandshake = 0x16

// tlsHandshakeTimeout bounds the TLS handshake, as Netty's SslHandler's
// default handshakeTimeoutMillis (10 s).
const tlsHandshakeTimeout = 10 * time.Second

// connKind is what the first byte of a connection says it is.
type connKind int

const (
	connPlain  connKind = iota // a RocketMQ frame: served by gnet
	connTLS                    // a TLS handshake: served by serveStd
	connRefuse                 // not acceptable in this mode: closed
)

// classify decides, from the first byte a client sent, how a connection is
// served in mode, like Java's HandshakeHandler: 0x16 starts TLS unless TLS
// is disabled; anything else is plain unless TLS is enforced.
func classify(mode TLSMode, first byte) connKind {
	if first == tlsRecordHandshake {
		if mode == TLSDisabled {
			return connRefuse
		}
		return connTLS
	}
	if mode == TLSEnforcing {
		return connRefuse
	}
	return connPlain
}

// sniffDeadline bounds the wait for a client's first byte: Java closes a
// connection that stays silent for serverChannelMaxIdleTimeSeconds.
func (s *Server) sniffDeadline() time.Time {
	if s.ep.idle <= 0 {
		return time.Time{}
	}
	return time.Now().Add(s.ep.idle)
}

// sniffAndServe runs on its own goroutine per accepted connection when TLS
// is not disabled: it waits for the client's first byte without consuming
// it, then hands a plain connection to the event loops or serves a TLS one
// on the standard library. The accept loop never waits for a client.
func (s *Server) sniffAndServe(c net.Conn) {
	first, err := PeekFirstByte(c, s.sniffDeadline())
	if err != nil {
		if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
			s.lg.Debug("no first byte from client, close the connection", zap.String("remoteAddr", addrString(c.RemoteAddr())), zap.Error(err))
		}
		s.dropConn(c)
		return
	}
	switch classify(s.tlsMode, first) {
	case connPlain:
		s.untrack(c)
		if err := s.enroll(c); err != nil && !s.closing.Load() {
			s.lg.Warn("hand over connection failed", zap.String("remoteAddr", addrString(c.RemoteAddr())), zap.Error(err))
		}
	case connTLS:
		s.serveTLS(c)
	default:
		if s.tlsMode == TLSEnforcing {
			s.lg.Warn("clients intend to establish an insecure connection while this server is running in SSL enforcing mode",
				zap.String("remoteAddr", addrString(c.RemoteAddr())))
		} else {
			s.lg.Warn("clients intend to establish an SSL connection while this server is running in SSL disabled mode",
				zap.String("remoteAddr", addrString(c.RemoteAddr())))
		}
		s.dropConn(c)
	}
}

// serveTLS completes the TLS handshake within tlsHandshakeTimeout and
// serves the connection; a failed handshake closes only this connection.
// The raw connection c stays tracked: Shutdown closes it without a TLS
// close_notify, which could wait on a peer that does not read.
func (s *Server) serveTLS(c net.Conn) {
	tc := tls.Server(c, s.tlsCfg.Load())
	ctx, cancel := context.WithTimeout(context.Background(), tlsHandshakeTimeout)
	err := tc.HandshakeContext(ctx)
	cancel()
	if err != nil {
		s.lg.Info("tls handshake failed, close the connection", zap.String("remoteAddr", addrString(c.RemoteAddr())), zap.Error(err))
		s.dropConn(c)
		return
	}
	s.serveStd(tc, c)
}
