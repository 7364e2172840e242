package proxy

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/admin"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// BrokerRequestHandler serves a request a broker sends to the proxy as its
// client (CHECK_TRANSACTION_STATE, GET_CONSUMER_RUNNING_INFO,
// CONSUME_MESSAGE_DIRECTLY...). brokerAddr is the broker's remoting address.
// Return (nil, nil) for oneway requests.
type BrokerRequestHandler func(brokerAddr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error)

// Backend is how the proxy reaches brokers. Every call is safe for
// concurrent use.
type Backend interface {
	// Invoke sends req to the broker at addr and waits for the answer.
	Invoke(ctx context.Context, addr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error)
	// InvokeAsync sends req and calls cb once with the answer or an error
	// (for long polling: ctx bounds the wait).
	InvokeAsync(ctx context.Context, addr string, req *codec.RemotingCommand, cb func(*codec.RemotingCommand, error)) error
	// InvokeOneway sends req without waiting for an answer.
	InvokeOneway(ctx context.Context, addr string, req *codec.RemotingCommand) error
	// TopicRoute is the name server's route of topic; admin.ErrNotFound
	// (wrapped) when the topic has none.
	TopicRoute(ctx context.Context, topic string) (*body.TopicRouteData, error)
	// MasterBrokers returns the master address of every broker the proxy
	// serves, by broker name.
	MasterBrokers(ctx context.Context) (map[string]string, error)
	// SubscriptionGroup returns the broker's config of group (nil when
	// unknown or not reachable).
	SubscriptionGroup(ctx context.Context, group string) *body.SubscriptionGroupConfig
	// Handle routes broker-to-client requests with code c to h. Register
	// before the first Invoke.
	Handle(c int32, h BrokerRequestHandler)
	// Close releases connections.
	Close(ctx context.Context) error
}

// remotingBackend implements both modes: a remoting client plus the name
// server for routes; local mode dials its broker through a pipe.
type remotingBackend struct {
	rc    *remoting.Client
	adm   *admin.Admin
	lg    *zap.Logger
	local *broker.Broker // nil in cluster mode
	// direct carries local-mode sends to the broker without frames (nil in
	// cluster mode).
	direct *remoting.LocalConn
	pool   *remoting.Pool // runs broker-to-client requests

	cacheMu sync.Mutex // guards groups
	groups  groupCache
}

type groupCache struct {
	at   time.Time
	cfgs map[string]body.SubscriptionGroupConfig
}

// groupCacheTTL bounds how stale a cluster-mode subscription group config
// may be.
const groupCacheTTL = 10 * time.Second

// NewClusterBackend reaches brokers over TCP, found through the name
// servers namesrv. cliCfg may be nil (defaults).
func NewClusterBackend(namesrv []string, cliCfg *remoting.NettyClientConfig, lg *zap.Logger) (Backend, error) {
	if len(namesrv) == 0 {
		return nil, fmt.Errorf("proxy: cluster mode needs namesrvAddr")
	}
	return newRemotingBackend(namesrv, cliCfg, lg, nil), nil
}

// NewLocalBackend reaches b in-process: every request to b's address goes
// through a pipe served by b's own remoting server (Broker.ServeLocal);
// routes still come from b's name servers, as 5.x's local mode does.
func NewLocalBackend(b *broker.Broker, lg *zap.Logger) (Backend, error) {
	ns := splitAddrs(b.Config().NamesrvAddr)
	if len(ns) == 0 {
		return nil, fmt.Errorf("proxy: local mode needs the broker's namesrvAddr")
	}
	cli := remoting.NewNettyClientConfig()
	cli.UseTLS = false
	return newRemotingBackend(ns, cli, lg, b), nil
}

func newRemotingBackend(namesrv []string, cliCfg *remoting.NettyClientConfig, lg *zap.Logger, local *broker.Broker) *remotingBackend {
	if lg == nil {
		lg = zap.NewNop()
	}
	rc := remoting.NewClient(cliCfg, lg.Named("remoting"))
	be := &remotingBackend{
		rc:    rc,
		adm:   admin.New(rc, namesrv),
		lg:    lg,
		local: local,
		pool:  remoting.NewPool("proxyBrokerRequest", 4, 10000),
	}
	if local != nil {
		rc.SetDialer(be.dialLocal)
		be.direct = local.LocalConn(localPeerAddr)
	}
	// Brokers tell their consumers' channels when a group's members change;
	// gRPC clients learn it from QueryAssignment, so the proxy only notes it
	// (5.x's proxy client ignores it as well).
	be.Handle(code.NotifyConsumerIdsChanged, func(brokerAddr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		lg.Debug("consumer ids changed", zap.String("brokerAddr", brokerAddr), zap.String("consumerGroup", req.Ext("consumerGroup")))
		return nil, nil
	})
	return be
}

