package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/namesrv"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// The name server takes the tls.* keys from -D options and its -c file,
// then the tls.config.file: here the conf says permissive, -D says
// enforcing (it wins), and the tls.config.file's own tls.server.mode is
// ignored as in Java. Without options the mode is permissive.
func TestNamesrvCmdTLSModes(t *testing.T) {
	dir := t.TempDir()
	tlsFile := filepath.Join(dir, "tls.properties")
	if err := os.WriteFile(tlsFile, []byte("tls.server.mode=disabled\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "ns.conf")
	body := fmt.Sprintf("listenPort=0\nkvConfigPath=%s\ntls.server.mode=permissive\ntls.config.file=%s\n", filepath.Join(dir, "kv.json"), tlsFile)
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args             []string
		plainOK, secured bool
	}{
		{[]string{"-c", conf, "-Dtls.server.mode=enforcing"}, false, true},
		{[]string{"-c", conf}, true, true},
	} {
		addr := runNamesrv(t, tc.args)
		for _, useTLS := range []bool{false, true} {
			cfg := remoting.NewNettyClientConfig()
			cfg.UseTLS = useTLS
			c := remoting.NewClient(cfg, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err := c.InvokeSync(ctx, addr, codec.NewRequest(code.GetKvConfig, map[string]string{"namespace": "n", "key": "k"}, nil))
			cancel()
			_ = c.Shutdown(context.Background())
			if want := map[bool]bool{false: tc.plainOK, true: tc.secured}[useTLS]; (err == nil) != want {
				t.Errorf("%v useTLS=%v: err %v, want served=%v", tc.args, useTLS, err, want)
			}
		}
	}
}

var startedMu sync.Mutex // started is one package variable: one namesrv at a time

func runNamesrv(t *testing.T, args []string) string {
	t.Helper()
	startedMu.Lock()
	defer startedMu.Unlock()
	got := make(chan *namesrv.Namesrv, 1)
	started = func(ns *namesrv.Namesrv) { got <- ns }
	defer func() { started = nil }()
	stop := make(chan struct{})
	done := make(chan int, 1)
	var out, errOut bytes.Buffer
	go func() { done <- run(args, &out, &errOut, stop) }()
	var addr string
	select {
	case ns := <-got:
		addr = fmt.Sprintf("127.0.0.1:%d", ns.Addr().(*net.TCPAddr).Port)
	case rc := <-done:
		t.Fatalf("exited %d", rc)
	case <-time.After(10 * time.Second):
		t.Fatal("no start")
	}
	t.Cleanup(func() {
		close(stop)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("no exit after stop")
		}
	})
	return addr
}
