package namesrv

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/metrics"
)

// A metrics port in use fails Start and, like a console address in use,
// leaves nothing listening: neither the remoting port nor the console.
func TestNamesrvMetricsPortInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	cfg := NewNamesrvConfig()
	cfg.KVConfigPath = filepath.Join(dir, "kvConfig.json")
	cfg.ConsoleListenAddr = "127.0.0.1:0"
	cfg.Metrics.MetricsExporterType = metrics.ExporterProm
	cfg.Metrics.MetricsPromExporterHost = "127.0.0.1"
	cfg.Metrics.MetricsPromExporterPort = busy.Addr().(*net.TCPAddr).Port
	srvCfg := NewNettyServerConfig()
	srvCfg.ListenAddr = "127.0.0.1:0"
	ns, err := New(cfg, srvCfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = ns.Shutdown(ctx)
	})
	if err := ns.Start(); err == nil || !strings.Contains(err.Error(), "metrics") {
		t.Fatalf("Start with metrics port %d in use: %v", cfg.Metrics.MetricsPromExporterPort, err)
	}
	for what, addr := range map[string]net.Addr{"remoting": ns.Addr(), "console": ns.ConsoleAddr()} {
		if addr == nil {
			continue
		}
		if c, err := net.DialTimeout("tcp", addr.String(), time.Second); err == nil {
			c.Close()
			t.Errorf("%s port %s still open after the failed Start", what, strconv.Quote(addr.String()))
		}
	}
}