// pipeConn reports the broker's address as its remote address, so the
// broker-to-client handlers know which broker asked.
type pipeConn struct {
	net.Conn
	remote net.Addr
}

func (c pipeConn) RemoteAddr() net.Addr { return c.remote }

type strAddr string

func (a strAddr) Network() string { return "pipe" }
func (a strAddr) String() string  { return string(a) }

// clientChannelSep separates a broker address from a gRPC client id in the
// address of that client's own channel to its broker (local mode).
const clientChannelSep = "#"

// perClientBackend is implemented by backends that give each gRPC client
// its own channel to a broker, so that the broker registers and addresses
// each client under its own id (5.x's local mode).
type perClientBackend interface {
	// ClientChannelAddr is the address of clientID's own channel to the
	// broker at brokerAddr; "" when the backend has none.
	ClientChannelAddr(brokerAddr, clientID string) string
	// CloseClientChannel closes such a channel; the broker then drops the
	// client's registrations.
	CloseClientChannel(addr string)
}

func (be *remotingBackend) ClientChannelAddr(brokerAddr, clientID string) string {
	if be.local == nil || !be.isLocal(brokerAddr) {
		return ""
	}
	return brokerAddr + clientChannelSep + clientID
}

func (be *remotingBackend) CloseClientChannel(addr string) { be.rc.CloseChannel(addr) }

// splitClientChannel splits a ClientChannelAddr into broker address and
// client id ("" for a shared channel).
func splitClientChannel(addr string) (brokerAddr, clientID string) {
	b, id, _ := strings.Cut(addr, clientChannelSep)
	return b, id
}

// dialLocal connects the local broker through a pipe (also for a client's
// own channel); other addresses (nil, nil) are dialled over TCP.
func (be *remotingBackend) dialLocal(_ context.Context, addr string) (net.Conn, error) {
	if b, _ := splitClientChannel(addr); !be.isLocal(b) {
		return nil, nil
	}
	cli, srv := net.Pipe()
	if err := be.local.ServeLocal(pipeConn{Conn: srv, remote: strAddr(localPeerAddr)}); err != nil {
		_ = cli.Close()
		return nil, err
	}
	return pipeConn{Conn: cli, remote: strAddr(addr)}, nil
}

// localPeerAddr is the proxy's address as the local broker sees it.
const localPeerAddr = "127.0.0.1:0"

// directCodes are the requests local mode hands to the broker as commands
// (LocalConn): sends, which need no broker-to-client path and are the hot
// path. The rest use the pipe, which also carries the broker's requests.
func directCode(c int32) bool {
	return c == code.SendMessageV2 || c == code.SendMessage || c == code.SendBatchMessage
}

func (be *remotingBackend) isLocal(addr string) bool {
	if addr == be.local.BrokerAddr() {
		return true
	}
	a := be.local.Addr()
	return a != nil && a.String() == addr
}

// Invoke waits for the broker until ctx ends. ctx is usually a gRPC
// client's: its deadline or hang-up ends this call only, never the
// connection every client shares (a remoting deadline would close it, as
// Java's clientCloseSocketIfTimeout); only the proxy's own bound, for a
// ctx without deadline, counts as a broker timeout.
func (be *remotingBackend) Invoke(ctx context.Context, addr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	signFor(ctx, req)
	if be.direct != nil && directCode(req.Code) && be.isLocal(addr) {
		return be.invokeDirect(ctx, req)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, brokerCallBound)
		defer cancel()
		return be.rc.InvokeSync(ctx, addr, req)
	}
	call, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	return be.rc.InvokeSync(call, addr, req)
}

// invokeDirect is Invoke on the local broker without frames. A LocalConn
// call ending with ctx leaves the channel open, so ctx bounds it directly.
func (be *remotingBackend) invokeDirect(ctx context.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, brokerCallBound)
		defer cancel()
	}
	return be.direct.Invoke(ctx, req)
}

