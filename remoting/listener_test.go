package remoting

import (
	"context"
	"net"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestServerUseListener: a server given a listener serves the connections
// accepted from it (and binds nothing itself).
func TestServerUseListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := testServerConfig()
	cfg.ListenAddr = "256.0.0.1:1" // would fail to bind
	s, err := NewServer(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	s.RegisterProcessor(testCodeEcho, echo, NewPool("echo", 1, 8))
	s.UseListener(ln)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	if s.Addr().String() != ln.Addr().String() {
		t.Fatalf("Addr = %v, want %v", s.Addr(), ln.Addr())
	}
	c := NewClient(nil, zaptest.NewLogger(t))
	defer func() { _ = c.Shutdown(context.Background()) }()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	resp, err := c.InvokeSync(ctx, ln.Addr().String(), codec.NewRequest(testCodeEcho, map[string]string{"k": "v"}, nil))
	if err != nil || resp.Ext("k") != "v" {
		t.Fatalf("echo = %v, %v", resp, err)
	}
}
