package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/procs"
	"github.com/rocketmq-go/rmq/internal/testutil"
)

// TestStandaloneRaisesProcsPerEventLoop: like mqbroker, the standalone
// process runs with one P more per gnet event loop (the broker's main and
// fast server with serverSelectorThreads=2 each, plus the name server's 3)
// than the runtime chose, unless GOMAXPROCS is in the environment or a CPU
// quota chose fewer Ps than CPUs.
func TestStandaloneRaisesProcsPerEventLoop(t *testing.T) {
	startProcs := procs.Start()
	t.Cleanup(func() { runtime.GOMAXPROCS(startProcs) })
	for _, env := range []string{"", strconv.Itoa(startProcs)} {
		t.Run("GOMAXPROCS="+env, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", env)
			runtime.GOMAXPROCS(startProcs)
			logDir := t.TempDir()
			conf := fmt.Sprintf("listenPort=0\nbrokerIP1=127.0.0.1\nstorePathRootDir=%s\nmappedFileSizeCommitLog=67108864\n"+
				"serverSelectorThreads=2\nlogFormat=json\n", t.TempDir())
			f := filepath.Join(t.TempDir(), "broker.conf")
			if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			done := make(chan int, 1)
			var out, errOut testutil.SyncBuffer
			go func() {
				done <- run([]string{"-nsport", "0", "-proxy=false", "-c", f, "-logDir", logDir}, &out, &errOut, stop)
			}()
			testutil.Eventually(t, 20*time.Second, func() error {
				select {
				case rc := <-done:
					t.Fatalf("exited %d: %s %s", rc, out.String(), errOut.String())
				default:
				}
				if !bytes.Contains([]byte(out.String()), []byte("The broker[")) {
					return fmt.Errorf("not started: %q", out.String())
				}
				return nil
			})
			got := runtime.GOMAXPROCS(0)
			close(stop)
			if rc := <-done; rc != 0 {
				t.Fatalf("exit %d: %s", rc, errOut.String())
			}
			want, wantLog := startProcs+7, fmt.Sprintf(`"gomaxprocs":%d,"cpus":%d,"eventLoops":7`, startProcs+7, startProcs)
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
			var all bytes.Buffer
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				all.Write(b)
			}
			if !bytes.Contains(all.Bytes(), []byte(wantLog)) {
				t.Errorf("no %s in the logs:\n%s", wantLog, all.String())
			}
		})
	}
}
