package namesrv

import (
	"net"
	"strings"
	"testing"
	"time"

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
	port := busy.Addr().(*net.TCPAddr).Port
	ns := newConsoleNamesrv(t, "127.0.0.1:0", "127.0.0.1:0", "", func(c *NamesrvConfig) {
		c.Metrics.MetricsExporterType = metrics.ExporterProm
		c.Metrics.MetricsPromExporterHost = "127.0.0.1"
		c.Metrics.MetricsPromExporterPort = port
	})
	if err := ns.Start(); err == nil || !strings.Contains(err.Error(), "metrics") {
		t.Fatalf("Start with metrics port %d in use: %v", port, err)
	}
	for what, addr := range map[string]net.Addr{"remoting": ns.Addr(), "console": ns.ConsoleAddr()} {
		if addr == nil {
			continue
		}
		if c, err := net.DialTimeout("tcp", addr.String(), time.Second); err == nil {
			c.Close()
			t.Errorf("%s port %s still open after the failed Start", what, addr)
		}
	}
}