// brokerCallBound is how long Invoke waits for a broker when its caller
// set no deadline.
const brokerCallBound = 30 * time.Second

func (be *remotingBackend) InvokeAsync(ctx context.Context, addr string, req *codec.RemotingCommand, cb func(*codec.RemotingCommand, error)) error {
	signFor(ctx, req)
	return be.rc.InvokeAsync(ctx, addr, req, cb)
}

func (be *remotingBackend) InvokeOneway(ctx context.Context, addr string, req *codec.RemotingCommand) error {
	signFor(ctx, req)
	return be.rc.InvokeOneway(ctx, addr, req)
}

func (be *remotingBackend) TopicRoute(ctx context.Context, topic string) (*body.TopicRouteData, error) {
	return be.adm.TopicRoute(ctx, topic)
}

func (be *remotingBackend) MasterBrokers(ctx context.Context) (map[string]string, error) {
	if be.local != nil {
		return map[string]string{be.local.Config().BrokerName: be.local.BrokerAddr()}, nil
	}
	ci, err := be.adm.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ci.BrokerAddrTable))
	for name, bd := range ci.BrokerAddrTable {
		if addr := bd.BrokerAddrs[0]; addr != "" {
			out[name] = addr
		}
	}
	return out, nil
}

func (be *remotingBackend) SubscriptionGroup(ctx context.Context, group string) *body.SubscriptionGroupConfig {
	if be.local != nil {
		if cfg, ok := be.local.Subscriptions().FindSubscriptionGroupConfig(group); ok {
			return &cfg
		}
		return nil
	}
	be.cacheMu.Lock()
	c := be.groups
	be.cacheMu.Unlock()
	if c.cfgs == nil || time.Since(c.at) > groupCacheTTL {
		c = be.loadGroups(ctx)
	}
	if cfg, ok := c.cfgs[group]; ok {
		return &cfg
	}
	return nil
}

// loadGroups fetches every subscription group of one master (cluster
// mode). Only a table a broker answered is cached: when none could be
// asked the lookup finds nothing, and the next one asks again.
func (be *remotingBackend) loadGroups(ctx context.Context) groupCache {
	c := groupCache{at: time.Now(), cfgs: map[string]body.SubscriptionGroupConfig{}}
	masters, err := be.MasterBrokers(ctx)
	if err != nil {
		return c
	}
	answered := false
	for _, addr := range masters {
		w, err := be.subscriptionGroups(ctx, addr)
		if err != nil {
			continue
		}
		for name, cfg := range w.SubscriptionGroupTable {
			c.cfgs[name] = cfg
		}
		answered = true
		break
	}
	if !answered {
		return c
	}
	be.cacheMu.Lock()
	be.groups = c
	be.cacheMu.Unlock()
	return c
}

// subscriptionGroups fetches a broker's subscription group table, signed
// as ctx's account (an aclEnable=true broker refuses it unsigned).
func (be *remotingBackend) subscriptionGroups(ctx context.Context, addr string) (*body.SubscriptionGroupWrapper, error) {
	resp, err := be.Invoke(ctx, addr, codec.NewRequest(code.GetAllSubscriptiongroupConfig, nil, nil))
	if err != nil {
		return nil, err
	}
	if resp.Code != code.Success {
		return nil, fmt.Errorf("proxy: subscription groups of %s: code %d %s", addr, resp.Code, resp.Remark)
	}
	var w body.SubscriptionGroupWrapper
	if err := w.Decode(resp.Body); err != nil {
		return nil, fmt.Errorf("proxy: subscription groups of %s: %w", addr, err)
	}
	return &w, nil
}

func (be *remotingBackend) Handle(c int32, h BrokerRequestHandler) {
	be.rc.RegisterProcessor(c, remoting.ProcessorFunc(func(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		return h(ctx.Channel.RemoteAddr(), req)
	}), be.pool)
}

func (be *remotingBackend) Close(ctx context.Context) error {
	if be.direct != nil {
		_ = be.direct.Close()
	}
	err := be.rc.Shutdown(ctx)
	if perr := be.pool.Stop(ctx); err == nil {
		err = perr
	}
	return err
}
