package proxy

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/remoting"
)

// Running is a started proxy together with its backend, as the commands
// run it.
type Running struct {
	Server  *Server
	backend Backend
}

// StartLocal starts a local-mode proxy in front of b, the way
// `mqbroker --enable-proxy` and mqstandalone run it. tlsCfg is the broker's
// tls.* configuration (nil: plain only).
func StartLocal(b *broker.Broker, cfg *Config, tlsCfg *remoting.TLSConfig, lg *zap.Logger) (*Running, error) {
	be, err := NewLocalBackend(b, lg)
	if err != nil {
		return nil, err
	}
	return start(be, cfg, tlsCfg, lg)
}

// StartCluster starts a cluster-mode proxy reaching the brokers of
// cfg.NamesrvAddr. cliCfg configures the remoting client (nil: defaults).
func StartCluster(cfg *Config, cliCfg *remoting.NettyClientConfig, tlsCfg *remoting.TLSConfig, lg *zap.Logger) (*Running, error) {
	be, err := NewClusterBackend(cfg.NamesrvAddrs(), cliCfg, lg)
	if err != nil {
		return nil, err
	}
	return start(be, cfg, tlsCfg, lg)
}

func start(be Backend, cfg *Config, tlsCfg *remoting.TLSConfig, lg *zap.Logger) (*Running, error) {
	srv, err := New(cfg, be, lg)
	if err == nil {
		srv.SetTLS(proxyTLS(cfg, tlsCfg))
		err = srv.Start()
	}
	if err != nil {
		_ = be.Close(context.Background())
		return nil, err
	}
	return &Running{Server: srv, backend: be}, nil
}

// Shutdown stops the server, then the backend's connections.
func (r *Running) Shutdown(ctx context.Context) error {
	return errors.Join(r.Server.Shutdown(ctx), r.backend.Close(ctx))
}

// proxyTLS applies rmq-proxy.json's tlsCertPath / tlsKeyPath /
// tlsTestModeEnable over the tls.* settings: with both paths set the gRPC
// port serves that certificate (test mode as the file says); otherwise the
// tls.* settings apply unchanged.
func proxyTLS(cfg *Config, tc *remoting.TLSConfig) *remoting.TLSConfig {
	if cfg.TLSCertPath == "" || cfg.TLSKeyPath == "" {
		return tc
	}
	out := remoting.NewTLSConfig()
	if tc != nil {
		c := *tc
		out = &c
	}
	out.ServerCertPath, out.ServerKeyPath = cfg.TLSCertPath, cfg.TLSKeyPath
	out.TestModeEnable = cfg.TLSTestModeEnable
	return out
}
