package broker_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/testutil"
)

// aclEnable=true with an ACL configuration the broker cannot enforce must
// not start an unprotected broker (Java logs the loader's exception and
// runs without the validator).
func TestBrokerACLRefusesToStartUnenforceable(t *testing.T) {
	t.Parallel()
	for name, yml := range map[string]string{
		"no home":           "",
		"bad white address": "globalWhiteRemoteAddresses:\n  - 10.10.*\n",
		"short secret":      "accounts:\n  - accessKey: SomeUser1\n    secretKey: short\n",
	} {
		t.Run(name, func(t *testing.T) {
			cfg, scfg := testutil.NewBrokerConfigs(t, "")
			cfg.ACLEnable, cfg.RocketmqHome = true, ""
			if yml != "" {
				cfg.RocketmqHome = t.TempDir()
				file := filepath.Join(cfg.RocketmqHome, "conf", "plain_acl.yml")
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			srv := broker.NewNettyServerConfig()
			srv.ListenAddr = "127.0.0.1:0"
			b, err := broker.New(cfg, scfg, broker.Options{ServerConfig: srv, FastListenAddr: "127.0.0.1:0", Logger: zaptest.NewLogger(t)})
			if err == nil {
				_ = b
				t.Fatal("broker built with an unenforceable ACL")
			}
			if !strings.Contains(err.Error(), "acl") {
				t.Errorf("error %q does not name the ACL", err)
			}
		})
	}
}
