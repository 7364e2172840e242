package remoting

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"testing"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

// BenchmarkRemotingConnectTLS: dial, one round trip, close, as
// BenchmarkRemotingConnect, for a plain client against a server with TLS
// disabled (straight to gnet) and permissive (first byte sniffed on a
// goroutine), and for a TLS client (handshake, std-lib path).
func BenchmarkRemotingConnectTLS(b *testing.B) {
	frame, err := codec.Encode(codec.NewRequest(testCodeEcho, nil, []byte("x")))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		mode   string
		useTLS bool
	}{{"disabled/plain", "disabled", false}, {"permissive/plain", "permissive", false}, {"permissive/tls", "permissive", true}} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := NewServer(tlsServerConfig(bc.mode), zap.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 2, 1024))
			if err := s.Start(); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
			addr := s.Addr().String()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				var c net.Conn
				if bc.useTLS {
					c, err = tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // self-signed test certificate
				} else {
					c, err = net.Dial("tcp", addr)
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.Write(frame); err != nil {
					b.Fatal(err)
				}
				var hdr [4]byte
				if _, err := io.ReadFull(c, hdr[:]); err != nil {
					b.Fatal(err)
				}
				_ = c.Close()
			}
		})
	}
}
