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
// that is unset) or until ctx ends (Shutdown), as NettyRemotingClient
// does when useTLS is set. Like
// 4.9.8 it sends no server name and verifies none (ClientTLS). The caller
// (dial) wraps the error in ErrConnect.
func (c *Client) handshake(ctx context.Context, conn net.Conn, timeout time.Duration) (net.Conn, error) {
	cfg, err := c.tlsCfg()
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("tls config: %w", err)
	}
	if timeout <= 0 {
		timeout = tlsHandshakeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("tls handshake: %w", err)
	}
	return tc, nil
}
