package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/namesrv"
)

// embedded is an in-process name server and broker on 127.0.0.1 ephemeral
// ports with a temporary store.
type embedded struct {
	namesrvAddr string
	ns          *namesrv.Namesrv
	b           *broker.Broker
	dir         string
	removeDir   bool
}

func startEmbedded(o *options) (*embedded, error) {
	e := &embedded{dir: o.storeDir}
	if e.dir == "" {
		d, err := os.MkdirTemp("", "mqbench")
		if err != nil {
			return nil, err
		}
		e.dir, e.removeDir = d, true
	}
	ncfg := namesrv.NewNamesrvConfig()
	ncfg.KVConfigPath = filepath.Join(e.dir, "namesrv", "kvConfig.json")
	ncfg.ConfigStorePath = filepath.Join(e.dir, "namesrv", "namesrv.properties")
	nsrv := namesrv.NewNettyServerConfig()
	nsrv.ListenPort, nsrv.ListenAddr = 0, "127.0.0.1:0"
	ns, err := namesrv.New(ncfg, nsrv, nil)
	if err == nil {
		err = ns.Start()
	}
	if err != nil {
		e.stop()
		return nil, fmt.Errorf("name server: %w", err)
	}
	e.ns = ns
	e.namesrvAddr = ns.Addr().String()

	cfg := broker.NewBrokerConfig()
	cfg.NamesrvAddr = e.namesrvAddr
	cfg.BrokerIP1, cfg.BrokerIP2 = "127.0.0.1", "127.0.0.1"
	scfg := store.NewMessageStoreConfig()
	scfg.StorePathRootDir = filepath.Join(e.dir, "store")
	scfg.StorePathCommitLog = ""
	scfg.FlushDiskType = store.FlushDiskType(o.flushDisk)
	srv := broker.NewNettyServerConfig()
	srv.ListenPort, srv.ListenAddr = 0, "127.0.0.1:0"
	b, err := broker.New(cfg, scfg, broker.Options{ServerConfig: srv, FastListenAddr: "127.0.0.1:0"})
	if err == nil {
		e.b = b
		err = b.Start()
	}
	if err != nil {
		e.stop()
		return nil, fmt.Errorf("broker: %w", err)
	}
	fmt.Printf("embedded name server %s, broker %s (%s), store %s\n", e.namesrvAddr, b.BrokerAddr(), o.flushDisk, scfg.StorePathRootDir)
	return e, nil
}

func (e *embedded) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if e.b != nil {
		_ = e.b.Shutdown(ctx)
	}
	if e.ns != nil {
		_ = e.ns.Shutdown(ctx)
	}
	if e.removeDir {
		_ = os.RemoveAll(e.dir)
	}
}
