package remoting

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// FuzzTLSSniff sends arbitrary first bytes to a permissive server, then
// half-closes. Invariants: the server closes that connection within a
// bound (no goroutine waits forever), answers a TLS-looking connection
// only with TLS records, answers a plain one only with whole frames, and
// keeps serving plain and TLS clients on other connections.
func FuzzTLSSniff(f *testing.F) {
	req, _ := codec.Encode(codec.NewRequest(testCodeEcho, map[string]string{"k": "v"}, []byte("x")))
	hello := recordClientHello(f)
	for _, seed := range [][]byte{
		nil, {0x16}, {0x16, 0x03}, {0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5},
		{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28}, // an alert record: plain, a bad frame length
		req, req[:7], append(append([]byte{}, req...), req...), hello, hello[:len(hello)/2],
		{0x00, 0x00, 0x00, 0x00}, {0xff, 0xff, 0xff, 0xff},
	} {
		f.Add(seed)
	}
	cfg := tlsServerConfig("permissive")
	s, err := NewServer(cfg, zap.NewNop())
	if err != nil {
		f.Fatal(err)
	}
	s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 2, 64))
	if err := s.Start(); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	plain := NewClient(nil, nil)
	tcfg := NewNettyClientConfig()
	tcfg.UseTLS = true
	secure := NewClient(tcfg, nil)
	f.Cleanup(func() {
		_ = plain.Shutdown(context.Background())
		_ = secure.Shutdown(context.Background())
	})
	addr := s.Addr().String()
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, _ = c.Write(in)
		_ = c.(*net.TCPConn).CloseWrite()
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		back, err := io.ReadAll(c)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("server kept the connection open after EOF (input %x)", in)
		}
		if len(back) > 0 {
			checkAnswer(t, in, back)
		}
		for _, cl := range []*Client{plain, secure} {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			resp, err := cl.InvokeSync(ctx, addr, codec.NewRequest(testCodeEcho, map[string]string{"k": "ok"}, nil))
			cancel()
			if err != nil || resp.Code != code.Success {
				t.Fatalf("server stopped serving after input %x: %v", in, err)
			}
		}
	})
}

// checkAnswer: TLS-looking input gets TLS records (alert 0x15 or
// handshake 0x16) only; plain input gets whole RocketMQ frames only.
func checkAnswer(t *testing.T, in, back []byte) {
	if in[0] == tlsRecordHandshake {
		if back[0] != 0x15 && back[0] != 0x16 {
			t.Fatalf("tls input %x answered with non-TLS bytes %x", in, back)
		}
		return
	}
	for len(back) > 0 {
		n, err := codec.FrameLength(back, codec.DefaultMaxFrameLength)
		if err != nil || n == 0 || n > len(back) {
			t.Fatalf("plain input %x answered with a partial frame %x", in, back)
		}
		if _, err := codec.Decode(back[:n]); err != nil {
			t.Fatalf("plain input %x answered with a bad frame: %v", in, err)
		}
		back = back[n:]
	}
}

// recordClientHello captures the first flight a Go TLS client sends.
func recordClientHello(f *testing.F) []byte {
	a, b := net.Pipe()
	go func() {
		_ = tls.Client(a, &tls.Config{InsecureSkipVerify: true}).Handshake() //nolint:gosec // never completes
	}()
	buf := make([]byte, 4096)
	_ = b.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := b.Read(buf)
	if err != nil {
		f.Fatal(err)
	}
	_ = b.Close()
	_ = a.Close()
	return buf[:n]
}
