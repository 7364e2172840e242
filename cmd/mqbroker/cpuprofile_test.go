package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
)

// TestMQBrokerCPUProfileFlag: -cpuprofile writes a CPU profile of the run
// that pprof can read, closed when the broker stops.
func TestMQBrokerCPUProfileFlag(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	dir := t.TempDir()
	conf := fmt.Sprintf("brokerName=broker-p\nstorePathRootDir=%s\nlistenPort=0\nbrokerIP1=127.0.0.1\nmappedFileSizeCommitLog=67108864\n", dir)
	f := filepath.Join(dir, "broker.conf")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(dir, "cpu.pprof")
	stop := make(chan struct{})
	var out, errOut testutil.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-c", f, "-n", ns.Addr().String(), "-cpuprofile", prof}, &out, &errOut, stop)
	}()
	testutil.Eventually(t, 20*time.Second, func() error {
		if strings.Contains(out.String(), "boot success") {
			return nil
		}
		select {
		case rc := <-done:
			t.Fatalf("exited %d: %s %s", rc, out.String(), errOut.String())
		default:
		}
		return fmt.Errorf("not started: %q", out.String())
	})
	close(stop)
	select {
	case rc := <-done:
		if rc != 0 {
			t.Fatalf("exit %d: %s", rc, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after stop")
	}
	r, err := os.Open(prof)
	if err != nil {
		t.Fatalf("no profile written: %v", err)
	}
	defer func() { _ = r.Close() }()
	zr, err := gzip.NewReader(r) // a profile is a gzipped profile.proto
	if err != nil {
		t.Fatalf("profile is not gzipped: %v", err)
	}
	pb, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("profile truncated (not closed at stop?): %v", err)
	}
	// The string table of a CPU profile names its sample types.
	for _, s := range []string{"samples", "cpu", "nanoseconds"} {
		if !bytes.Contains(pb, []byte(s)) {
			t.Fatalf("profile of %d bytes lacks %q: not a CPU profile", len(pb), s)
		}
	}
}
