package remoting

import (
	"context"
	"net"
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

// customDial runs the dialer set with SetDialer, if any.
func (c *Client) customDial(addr string) (net.Conn, error) {
	c.mu.Lock()
	d := c.dialer
	c.mu.Unlock()
	if d == nil {
		return nil, nil
	}
	return d(context.Background(), addr)
}
