package testutil

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/namesrv"
)

// shutdownTimeout bounds the Cleanup shutdown of test servers.
const shutdownTimeout = 10 * time.Second

// StartNamesrv starts a name server on 127.0.0.1:0 with its KV config in a
// temporary directory, and shuts it down when the test ends. opts may
// adjust the configuration before start.
func StartNamesrv(t testing.TB, opts ...func(*namesrv.NamesrvConfig)) *namesrv.Namesrv {
	t.Helper()
	cfg := namesrv.NewNamesrvConfig()
	dir := t.TempDir()
	cfg.KVConfigPath = filepath.Join(dir, "kvConfig.json")
	cfg.ConfigStorePath = filepath.Join(dir, "namesrv.properties")
	for _, o := range opts {
		o(cfg)
	}
	srv := namesrv.NewNettyServerConfig()
	srv.ListenPort = 0
	srv.ListenAddr = "127.0.0.1:0"
	ns, err := namesrv.New(cfg, srv, zaptest.NewLogger(t).Named("namesrv"))
	if err != nil {
		t.Fatalf("namesrv.New: %v", err)
	}
	if err := ns.Start(); err != nil {
		t.Fatalf("namesrv.Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := ns.Shutdown(ctx); err != nil {
			t.Errorf("namesrv.Shutdown: %v", err)
		}
	})
	return ns
}

// BrokerOption adjusts the broker and store configuration before start.
type BrokerOption = func(*broker.BrokerConfig, *store.MessageStoreConfig)

// NewBrokerConfigs returns the configuration StartBroker uses: brokerIP1/2
// 127.0.0.1, broker "broker-a" of DefaultCluster registering with nsAddr
// (may be empty), store in a fresh t.TempDir() with 64 MiB CommitLog files.
// BrokerFastFailure's send-queue wait (Java's 200 ms) and page-cache busy
// bound (1 s) are raised to 10 s: on a loaded CI machine running -race a
// request can sit that long in a queue, and SYSTEM_BUSY would then answer
// tests that are not about flow control. opts may set them back.
func NewBrokerConfigs(t testing.TB, nsAddr string, opts ...BrokerOption) (*broker.BrokerConfig, *store.MessageStoreConfig) {
	t.Helper()
	cfg := broker.NewBrokerConfig()
	cfg.NamesrvAddr = nsAddr
	cfg.BrokerIP1, cfg.BrokerIP2 = "127.0.0.1", "127.0.0.1"
	cfg.BrokerName = "broker-a"
	scfg := store.NewMessageStoreConfig()
	scfg.StorePathRootDir = t.TempDir()
	scfg.StorePathCommitLog = ""
	scfg.MappedFileSizeCommitLog = 64 << 20
	scfg.HAListenPort = 0 // ephemeral once broker/ha listens
	cfg.WaitTimeMillsInSendQueue = 10_000
	scfg.OSPageCacheBusyTimeOutMills = 10_000
	for _, o := range opts {
		o(cfg, scfg)
	}
	return cfg, scfg
}

// StartBroker starts a broker on 127.0.0.1:0 (main and fast server each on
// an ephemeral port) registered with nsAddr, and shuts it down when the
// test ends.
func StartBroker(t testing.TB, nsAddr string, opts ...BrokerOption) *broker.Broker {
	t.Helper()
	cfg, scfg := NewBrokerConfigs(t, nsAddr, opts...)
	return StartBrokerWith(t, cfg, scfg)
}

// StartBrokerWith starts a broker with the given configuration on
// 127.0.0.1:0 and registers its shutdown with t.Cleanup.
func StartBrokerWith(t testing.TB, cfg *broker.BrokerConfig, scfg *store.MessageStoreConfig) *broker.Broker {
	t.Helper()
	srv := broker.NewNettyServerConfig()
	srv.ListenPort = 0
	srv.ListenAddr = "127.0.0.1:0"
	b, err := broker.New(cfg, scfg, broker.Options{
		ServerConfig:   srv,
		FastListenAddr: "127.0.0.1:0",
		Logger:         zaptest.NewLogger(t).Named("broker"),
	})
	if err != nil {
		t.Fatalf("broker.New: %v", err)
	}
	if err := b.Start(); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		_ = b.Shutdown(ctx)
		t.Fatalf("broker.Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			t.Errorf("broker.Shutdown: %v", err)
		}
	})
	return b
}
