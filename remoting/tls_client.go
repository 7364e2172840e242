package remoting

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"
)

// handshake runs the client side of TLS on a dialled connection, within
// timeout (connectTimeoutMillis, or Netty's 10 s handshake bound when
// that is unset), as NettyRemotingClient does when useTLS is set. The
// server name for verification is addr's host. The caller (dial) wraps
// the error in ErrConnect.
func (c *Client) handshake(conn net.Conn, addr string, timeout time.Duration) (net.Conn, error) {
	base, err := c.tlsCfg()
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("tls config: %w", err)
	}
	cfg := base
	if cfg.ServerName == "" && !cfg.InsecureSkipVerify {
		cfg = base.Clone()
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
	}
	if timeout <= 0 {
		timeout = tlsHandshakeTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("tls handshake: %w", err)
	}
	return tc, nil
}
