package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/controller"
	"github.com/rocketmq-go/rmq/controller/client"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
)

// freePort returns a port the kernel just had free (the controller's peer
// address must be written into the conf before it starts).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// TestNamesrvCmdEmbeddedController: Apache's cluster-3n-namesrv-plugin
// conf shape (enableControllerInNamesrv plus the controllerDLeger* keys)
// starts a controller in the name server process, at the peer address,
// without unknown-key warnings for the controller keys; -p prints them.
func TestNamesrvCmdEmbeddedController(t *testing.T) {
	peer := freePort(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "namesrv-n0.conf")
	content := fmt.Sprintf("listenPort = 0\nenableControllerInNamesrv = true\n\ncontrollerDLegerGroup = group1\n"+
		"controllerDLegerPeers = n0-%s\ncontrollerDLegerSelfId = n0\ncontrollerStorePath = %s\n"+
		"kvConfigPath = %s\n", peer, filepath.Join(dir, "ctl"), filepath.Join(dir, "kv.json"))
	if err := os.WriteFile(conf, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}

	var out, errOut testutil.SyncBuffer
	if rc := run([]string{"-c", conf, "-p"}, &out, &errOut, nil); rc != 0 {
		t.Fatalf("rc=%d stderr=%s", rc, errOut.String())
	}
	for _, want := range []string{"enableControllerInNamesrv=true\n", "controllerDLegerPeers=n0-" + peer + "\n", "notifyBrokerRoleChanged=true\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-p output lacks %q", want)
		}
	}
	if strings.Contains(errOut.String(), "unknown key") {
		t.Errorf("warnings: %s", errOut.String())
	}

	started := make(chan *controller.Controller, 1)
	startedController = func(c *controller.Controller) { started <- c }
	t.Cleanup(func() { startedController = nil })
	stop := make(chan struct{})
	done := make(chan int, 1)
	var logOut bytes.Buffer
	go func() { done <- run([]string{"-c", conf}, &out, &logOut, stop) }()
	var c *controller.Controller
	select {
	case c = <-started:
	case rc := <-done:
		t.Fatalf("exited early rc=%d", rc)
	case <-time.After(30 * time.Second):
		t.Fatal("controller did not start")
	}
	if c.Addr().(*net.TCPAddr).Port != mustPort(t, peer) {
		t.Fatalf("controller listens on %v, want port of %s", c.Addr(), peer)
	}
	rc := remoting.NewClient(nil, nil)
	defer func() { _ = rc.Shutdown(context.Background()) }()
	cc := client.New(rc, []string{peer}, nil)
	testutil.Eventually(t, 20*time.Second, func() error {
		md, err := cc.GetMetaData(t.Context(), peer)
		if err != nil {
			return err
		}
		if !md.IsLeader || md.Group != "group1" || md.ControllerLeaderAddress != peer {
			return fmt.Errorf("metadata %+v", md)
		}
		return nil
	})
	if id, err := cc.GetNextBrokerID(t.Context(), "DefaultCluster", "broker-a"); err != nil || id != 1 {
		t.Fatalf("next broker id = %d, %v", id, err)
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

func mustPort(t *testing.T, addr string) int {
	t.Helper()
	a, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return a.Port
}

// TestNamesrvCmdThreeEmbeddedControllers is Apache's
// cluster-3n-namesrv-plugin layout: three name servers, each embedding one
// controller of a three-peer group; they elect one leader that all three
// name, and it serves the controller API.
func TestNamesrvCmdThreeEmbeddedControllers(t *testing.T) {
	peers := []string{freePort(t), freePort(t), freePort(t)}
	peerList := fmt.Sprintf("n0-%s;n1-%s;n2-%s", peers[0], peers[1], peers[2])
	started := make(chan *controller.Controller, 3)
	startedController = func(c *controller.Controller) { started <- c }
	t.Cleanup(func() { startedController = nil })
	stop := make(chan struct{})
	stopAll := sync.OnceFunc(func() { close(stop) })
	done := make(chan int, 3)
	exited := 0
	// A failing check must not leave name servers running into the next
	// test: they read the package's started hooks.
	t.Cleanup(func() {
		stopAll()
		for ; exited < len(peers); exited++ {
			<-done
		}
	})
	for i := range peers {
		dir := t.TempDir()
		conf := filepath.Join(dir, fmt.Sprintf("namesrv-n%d.conf", i))
		content := fmt.Sprintf("listenPort = 0\nenableControllerInNamesrv = true\ncontrollerDLegerGroup = group1\n"+
			"controllerDLegerPeers = %s\ncontrollerDLegerSelfId = n%d\ncontrollerStorePath = %s\nkvConfigPath = %s\n",
			peerList, i, filepath.Join(dir, "ctl"), filepath.Join(dir, "kv.json"))
		if err := os.WriteFile(conf, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		go func() {
			var out, logs testutil.SyncBuffer
			done <- run([]string{"-c", conf}, &out, &logs, stop)
		}()
	}
	for range peers {
		select {
		case <-started:
		case rc := <-done:
			exited++
			t.Fatalf("a name server exited rc=%d", rc)
		case <-time.After(30 * time.Second):
			t.Fatal("controllers did not start")
		}
	}
	rc := remoting.NewClient(nil, nil)
	defer func() { _ = rc.Shutdown(context.Background()) }()
	cc := client.New(rc, peers, nil)
	testutil.Eventually(t, 30*time.Second, func() error {
		leaders := map[string]bool{}
		for _, p := range peers {
			md, err := cc.GetMetaData(t.Context(), p)
			if err != nil {
				return err
			}
			if md.ControllerLeaderAddress == "" {
				return fmt.Errorf("%s knows no leader yet", p)
			}
			leaders[md.ControllerLeaderAddress] = true
		}
		if len(leaders) != 1 {
			return fmt.Errorf("leaders disagree: %v", leaders)
		}
		return nil
	})
	if id, err := cc.GetNextBrokerID(t.Context(), "DefaultCluster", "broker-a"); err != nil || id != 1 {
		t.Fatalf("next broker id = %d, %v", id, err)
	}
	stopAll()
	for range peers {
		select {
		case rc := <-done:
			exited++
			if rc != 0 {
				t.Fatalf("rc=%d", rc)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no exit")
		}
	}
}
