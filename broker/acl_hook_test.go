package broker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// aclHomeWith is a fresh home whose conf/plain_acl.yml is yml.
func aclHomeWith(t *testing.T, yml string) string {
	t.Helper()
	home := t.TempDir()
	file := filepath.Join(home, "conf", "plain_acl.yml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

const noSignatureRemark = "org.apache.rocketmq.acl.common.AclException: No accessKey is configured, " +
	"org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:664)"

// The check runs on the fast (VIP) port too, and on codes without a
// processor of their own.
func TestBrokerACLFastPortAndDefaultProcessor(t *testing.T) {
	t.Parallel()
	home := aclHomeWith(t, "accounts:\n  - accessKey: SomeUser1\n    secretKey: some-secret-1\n")
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.ACLEnable, c.RocketmqHome = true, home
	})
	for _, addr := range []string{b.Addr().String(), b.FastAddr().String()} {
		cc := newCMClient(t, addr, "acl")
		for _, c := range []int32{code.GetAllTopicConfig, 9999} {
			resp := cc.call(codec.NewRequest(c, map[string]string{}, nil))
			wantCode(t, resp, code.SystemError)
			if resp.Remark != noSignatureRemark {
				t.Errorf("%s code %d: remark %q", addr, c, resp.Remark)
			}
		}
	}
}

// aclEnable switched on by UPDATE_BROKER_CONFIG, like in Java, applies at
// the next start only; it is logged as such, not taken silently.
func TestBrokerACLEnableByUpdateConfigWaitsForRestart(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	b := startBrokerWithOptions(t, broker.Options{Logger: zap.New(core)})
	cc := newCMClient(t, b.Addr().String(), "admin")
	updateConfig(t, cc.call, "aclEnable=true\n")
	entries := logs.FilterMessage("update broker config: persisted, applied at the next start").All()
	if len(entries) != 1 || fmt.Sprint(entries[0].ContextMap()["keys"]) != "[aclEnable]" {
		t.Fatalf("restart log entries: %v", entries)
	}
	wantCode(t, cc.call(codec.NewRequest(code.GetAllTopicConfig, nil, nil)), code.Success)
}

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

// A request the validator cannot even parse (HEART_BEAT without a body) is
// refused with parse's remark; the debug log of the refusal, on in tests,
// must not need the parsed resource.
func TestBrokerACLParseRefusal(t *testing.T) {
	t.Parallel()
	home := aclHomeWith(t, "accounts:\n  - accessKey: SomeUser1\n    secretKey: some-secret-1\n")
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.ACLEnable, c.RocketmqHome = true, home
	})
	cc := newCMClient(t, b.Addr().String(), "acl")
	resp := cc.call(codec.NewRequest(code.HeartBeat, map[string]string{"AccessKey": "SomeUser1"}, nil))
	wantCode(t, resp, code.SystemError)
	const want = "org.apache.rocketmq.acl.common.AclException, " +
		"org.apache.rocketmq.acl.plain.PlainAccessValidator.parse(PlainAccessValidator.java:134)"
	if resp.Remark != want {
		t.Errorf("remark %q, want %q", resp.Remark, want)
	}
}
