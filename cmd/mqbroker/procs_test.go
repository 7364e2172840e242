package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/procs"
	"github.com/rocketmq-go/rmq/internal/testutil"
)

// TestMQBrokerRaisesProcsPerEventLoop: the started broker runs with one P
// more per gnet event loop (main and fast server, serverSelectorThreads
// each) than the runtime chose, and says so in its log; a GOMAXPROCS in the
// environment, or a CPU quota (the runtime chose fewer Ps than CPUs), is
// left alone (internal/procs.TestProcsFor covers every case of the rule).
func TestMQBrokerRaisesProcsPerEventLoop(t *testing.T) {
	startProcs := procs.Start()
	t.Cleanup(func() { runtime.GOMAXPROCS(startProcs) })
	for _, env := range []string{"", strconv.Itoa(startProcs)} {
		t.Run("GOMAXPROCS="+env, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", env)
			runtime.GOMAXPROCS(startProcs)
			ns := testutil.StartNamesrv(t)
			logDir := t.TempDir()
			conf := fmt.Sprintf("storePathRootDir=%s\nlistenPort=0\nbrokerIP1=127.0.0.1\nmappedFileSizeCommitLog=67108864\n"+
				"serverSelectorThreads=2\nlogDir=%s\nlogFormat=json\n", t.TempDir(), logDir)
			f := filepath.Join(t.TempDir(), "broker.conf")
			if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			var out, errOut testutil.SyncBuffer
			done := make(chan int, 1)
			go func() { done <- run([]string{"-c", f, "-n", ns.Addr().String()}, &out, &errOut, stop) }()
			testutil.Eventually(t, 20*time.Second, func() error {
				select {
				case rc := <-done:
					t.Fatalf("exited %d: %s %s", rc, out.String(), errOut.String())
				default:
				}
				if !strings.Contains(out.String(), "boot success") {
					return fmt.Errorf("not started: %q", out.String())
				}
				return nil
			})
			got := runtime.GOMAXPROCS(0)
			close(stop)
			if rc := <-done; rc != 0 {
				t.Fatalf("exit %d: %s", rc, errOut.String())
			}
			want, wantLog := startProcs+4, fmt.Sprintf(`"gomaxprocs":%d,"cpus":%d,"eventLoops":4`, startProcs+4, startProcs)
			switch {
			case env != "":
				want, wantLog = startProcs, fmt.Sprintf(`"gomaxprocs":%d,"kept":"fromEnv"`, startProcs)
			case startProcs < runtime.NumCPU(): // this test runs under a CPU quota
				want, wantLog = startProcs, fmt.Sprintf(`"gomaxprocs":%d,"kept":"cpuQuota"`, startProcs)
			}
			if got != want {
				t.Errorf("GOMAXPROCS %d while serving, want %d", got, want)
			}
			logs, _ := filepath.Glob(filepath.Join(logDir, "*.log"))
			var all strings.Builder
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				all.Write(b)
			}
			if !strings.Contains(all.String(), wantLog) {
				t.Errorf("no %s in the logs:\n%s", wantLog, all.String())
			}
		})
	}
}
