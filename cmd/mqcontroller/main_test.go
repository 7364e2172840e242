package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/controller"
	"github.com/rocketmq-go/rmq/controller/client"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
)

// TestControllerCmdPrintAndWarn: -p prints 5.x ControllerConfig defaults; a
// key we do not implement is warned about, not refused.
func TestControllerCmdPrintAndWarn(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "c.conf")
	if err := os.WriteFile(conf, []byte("controllerDLegerGroup = group1\nmetricsExporterType = PROM\nenableElectUncleanMaster = TRUE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut testutil.SyncBuffer
	if rc := run([]string{"-c", conf, "-p"}, &out, &errOut, nil); rc != 0 {
		t.Fatalf("rc=%d stderr=%s", rc, errOut.String())
	}
	for _, want := range []string{"controllerDLegerGroup=group1\n", "scanNotActiveBrokerInterval=5000\n", "notifyBrokerRoleChanged=true\n",
		"enableElectUncleanMaster=true\n", "controllerType=DLedger\n", "electMasterMaxRetryCount=3\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-p output lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errOut.String(), "metricsExporterType") {
		t.Errorf("no warning for an unimplemented key: %s", errOut.String())
	}
	// Missing peers: Java's message, exit 255.
	if rc := run([]string{"-c", conf}, &out, &errOut, nil); rc != 255 {
		t.Fatalf("rc=%d without peers", rc)
	}
}

// TestControllerCmdStandalone runs Apache's controller-standalone.conf shape
// and reaches the controller at its peer address.
func TestControllerCmdStandalone(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	peer := ln.Addr().String()
	_ = ln.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "controller-standalone.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("controllerDLegerGroup = group1\ncontrollerDLegerPeers = n0-%s\ncontrollerDLegerSelfId = n0\ncontrollerStorePath = %s\n",
		peer, dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan *controller.Controller, 1)
	started = func(c *controller.Controller) { got <- c }
	t.Cleanup(func() { started = nil })
	stop, done := make(chan struct{}), make(chan int, 1)
	var out, errOut testutil.SyncBuffer
	go func() { done <- run([]string{"-c", conf}, &out, &errOut, stop) }()
	select {
	case <-got:
	case rc := <-done:
		t.Fatalf("exited rc=%d: %s", rc, errOut.String())
	case <-time.After(30 * time.Second):
		t.Fatal("controller did not start")
	}
	rc := remoting.NewClient(nil, nil)
	defer func() { _ = rc.Shutdown(context.Background()) }()
	cc := client.New(rc, []string{peer}, nil)
	testutil.Eventually(t, 20*time.Second, func() error {
		_, err := cc.GetNextBrokerID(t.Context(), "DefaultCluster", "broker-a")
		return err
	})
	if _, err := os.Stat(filepath.Join(dir, "n0", "raft.db")); err != nil {
		t.Fatalf("raft log not under controllerStorePath/<selfId>: %v", err)
	}
	close(stop)
	select {
	case rc := <-done:
		if rc != 0 {
			t.Fatalf("rc=%d", rc)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit")
	}
}
