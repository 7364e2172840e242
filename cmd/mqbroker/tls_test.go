package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/namesrv"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// startNamesrvTLS starts an in-process name server in the given TLS mode.
func startNamesrvTLS(t *testing.T, mode string) *namesrv.Namesrv {
	t.Helper()
	cfg := namesrv.NewNamesrvConfig()
	cfg.KVConfigPath = filepath.Join(t.TempDir(), "kvConfig.json")
	srv := namesrv.NewNettyServerConfig()
	srv.ListenAddr = "127.0.0.1:0"
	srv.TLS = remoting.NewTLSConfig()
	srv.TLS.ServerMode = mode
	ns, err := namesrv.New(cfg, srv, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ns.Shutdown(context.Background()) })
	return ns
}

// runBroker runs mqbroker with args and a minimal conf plus extra lines;
// it returns the broker's address once it booted.
func runBroker(t *testing.T, extra string, args ...string) string {
	t.Helper()
	conf := fmt.Sprintf("brokerClusterName=DefaultCluster\nbrokerName=broker-a\nstorePathRootDir=%s\nlistenPort=0\nbrokerIP1=127.0.0.1\nmappedFileSizeCommitLog=67108864\n%s\n", t.TempDir(), extra)
	f := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(f, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var out, errOut testutil.SyncBuffer
	done := make(chan int, 1)
	go func() { done <- run(append([]string{"-c", f}, args...), &out, &errOut, stop) }()
	t.Cleanup(func() {
		close(stop)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("no exit after stop")
		}
	})
	boot := regexp.MustCompile(`The broker\[broker-a, (127\.0\.0\.1:\d+)\]`)
	var addr string
	testutil.Eventually(t, 20*time.Second, func() error {
		if m := boot.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
			return nil
		}
		select {
		case rc := <-done:
			done <- rc // for the cleanup
			t.Fatalf("exited %d: %s %s", rc, out.String(), errOut.String())
		default:
		}
		return fmt.Errorf("not started: %q %q", out.String(), errOut.String())
	})
	return addr
}

func tlsClient(t *testing.T, useTLS bool) *remoting.Client {
	cfg := remoting.NewNettyClientConfig()
	cfg.UseTLS = useTLS
	c := remoting.NewClient(cfg, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	return c
}

// call sends GET_BROKER_RUNTIME_INFO-free, always-served request: the
// route of TBW102 from a name server, or the broker's topic config table.
func call(c *remoting.Client, addr string, req *codec.RemotingCommand) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.InvokeSync(ctx, addr, req)
	if err != nil {
		return err
	}
	if resp.Code != code.Success {
		return fmt.Errorf("code %d %s", resp.Code, resp.Remark)
	}
	return nil
}

// By default mqbroker is permissive (4.9.8's default, self-signed
// certificate): plain and TLS clients are both served.
func TestMQBrokerTLSDefaultPermissive(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	addr := runBroker(t, "", "-n", ns.Addr().String())
	for _, useTLS := range []bool{false, true} {
		if err := call(tlsClient(t, useTLS), addr, codec.NewRequest(code.GetAllTopicConfig, nil, nil)); err != nil {
			t.Fatalf("useTLS=%v: %v", useTLS, err)
		}
	}
}

// -Dtls.server.mode=enforcing: plain clients are refused, and the broker's
// own client uses TLS (BrokerStartup's tls.enable default), so it
// registers with an enforcing name server.
func TestMQBrokerTLSEnforcingFromDefine(t *testing.T) {
	ns := startNamesrvTLS(t, "enforcing")
	nsAddr := ns.Addr().String()
	addr := runBroker(t, "", "-Dtls.server.mode=enforcing", "-n", nsAddr)
	if err := call(tlsClient(t, false), addr, codec.NewRequest(code.GetAllTopicConfig, nil, nil)); err == nil {
		t.Fatal("plain client served by an enforcing broker")
	}
	if err := call(tlsClient(t, true), addr, codec.NewRequest(code.GetAllTopicConfig, nil, nil)); err != nil {
		t.Fatal(err)
	}
	route := codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": "TBW102"}, nil)
	testutil.Eventually(t, 10*time.Second, func() error { return call(tlsClient(t, true), nsAddr, route) })
}

// The same key in broker.conf; useTLS=false there wins over the derived
// default (true when enforcing), so the broker registers in plain with a
// name server that has no TLS.
func TestMQBrokerTLSKeysInConf(t *testing.T) {
	ns := testutil.StartNamesrv(t) // TLS disabled
	nsAddr := ns.Addr().String()
	addr := runBroker(t, "tls.server.mode=enforcing\nuseTLS=false", "-n", nsAddr)
	if err := call(tlsClient(t, false), addr, codec.NewRequest(code.GetAllTopicConfig, nil, nil)); err == nil {
		t.Fatal("plain client served by a broker with tls.server.mode=enforcing in its conf")
	}
	if err := call(tlsClient(t, true), addr, codec.NewRequest(code.GetAllTopicConfig, nil, nil)); err != nil {
		t.Fatal(err)
	}
	route := codec.NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": "TBW102"}, nil)
	testutil.Eventually(t, 10*time.Second, func() error { return call(tlsClient(t, false), nsAddr, route) })
}
