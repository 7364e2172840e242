package controller

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/raft"
	"go.uber.org/zap"
)

// raftPreface is the first four bytes our Raft stream layer writes on every
// connection it dials. A RocketMQ remoting frame starts with its length as a
// big-endian int32; 0xF7 as its first byte would be a negative length, and
// TLS starts with 0x16, so the first byte alone tells Raft traffic apart.
var raftPreface = [4]byte{0xF7, 'R', 'F', 'T'}

// sniffTimeout bounds the wait for a connection's first byte (Java closes a
// silent connection after serverChannelMaxIdleTimeSeconds, 120 s).
const sniffTimeout = 120 * time.Second

// mux owns the controller's listener (the controllerDLegerPeers address of
// this node, which brokers also know as controllerAddr) and splits accepted
// connections by their first byte: Raft connections (raftPreface) go to the
// Raft transport's stream layer, every other one to the remoting server
// through remotingListener. The first byte is peeked, not read, so a
// remoting connection reaches the server (and gnet) intact.
type mux struct {
	ln net.Listener
	lg *zap.Logger

	remoting chan net.Conn // to remotingListener.Accept
	raft     chan net.Conn // to streamLayer.Accept
	done     chan struct{} // closed by close: stops accept and sniffers

	closeOnce sync.Once
	wg        sync.WaitGroup // accept loop and sniffers

	mu      sync.Mutex            // guards sniffed
	sniffed map[net.Conn]struct{} // connections being sniffed, closed by close
}

func newMux(ln net.Listener, lg *zap.Logger) *mux {
	return &mux{ln: ln, lg: lg, remoting: make(chan net.Conn), raft: make(chan net.Conn),
		done: make(chan struct{}), sniffed: map[net.Conn]struct{}{}}
}

func (m *mux) start() {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.acceptLoop()
	}()
}

func (m *mux) acceptLoop() {
	var delay time.Duration
	for {
		c, err := m.ln.Accept()
		if err != nil {
			select {
			case <-m.done:
				return
			default:
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			m.lg.Warn("controller accept failed, retrying", zap.Error(err), zap.Duration("retryIn", delay))
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-m.done:
				t.Stop()
				return
			}
			continue
		}
		delay = 0
		if !m.track(c) {
			_ = c.Close()
			return
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.route(c)
		}()
	}
}

func (m *mux) track(c net.Conn) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-m.done:
		return false
	default:
	}
	m.sniffed[c] = struct{}{}
	return true
}

func (m *mux) untrack(c net.Conn) {
	m.mu.Lock()
	delete(m.sniffed, c)
	m.mu.Unlock()
}

// route waits for c's first byte and hands c to its side.
func (m *mux) route(c net.Conn) {
	first, err := peekByte(c, time.Now().Add(sniffTimeout))
	if err == nil && first == raftPreface[0] {
		err = readPreface(c)
	}
	m.untrack(c)
	if err != nil {
		_ = c.Close()
		return
	}
	out := m.remoting
	if first == raftPreface[0] {
		out = m.raft
	}
	select {
	case out <- c:
	case <-m.done:
		_ = c.Close()
	}
}

func readPreface(c net.Conn) error {
	var p [4]byte
	if err := c.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return err
	}
	if _, err := io.ReadFull(c, p[:]); err != nil {
		return err
	}
	if p != raftPreface {
		return fmt.Errorf("controller: bad raft preface %x", p)
	}
	return c.SetReadDeadline(time.Time{})
}

// peekByte waits until c has a byte to read, or deadline, and returns it
// without consuming it (recv with MSG_PEEK).
func peekByte(c net.Conn, deadline time.Time) (byte, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0, errors.New("controller: connection has no descriptor to peek")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	if err := c.SetReadDeadline(deadline); err != nil {
		return 0, err
	}
	var (
		b    [1]byte
		n    int
		perr error
	)
	err = rc.Read(func(fd uintptr) bool {
		n, _, perr = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
		return !errors.Is(perr, syscall.EAGAIN) && !errors.Is(perr, syscall.EINTR)
	})
	if derr := c.SetReadDeadline(time.Time{}); err == nil {
		err = derr
	}
	switch {
	case err != nil:
		return 0, err
	case perr != nil:
		return 0, perr
	case n == 0:
		return 0, io.EOF
	}
	return b[0], nil
}

// close stops accepting, closes connections still being sniffed and waits
// for the mux goroutines. Connections already handed over belong to their
// side.
func (m *mux) close() {
	m.closeOnce.Do(func() {
		m.mu.Lock()
		close(m.done)
		for c := range m.sniffed {
			_ = c.Close()
		}
		m.mu.Unlock()
		_ = m.ln.Close()
	})
	m.wg.Wait()
}

// chanListener is a net.Listener fed by the mux.
type chanListener struct {
	m         *mux
	ch        chan net.Conn
	closed    chan struct{}
	closeOnce sync.Once
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	case <-l.m.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return l.m.ln.Addr() }

func (m *mux) remotingListener() net.Listener {
	return &chanListener{m: m, ch: m.remoting, closed: make(chan struct{})}
}

// streamLayer is the raft.StreamLayer on the mux: it accepts the Raft side
// and dials peers writing raftPreface first.
type streamLayer struct {
	chanListener
	advertise net.Addr
}

func (m *mux) streamLayer(advertise net.Addr) *streamLayer {
	return &streamLayer{chanListener: chanListener{m: m, ch: m.raft, closed: make(chan struct{})}, advertise: advertise}
}

func (s *streamLayer) Addr() net.Addr { return s.advertise }

func (s *streamLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	c, err := d.Dial("tcp", string(addr))
	if err != nil {
		return nil, err
	}
	if err := c.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
		_ = c.Close()
		return nil, err
	}
	if _, err := c.Write(raftPreface[:]); err != nil {
		_ = c.Close()
		return nil, err
	}
	if err := c.SetWriteDeadline(time.Time{}); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}
