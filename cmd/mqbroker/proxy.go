package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/proxy"
)

// loadProxyConfig reads rmq-proxy.json (defaults when path is empty) for
// the local-mode proxy of --enable-proxy.
func loadProxyConfig(path string) (*proxy.Config, error) {
	c, err := proxy.LoadConfigFile(path)
	if err != nil {
		return nil, err
	}
	c.ProxyMode = proxy.ModeLocal
	return c, nil
}

// startProxy starts the local-mode proxy when pcfg is set; false on failure.
func startProxy(b *broker.Broker, cfgs *broker.StartupConfigs, pcfg *proxy.Config, lg *zap.Logger, stdout io.Writer) (*proxy.Running, bool) {
	if pcfg == nil {
		return nil, true
	}
	px, err := proxy.StartLocal(b, pcfg, cfgs.Server.TLS, lg.Named("proxy"))
	if err != nil {
		lg.Error("start proxy failed", zap.Error(err))
		return nil, false
	}
	fmt.Fprintf(stdout, "The proxy boot success. grpc %s, proxyMode=local\n", px.Server.Addr())
	return px, true
}

func shutdownProxy(px *proxy.Running, lg *zap.Logger) {
	if px == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := px.Shutdown(ctx); err != nil {
		lg.Error("proxy shutdown failed", zap.Error(err))
	}
}
