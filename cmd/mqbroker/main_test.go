package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func TestMQBrokerApacheConfsLoadWithoutWarnings(t *testing.T) {
	files, err := filepath.Glob("../../broker/testdata/conf/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no conf files: %v", err)
	}
	for _, f := range files {
		var out, errOut bytes.Buffer
		if rc := run([]string{"-c", f, "-p"}, &out, &errOut, nil); rc != 0 {
			t.Fatalf("%s: exit %d: %s", f, rc, errOut.String())
		}
		if errOut.Len() != 0 {
			t.Errorf("%s: warnings:\n%s", f, errOut.String())
		}
		if !strings.Contains(out.String(), "brokerName=") || !strings.Contains(out.String(), "haListenPort=") {
			t.Errorf("%s: -p output lacks keys:\n%s", f, out.String())
		}
	}
}

func TestMQBrokerPrintImportant(t *testing.T) {
	var out, errOut bytes.Buffer
	if rc := run([]string{"-m", "-n", "127.0.0.1:9876"}, &out, &errOut, nil); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut.String())
	}
	s := out.String()
	if !strings.Contains(s, "namesrvAddr=127.0.0.1:9876") || strings.Contains(s, "sendMessageThreadPoolNums") {
		t.Fatalf("-m output:\n%s", s)
	}
}

func TestMQBrokerSlaveNeedsBrokerID(t *testing.T) {
	var out, errOut bytes.Buffer
	f := filepath.Join(t.TempDir(), "slave.conf")
	if err := os.WriteFile(f, []byte("brokerRole=SLAVE\nbrokerId=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rc := run([]string{"-c", f}, &out, &errOut, nil); rc == 0 || !strings.Contains(out.String(), "Slave's brokerId must be > 0") {
		t.Fatalf("exit %d out %q", rc, out.String())
	}
}

func TestMQBrokerServesApacheConf(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	src, err := os.ReadFile("../../broker/testdata/conf/2m-noslave_broker-a.properties")
	if err != nil {
		t.Fatal(err)
	}
	conf := string(src) + fmt.Sprintf("\nstorePathRootDir=%s\nlistenPort=0\nbrokerIP1=127.0.0.1\nmappedFileSizeCommitLog=67108864\n", t.TempDir())
	f := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var out, errOut testutil.SyncBuffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"-c", f, "-n", ns.Addr().String()}, &out, &errOut, stop) }()
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
	if !strings.Contains(out.String(), "The broker[broker-a, 127.0.0.1:") || !strings.Contains(out.String(), "and name server is "+ns.Addr().String()) {
		t.Fatalf("boot line %q", out.String())
	}
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	defer func() { _ = c.Shutdown(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.InvokeSync(ctx, ns.Addr().String(), codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": "TBW102"}, nil))
	if err != nil || resp.Code != code.Success {
		t.Fatalf("route of TBW102: %v %+v", err, resp)
	}
	close(stop)
	select {
	case rc := <-done:
		if rc != 0 {
			t.Fatalf("exit %d: %s", rc, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after stop")
	}
}

func TestMQBrokerHAListenPortFollowsListenPort(t *testing.T) {
	f := filepath.Join(t.TempDir(), "b.conf")
	if err := os.WriteFile(f, []byte("listenPort=20911\nhaListenPort=5\nbrokerId=3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if rc := run([]string{"-c", f, "-p"}, &out, &errOut, nil); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut.String())
	}
	// Java: haListenPort = listenPort + 1 always; a master's brokerId is 0.
	for _, want := range []string{"haListenPort=20912", "listenPort=20911", "brokerId=0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-p output lacks %q", want)
		}
	}
}

func TestMQBrokerLogFilesAsApache(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	logDir := filepath.Join(t.TempDir(), "rocketmqlogs")
	conf := fmt.Sprintf("brokerName=broker-a\nstorePathRootDir=%s\nlistenPort=0\nbrokerIP1=127.0.0.1\nmappedFileSizeCommitLog=67108864\n", t.TempDir())
	f := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var out, errOut testutil.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-c", f, "-n", ns.Addr().String(), "-logDir", logDir, "-logLevel", "debug", "-logFormat", "json"}, &out, &errOut, stop)
	}()
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
	close(stop)
	if rc := <-done; rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut.String())
	}
	for _, name := range []string{"broker.log", "store.log", "remoting.log"} {
		b, err := os.ReadFile(filepath.Join(logDir, name))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[0]), &m); err != nil {
			t.Fatalf("%s line %q is not JSON: %v", name, lines[0], err)
		}
		t.Logf("%s: %d lines, first %v", name, len(lines), m)
	}
	if errOut.String() != "" {
		t.Errorf("stderr has non-error lines with file logs on: %q", errOut.String())
	}
}

func TestMQBrokerRejectsBadLogOptions(t *testing.T) {
	for _, args := range [][]string{{"-logFormat", "xml"}, {"-logLevel", "trace"}} {
		var out, errOut bytes.Buffer
		if rc := run(args, &out, &errOut, nil); rc != 1 || !strings.Contains(errOut.String(), "logging: bad option") {
			t.Errorf("%v: rc=%d stderr=%q", args, rc, errOut.String())
		}
	}
}

func TestMQBrokerLogSettingsFromConfFile(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	logDir := t.TempDir()
	conf := fmt.Sprintf("storePathRootDir=%s\nlistenPort=0\nbrokerIP1=127.0.0.1\nmappedFileSizeCommitLog=67108864\n"+
		"logDir=%s\nlogFormat=json\nlogLevel=error\nbrokerName=broker-b\nbrokerId=7\nisolateLogEnable=true\n", t.TempDir(), logDir)
	f := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var out, errOut testutil.SyncBuffer
	done := make(chan int, 1)
	// The flag beats the file's logLevel=error: info lines must appear.
	go func() {
		done <- run([]string{"-c", f, "-n", ns.Addr().String(), "-logLevel", "info"}, &out, &errOut, stop)
	}()
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
	close(stop)
	if rc := <-done; rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut.String())
	}
	if errOut.String() != "" {
		t.Errorf("stderr %q: the log keys must load without warnings", errOut.String())
	}
	// isolateLogEnable: Apache's brokerLogDir, brokerName_brokerId (a
	// master's brokerId is forced to 0 first).
	b, err := os.ReadFile(filepath.Join(logDir, "broker-b_0", "remoting.log"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(bytes.SplitN(b, []byte("\n"), 2)[0], &m); err != nil || m["level"] != "info" {
		t.Errorf("remoting.log first line %q: %v", b, err)
	}
}
