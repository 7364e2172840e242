package remoting

import (
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// PeekFirstByte waits until c has a byte to read, or deadline (zero: none),
// and returns it without consuming it (recv with MSG_PEEK), so that a plain
// connection reaches gnet with its first frame intact. The TLS sniffer and
// the controller's Raft/remoting port mux both route connections with it.
func PeekFirstByte(c net.Conn, deadline time.Time) (byte, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0, errors.New("remoting: connection has no descriptor to peek")
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
