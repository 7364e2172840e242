package namesrv

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func newConsoleNamesrv(t *testing.T, listen, consoleAddr, tlsMode string) *Namesrv {
	t.Helper()
	dir := t.TempDir()
	cfg := NewNamesrvConfig()
	cfg.KVConfigPath = filepath.Join(dir, "kvConfig.json")
	cfg.ConfigStorePath = filepath.Join(dir, "namesrv.properties")
	cfg.ConsoleListenAddr = consoleAddr
	srvCfg := NewNettyServerConfig()
	srvCfg.ListenAddr = listen
	if tlsMode != "" {
		srvCfg.TLS = remoting.NewTLSConfig()
		srvCfg.TLS.ServerMode = tlsMode
	}
	ns, err := New(cfg, srvCfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = ns.Shutdown(ctx)
	})
	return ns
}

// The console asks its own name server: bound on every interface it dials
// loopback, and a name server that accepts only TLS is asked over TLS.
func TestNamesrvConsoleAsksItself(t *testing.T) {
	for _, c := range []struct{ name, listen, tls string }{
		{"wildcard", ":0", ""},
		{"enforcingTLS", "127.0.0.1:0", "enforcing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := newConsoleNamesrv(t, c.listen, "127.0.0.1:0", c.tls)
			if ns.ConsoleAddr() != nil {
				t.Fatal("console bound before Start")
			}
			if err := ns.Start(); err != nil {
				t.Fatal(err)
			}
			resp, err := http.Get("http://" + ns.ConsoleAddr().String() + "/api/cluster")
			if err != nil {
				t.Fatal(err)
			}
			var v struct {
				Namesrv []string
				Error   string
			}
			err = json.NewDecoder(resp.Body).Decode(&v)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || len(v.Namesrv) != 1 || !strings.HasPrefix(v.Namesrv[0], "127.0.0.1:") {
				t.Fatalf("api/cluster: %d %v %+v", resp.StatusCode, err, v)
			}
		})
	}
}

// A console address in use fails Start and leaves no port open.
func TestNamesrvConsoleAddrInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	ns := newConsoleNamesrv(t, "127.0.0.1:0", busy.Addr().String(), "")
	if err := ns.Start(); err == nil || !strings.Contains(err.Error(), "console") {
		t.Fatalf("Start: %v", err)
	}
	if c, err := net.DialTimeout("tcp", ns.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Fatalf("remoting port %s still open", ns.Addr())
	}
}

func TestNamesrvConsoleOffByDefault(t *testing.T) {
	ns := startNamesrv(t, nil)
	if ns.ConsoleAddr() != nil || ns.Config().ConsoleListenAddr != "" {
		t.Fatalf("console on by default: %v", ns.ConsoleAddr())
	}
}

// UPDATE_NAMESRV_CONFIG cannot switch the console on (or move it).
func TestNamesrvConsoleNotRemotelyConfigurable(t *testing.T) {
	ns := startNamesrv(t, nil)
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	resp := invoke(t, c, ns.Addr().String(), codec.NewRequest(code.UpdateNamesrvConfig, nil, []byte("consoleListenAddr=0.0.0.0:8080\n")))
	if resp.Code != code.NoPermission || ns.Config().ConsoleListenAddr != "" {
		t.Fatalf("update: %d %q, config %q", resp.Code, resp.Remark, ns.Config().ConsoleListenAddr)
	}
}
