package logging

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/wait"
)

func TestLoggingRollingFileAppendsAcrossRestarts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := []byte(strings.Repeat("a", 99) + "\n")
	r := newRollingFile(dir, filepath.Join(dir, "otherdays"), "broker", 250, 3)
	for range 2 {
		if _, err := r.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := r.Write(line); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("Write after Close = %v, want os.ErrClosed", err)
	}
	// A restarted process appends, and counts the bytes already there.
	r = newRollingFile(dir, filepath.Join(dir, "otherdays"), "broker", 250, 3)
	if _, err := r.Write(line); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "broker.log")); got != string(line) {
		t.Errorf("broker.log after the third line = %d bytes, want only the third line", len(got))
	}
	if got := gunzip(t, filepath.Join(dir, "otherdays", "broker.1.log.gz")); got != string(line)+string(line) {
		t.Errorf("broker.1.log.gz = %d bytes, want the first two lines", len(got))
	}
}

func TestLoggingIsolatedSubDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lg, closeLogs, err := New(Options{Dir: dir, SubDir: "broker-a_0", MaxFileSize: 100, Stderr: &syncBuffer{}})
	if err != nil {
		t.Fatal(err)
	}
	lg.Info(strings.Repeat("a", 80))
	lg.Info(strings.Repeat("b", 80))
	if err := closeLogs(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "broker-a_0", "broker.log")); !strings.Contains(got, "bbbb") {
		t.Errorf("broker-a_0/broker.log = %q", got)
	}
	if got := gunzip(t, filepath.Join(dir, "otherdays", "broker-a_0", "broker.1.log.gz")); !strings.Contains(got, "aaaa") {
		t.Errorf("otherdays/broker-a_0/broker.1.log.gz = %q", got)
	}
}

func TestLoggingBrokerLogDir(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		isolate, dleger bool
		want            string
	}{{false, false, ""}, {false, true, ""}, {true, false, "broker-a_1"}, {true, true, "broker-a_n0"}} {
		if got := BrokerLogDir(tc.isolate, tc.dleger, "broker-a", 1, "n0"); got != tc.want {
			t.Errorf("BrokerLogDir(isolate=%v, dleger=%v) = %q, want %q", tc.isolate, tc.dleger, got, tc.want)
		}
	}
}

// TestLoggingRollingFileSyncDoesNotBlockWrites: a log line is written while
// an fsync of the file is in progress (zap syncs at shutdown and after
// DPanic entries; every logger, gnet's event loops' included, writes
// through this file).
func TestLoggingRollingFileSyncDoesNotBlockWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := newRollingFile(dir, filepath.Join(dir, "otherdays"), "broker", 1<<20, 3)
	t.Cleanup(func() { _ = r.Close() })
	line := []byte("line\n")
	if _, err := r.Write(line); err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	r.syncFile = func(f *os.File) error {
		close(entered)
		<-release
		return f.Sync()
	}
	synced := make(chan error, 1)
	go func() { synced <- r.Sync() }()
	<-entered
	wrote := make(chan error, 1)
	go func() {
		_, err := r.Write(line)
		wrote <- err
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(wait.Scale(2 * time.Second)):
		close(release)
		t.Fatal("a write waited for the fsync")
	}
	close(release)
	if err := <-synced; err != nil {
		t.Fatalf("Sync: %v", err)
	}
}
