package proxy

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/remoting"
)

// Running is a started proxy together with its backend, as the commands
// run it.
type Running struct {
	Server  *Server
	backend Backend
	acl     *acl.Plain // cluster mode with enableACL: the proxy's own accounts
}

// StartLocal starts a local-mode proxy in front of b, the way
// `mqbroker --enable-proxy` and mqstandalone run it. tlsCfg is the broker's
// tls.* configuration (nil: plain only).
func StartLocal(b *broker.Broker, cfg *Config, tlsCfg *remoting.TLSConfig, lg *zap.Logger) (*Running, error) {
	be, err := NewLocalBackend(b, lg)
	if err != nil {
		return nil, err
	}
	return start(be, cfg, tlsCfg, lg, nil)
}

// StartCluster starts a cluster-mode proxy reaching the brokers of
// cfg.NamesrvAddr. cliCfg configures the remoting client (nil: defaults).
func StartCluster(cfg *Config, cliCfg *remoting.NettyClientConfig, tlsCfg *remoting.TLSConfig, lg *zap.Logger) (*Running, error) {
	be, err := NewClusterBackend(cfg.NamesrvAddrs(), cliCfg, lg)
	if err != nil {
		return nil, err
	}
	if !cfg.EnableACL {
		return start(be, cfg, tlsCfg, lg, nil)
	}
	p, err := acl.New(acl.Config{Home: cfg.RocketmqHome, Logger: lg.Named("acl")})
	if err != nil {
		_ = be.Close(context.Background())
		return nil, err
	}
	r, err := start(be, cfg, tlsCfg, lg, p)
	if err != nil {
		return nil, err
	}
	p.Start() // the file watcher: account changes apply without a restart
	r.acl = p
	return r, nil
}

// start runs a server on be; a, when not nil, is the ACL it checks calls
// against.
func start(be Backend, cfg *Config, tlsCfg *remoting.TLSConfig, lg *zap.Logger, a ACL) (*Running, error) {
	if cfg.RocketMQClusterName != NewConfig().RocketMQClusterName {
		// 5.x uses it to pick the cluster's brokers; we route to every
		// broker the name servers know, so say that the key changes nothing.
		lg.Warn("rocketMQClusterName is read but not used: the proxy serves the topics of every cluster its name servers know",
			zap.String("rocketMQClusterName", cfg.RocketMQClusterName))
	}
	srv, err := New(cfg, be, lg)
	if err == nil {
		srv.SetTLS(proxyTLS(cfg, tlsCfg))
		if a != nil {
			srv.SetACL(a)
		}
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
	err := errors.Join(r.Server.Shutdown(ctx), r.backend.Close(ctx))
	if r.acl != nil {
		err = errors.Join(err, r.acl.Shutdown(ctx))
	}
	return err
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
