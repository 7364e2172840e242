package namesrv

// This file mirrors Java's NamesrvController and BrokerHousekeepingService.

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/namesrv/console"
	"github.com/rocketmq-go/rmq/remoting"
)

// poolQueueCapacity bounds requests waiting for a worker (Java's executor
// queue is unbounded; past this the transport answers SYSTEM_BUSY).
const poolQueueCapacity = 65536

// Namesrv is a running name server: route table, KV config, remoting server
// and the housekeeping goroutine that expires silent brokers.
type Namesrv struct {
	lg      *zap.Logger
	cfg     atomic.Pointer[NamesrvConfig] // live snapshot, swapped by UPDATE_NAMESRV_CONFIG
	route   *RouteInfoManager
	kv      *KVConfigManager
	proc    *DefaultRequestProcessor
	srv     *remoting.Server
	scan    *service.Service
	product productEnv             // clusterTest fallback client
	console *console.Console       // nil unless consoleListenAddr is set
	self    atomic.Pointer[string] // own address for the console, set once bound
	metrics nsMetrics              // metrics.go

	nettyMu sync.Mutex                  // guards netty and extra
	netty   *remoting.NettyServerConfig // as configured (updates are recorded, not applied)
	extra   map[string]string           // file keys no config declares (Configuration.registerConfig)

	started atomic.Bool
	stopped atomic.Bool
}

// New validates the configuration and allocates the server; it binds nothing.
// nil configs mean defaults; lg nil means no logging.
func New(cfg *NamesrvConfig, srvCfg *remoting.NettyServerConfig, lg *zap.Logger) (*Namesrv, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if cfg == nil {
		cfg = NewNamesrvConfig()
	}
	if srvCfg == nil {
		srvCfg = NewNettyServerConfig()
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := *cfg
	n := &Namesrv{lg: lg, netty: srvCfg, extra: map[string]string{}}
	n.cfg.Store(&c)
	n.route = NewRouteInfoManager(lg.Named("routeinfo"))
	n.kv = NewKVConfigManager(c.KVConfigPath, lg.Named("kvconfig"))
	srv, err := remoting.NewServer(srvCfg, lg.Named("remoting"))
	if err != nil {
		return nil, err
	}
	n.srv = srv
	n.proc = newDefaultRequestProcessor(n)
	workers := max(srvCfg.ServerWorkerThreads, 1)
	srv.RegisterDefaultProcessor(n.proc, remoting.NewPool("namesrv", workers, poolQueueCapacity))
	srv.SetChannelEventListener(housekeeping{n})
	if err := n.initMetrics(&c); err != nil {
		return nil, err
	}
	n.scan = service.New("scanNotActiveBroker", c.scanInterval(), func(context.Context) { n.scanNotActiveBroker() })
	if err := n.newConsole(srvCfg); err != nil {
		return nil, err
	}
	return n, nil
}

// Config returns the live configuration snapshot (do not modify).
func (n *Namesrv) Config() *NamesrvConfig { return n.cfg.Load() }

// RouteInfoManager exposes the route table (tests, tools).
func (n *Namesrv) RouteInfoManager() *RouteInfoManager { return n.route }

// KVConfigManager exposes the KV store (tests, tools).
func (n *Namesrv) KVConfigManager() *KVConfigManager { return n.kv }

// RegisterConfig remembers properties-file keys no config struct declares,
// so GET_NAMESRV_CONFIG reports them as Java does.
func (n *Namesrv) RegisterConfig(m map[string]string) {
	n.nettyMu.Lock()
	defer n.nettyMu.Unlock()
	for k, v := range m {
		n.extra[k] = v
	}
}

// Start loads the KV file, binds the port and starts housekeeping.
func (n *Namesrv) Start() error {
	if !n.started.CompareAndSwap(false, true) {
		return errors.New("namesrv: already started")
	}
	if err := n.kv.Load(); err != nil {
		return err
	}
	if err := n.srv.Start(); err != nil {
		return err
	}
	n.rememberSelfAddr()
	// A console or metrics address that cannot be bound fails Start, and
	// what Start had started is stopped again.
	if err := n.startConsole(); err != nil {
		return n.stopAfterFailedStart(err)
	}
	if err := n.startMetrics(); err != nil {
		return n.stopAfterFailedStart(err)
	}
	n.scan.Start()
	n.lg.Info("name server started", zap.String("addr", n.srv.Addr().String()))
	return nil
}

// Addr is the bound address (valid after Start).
func (n *Namesrv) Addr() net.Addr { return n.srv.Addr() }

// Shutdown stops housekeeping, then the server; it is idempotent.
func (n *Namesrv) Shutdown(ctx context.Context) error {
	if !n.stopped.CompareAndSwap(false, true) {
		return nil
	}
	err := n.scan.Stop(ctx)
	if n.console != nil {
		err = errors.Join(err, n.console.Shutdown(ctx)) // before the server it asks
	}
	if n.started.Load() {
		err = errors.Join(err, n.srv.Shutdown(ctx), n.stopMetrics(ctx))
	}
	err = errors.Join(err, n.product.shutdown(ctx))
	n.lg.Info("name server stopped")
	return err
}

// scanNotActiveBroker expires silent brokers and closes their channels
// outside the route lock.
func (n *Namesrv) scanNotActiveBroker() {
	c := n.Config()
	for _, e := range n.route.ScanNotActiveBroker(time.Now().UnixMilli(), c.BrokerChannelExpiredTime) {
		if e.Channel != nil {
			_ = e.Channel.Close()
		}
	}
}

// housekeeping mirrors BrokerHousekeepingService: a closed or idle
// connection takes its broker out of the route table.
type housekeeping struct{ n *Namesrv }

func (h housekeeping) OnChannelConnect(*remoting.Channel) {}

func (h housekeeping) OnChannelClose(ch *remoting.Channel) {
	h.n.route.OnChannelDestroy(ch.RemoteAddr(), ch)
}

func (h housekeeping) OnChannelIdle(ch *remoting.Channel) {
	h.n.route.OnChannelDestroy(ch.RemoteAddr(), ch)
}
