package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting"
)

// tlsHandshakeRecord is the first byte of a TLS ClientHello.
const tlsHandshakeRecord = 0x16

// sniffTimeout bounds the wait for a client's first byte and handshake.
const sniffTimeout = 10 * time.Second

// sniffListener serves plain and TLS gRPC connections on one port as the
// remoting server's tls.server.mode does: it peeks at the first byte of
// each accepted connection (on a goroutine per connection, never in
// Accept) and hands out plain or TLS-terminated connections.
type sniffListener struct {
	net.Listener
	mode   remoting.TLSMode
	tlsCfg *tls.Config
	lg     *zap.Logger

	conns     chan net.Conn
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	wg        sync.WaitGroup // the accept loop and sniffers
}

func newSniffListener(ln net.Listener, mode remoting.TLSMode, cfg *tls.Config, lg *zap.Logger) *sniffListener {
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"h2"}
	l := &sniffListener{Listener: ln, mode: mode, tlsCfg: cfg, lg: lg, conns: make(chan net.Conn), done: make(chan struct{})}
	l.wg.Add(1)
	go l.acceptLoop()
	return l
}

func (l *sniffListener) acceptLoop() {
	defer l.wg.Done()
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			select {
			case <-l.done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		l.wg.Add(1)
		go l.sniff(c)
	}
}

func (l *sniffListener) sniff(c net.Conn) {
	defer l.wg.Done()
	first, err := remoting.PeekFirstByte(c, time.Now().Add(sniffTimeout))
	if err != nil {
		_ = c.Close()
		return
	}
	isTLS := first == tlsHandshakeRecord
	switch {
	case isTLS && l.mode == remoting.TLSDisabled, !isTLS && l.mode == remoting.TLSEnforcing:
		l.lg.Warn("connection refused by tls mode", zap.String("remoteAddr", c.RemoteAddr().String()), zap.Bool("tls", isTLS), zap.Stringer("mode", l.mode))
		_ = c.Close()
		return
	case isTLS:
		tc := tls.Server(c, l.tlsCfg)
		ctx, cancel := context.WithTimeout(context.Background(), sniffTimeout)
		err := tc.HandshakeContext(ctx)
		cancel()
		if err != nil {
			l.lg.Info("tls handshake failed, close the connection", zap.String("remoteAddr", c.RemoteAddr().String()), zap.Error(err))
			_ = c.Close()
			return
		}
		c = tc
	}
	select {
	case l.conns <- c:
	case <-l.done:
		_ = c.Close()
	}
}

func (l *sniffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *sniffListener) Close() error {
	var err error
	l.closeOnce.Do(func() {
		close(l.done)
		err = l.Listener.Close()
	})
	return err
}

// wait returns once the accept loop and every sniffer ended (after Close).
func (l *sniffListener) wait() { l.wg.Wait() }
