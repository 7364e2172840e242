package broker_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// crashChildEnv names the store root a re-executed test binary runs a
// broker on until it is killed.
const crashChildEnv = "RMQ_JOURNAL_CRASH_CHILD_STORE"

const crashReadyToken = "JOURNAL-CRASH-CHILD-READY"

// TestBrokerConfigChangesSurviveCrash: topics and subscription groups
// created or deleted through the admin codes are all there after the
// broker process is killed (SIGKILL: no shutdown write) right after its
// answers and restarted on the same store (and so is a topic a send
// auto-created), as after Apache's synchronous
// (unsynced) rewrite. "rewrites blocked" makes every full write of
// topics.json and subscriptionGroup.json fail, so only the journal can
// hold the answered changes; "rewrites running" kills while the
// coalesced rewrites are in progress. After a clean shutdown of the
// restarted broker, the Apache files alone hold everything.
func TestBrokerConfigChangesSurviveCrash(t *testing.T) {
	if root := os.Getenv(crashChildEnv); root != "" {
		runCrashChild(t, root)
		return
	}
	t.Parallel()
	for _, blocked := range []bool{true, false} {
		name := map[bool]string{true: "rewrites blocked", false: "rewrites running"}[blocked]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, scfg := testutil.NewBrokerConfigs(t, "")
			dir := scfg.ConfigDir()
			files := []string{"topics.json", "subscriptionGroup.json"}
			if blocked {
				for _, f := range files { // the temp file of every full write cannot be created
					if err := os.MkdirAll(filepath.Join(dir, f+".tmp", "x"), 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			addr, kill := startCrashChild(t, scfg.StorePathRootDir)
			c := newClientTB(t)
			createTopics(t, c, addr, "Crash", 40, 1)
			createTopics(t, c, addr, "CrashPar", 200, 8)
			invokeOK(t, c, addr, codec.NewRequest(code.DeleteTopicInBroker,
				map[string]string{"topic": "Crash0"}, nil))
			for i := range 20 {
				invokeOK(t, c, addr, codec.NewRequest(code.UpdateAndCreateSubscriptiongroup, nil,
					fmt.Appendf(nil, `{"groupName":"CrashGroup%d","retryMaxTimes":%d}`, i, 3+i)))
			}
			invokeOK(t, c, addr, codec.NewRequest(code.DeleteSubscriptiongroup,
				map[string]string{"groupName": "CrashGroup0"}, nil))
			// A send auto-creates its topic (from TBW102) before answering.
			invokeOK(t, c, addr, sendRequest(code.SendMessageV2, sendHeader("CrashAutoSend", 0, nil), []byte("x")))
			// A kill while the dispatch is creating the topic's consume-queue
			// file leaves it short, and the store then refuses to start
			// (reported separately; not what this test is about).
			waitConsumeQueueFile(t, filepath.Join(scfg.StorePathRootDir, "consumequeue", "CrashAutoSend", "0"))
			kill()
			if blocked {
				for _, f := range files {
					if err := os.RemoveAll(filepath.Join(dir, f+".tmp")); err != nil {
						t.Fatal(err)
					}
				}
			}

			b := testutil.StartBrokerWith(t, cfg, scfg)
			check := func(when string) {
				t.Helper()
				have := allTopics(t, newCMClient(t, b.Addr().String(), "admin-"+when))
				missing := append(missingTopics(have, "Crash", 40)[1:], missingTopics(have, "CrashPar", 200)...)
				if m := missingTopics(have, "Crash", 40); len(m) == 0 || m[0] != "Crash0" {
					missing = append(missing, "(deleted Crash0 is back)")
				}
				if len(missing) > 0 {
					t.Fatalf("%s: answered topic changes lost: %v", when, missing)
				}
				if _, ok := have["CrashAutoSend"]; !ok {
					t.Fatalf("%s: topic auto-created by an answered send lost", when)
				}
				if _, ok := b.Subscriptions().Get("CrashGroup0"); ok {
					t.Fatalf("%s: deleted group CrashGroup0 is back", when)
				}
				for i := 1; i < 20; i++ {
					g, ok := b.Subscriptions().Get(fmt.Sprintf("CrashGroup%d", i))
					if !ok || g.RetryMaxTimes != int32(3+i) {
						t.Fatalf("%s: group CrashGroup%d lost or changed: %v %+v", when, i, ok, g)
					}
				}
			}
			check("after crash")
			shutdownBroker(t, b)
			for _, f := range files {
				for _, j := range []string{f + ".journal", f + ".journal.old"} {
					if _, err := os.Stat(filepath.Join(dir, j)); !errors.Is(err, os.ErrNotExist) {
						t.Fatalf("%s left after a clean shutdown: %v", j, err)
					}
				}
			}
			have := fileTopics(t, filepath.Join(dir, "topics.json"))
			if m := missingTopics(have, "CrashPar", 200); len(m) > 0 {
				t.Fatalf("topics.json after clean shutdown misses %v", m)
			}
			groups, err := os.ReadFile(filepath.Join(dir, "subscriptionGroup.json"))
			if err != nil || !strings.Contains(string(groups), `"CrashGroup19"`) {
				t.Fatalf("subscriptionGroup.json after clean shutdown: %v", err)
			}
		})
	}
}

// waitConsumeQueueFile waits until dir holds a consume-queue file of its
// full size.
func waitConsumeQueueFile(t *testing.T, dir string) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, func() error {
		ents, err := os.ReadDir(dir)
		if err != nil || len(ents) == 0 {
			return fmt.Errorf("no consume-queue file in %s: %v", dir, err)
		}
		for _, e := range ents {
			fi, err := e.Info()
			if err != nil || fi.Size() == 0 {
				return fmt.Errorf("consume-queue file %s not allocated yet: %v", e.Name(), err)
			}
		}
		return nil
	})
}

func invokeOK(t *testing.T, c interface {
	InvokeSync(context.Context, string, *codec.RemotingCommand) (*codec.RemotingCommand, error)
}, addr string, req *codec.RemotingCommand) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.InvokeSync(ctx, addr, req)
	if err != nil || resp.Code != code.Success {
		t.Fatalf("code %d: %v %+v", req.Code, err, resp)
	}
}

// runCrashChild runs a broker on the store root until the parent kills
// the process.
func runCrashChild(t *testing.T, root string) {
	cfg, scfg := testutil.NewBrokerConfigs(t, "")
	scfg.StorePathRootDir = root
	b := testutil.StartBrokerWith(t, cfg, scfg)
	fmt.Printf("%s %s\n", crashReadyToken, b.Addr())
	select {} // killed by the parent
}

// startCrashChild re-executes this test as a child broker on root and
// returns its address and a func that kills it with SIGKILL and waits.
func startCrashChild(t *testing.T, root string) (string, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokerConfigChangesSurviveCrash$", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+root)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), crashReadyToken+" "); ok {
				ready <- line
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	kill := func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	t.Cleanup(kill)
	select {
	case addr := <-ready:
		return addr, kill
	case <-exited:
		t.Fatal("child exited before it was ready")
	case <-time.After(wait.Scale(60 * time.Second)):
		t.Fatal("child not ready")
	}
	return "", nil
}
