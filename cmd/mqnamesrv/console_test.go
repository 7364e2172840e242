package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
)

var consoleLine = regexp.MustCompile(`Console on (http://\S+/)`)

func TestNamesrvCmdConsoleFlag(t *testing.T) {
	var out, errOut testutil.SyncBuffer
	if rc := run([]string{"-console", "127.0.0.1:18080", "-p"}, &out, &errOut, nil); rc != 0 {
		t.Fatalf("rc=%d stderr=%s", rc, errOut.String())
	}
	if !strings.Contains(out.String(), "consoleListenAddr=127.0.0.1:18080\n") {
		t.Errorf("-console not applied:\n%s", out.String())
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "ns.conf")
	content := "listenPort=0\nconsoleListenAddr=127.0.0.1:0\nkvConfigPath=" + filepath.Join(dir, "kvConfig.json") + "\n"
	if err := os.WriteFile(conf, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan int, 1)
	var served testutil.SyncBuffer
	go func() { done <- run([]string{"-c", conf}, &served, &errOut, stop) }()
	var base string
	testutil.Eventually(t, 10*time.Second, func() error {
		select {
		case rc := <-done:
			t.Fatalf("exited %d: %s %s", rc, served.String(), errOut.String())
		default:
		}
		m := consoleLine.FindStringSubmatch(served.String())
		if m == nil {
			return fmt.Errorf("no console line: %q", served.String())
		}
		base = m[1]
		return nil
	})
	resp, err := http.Get(base + "api/cluster")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Namesrv []string
		Brokers []any
	}
	err = json.NewDecoder(resp.Body).Decode(&c)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(c.Namesrv) != 1 || !strings.HasPrefix(c.Namesrv[0], "127.0.0.1:") || len(c.Brokers) != 0 {
		t.Fatalf("api/cluster: %d %v %+v", resp.StatusCode, err, c)
	}
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
