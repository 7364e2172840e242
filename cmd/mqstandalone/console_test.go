package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
)

var consoleLine = regexp.MustCompile(`Console on (http://\S+/)`)

// The README's one command: the standalone name server serves the console,
// which shows the standalone broker.
func TestStandaloneConsole(t *testing.T) {
	dir := t.TempDir()
	conf := fmt.Sprintf("listenPort=0\nbrokerIP1=127.0.0.1\nstorePathRootDir=%s\nmappedFileSizeCommitLog=67108864\n", dir)
	f := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan int, 1)
	var out, errOut testutil.SyncBuffer
	go func() { done <- run([]string{"-nsport", "0", "-console", "127.0.0.1:0", "-c", f}, &out, &errOut, stop) }()
	testutil.Eventually(t, 20*time.Second, func() error {
		select {
		case rc := <-done:
			t.Fatalf("exited %d: %s %s", rc, out.String(), errOut.String())
		default:
		}
		m := consoleLine.FindStringSubmatch(out.String())
		if m == nil {
			return fmt.Errorf("no console line: %q", out.String())
		}
		resp, err := http.Get(m[1] + "api/cluster")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var c struct {
			Brokers []struct{ BrokerName, Role, Version string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
			return err
		}
		if len(c.Brokers) != 1 || c.Brokers[0].Role != "MASTER" || c.Brokers[0].Version != "V4_9_8" {
			return fmt.Errorf("brokers %+v", c.Brokers)
		}
		return nil
	})
	close(stop)
	select {
	case rc := <-done:
		if rc != 0 {
			t.Fatalf("exit %d: %s", rc, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit")
	}
}
