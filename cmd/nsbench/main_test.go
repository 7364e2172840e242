package main

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/procstat"
	"github.com/rocketmq-go/rmq/namesrv"
)

func startTestNamesrv(t *testing.T) string {
	t.Helper()
	cfg := namesrv.NewNamesrvConfig()
	dir := t.TempDir()
	cfg.KVConfigPath, cfg.ConfigStorePath = dir+"/kv.json", dir+"/ns.properties"
	nc := namesrv.NewNettyServerConfig()
	nc.ListenAddr = "127.0.0.1:0"
	ns, err := namesrv.New(cfg, nc, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ns.Shutdown(context.Background()) })
	return ns.Addr().String()
}

// Both benchmark clients complete real lookups: every latency recorded is
// a SUCCESS response matched to its own request.
func TestNsbenchClientsGetRoutes(t *testing.T) {
	addr := startTestNamesrv(t)
	if err := register(addr, 2, 5); err != nil {
		t.Fatal(err)
	}
	stop := time.Now().Add(200 * time.Millisecond)
	lat, err := rawLoop(addr, 0, 4, 5, stop)
	if err != nil || len(lat) == 0 {
		t.Fatalf("raw client: %d lookups, err %v", len(lat), err)
	}
	if got := run(addr, 2, 2, 5, 200*time.Millisecond); len(got) == 0 {
		t.Fatal("remoting client did no lookups")
	}
}

// An unknown topic answers TOPIC_NOT_EXIST, which the raw client reports.
func TestNsbenchRawClientReportsFailures(t *testing.T) {
	addr := startTestNamesrv(t)
	lat, err := rawLoop(addr, 0, 1, 5, time.Now().Add(time.Second))
	if err == nil || len(lat) != 0 {
		t.Fatalf("lookups without registered topics: %d ok, err %v", len(lat), err)
	}
}

func TestNsbenchCPUTime(t *testing.T) {
	if procstat.CPUTime("self") < 0 {
		t.Fatal("cannot read own CPU time")
	}
	if procstat.CPUTime("0") != -1 || perRequest(-1, 5, 1) != "n/a" {
		t.Fatal("missing process must read as unknown")
	}
	if got := perRequest(0, 10*time.Millisecond, 1000); got != "10µs" {
		t.Fatalf("perRequest = %s", got)
	}
}
