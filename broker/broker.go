package broker

// Broker lifecycle and wiring; mirrors Java's BrokerController
// (initialize / start / shutdown) of Apache RocketMQ 4.9.8.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/broker/client"
	"github.com/rocketmq-go/rmq/broker/filter"
	"github.com/rocketmq-go/rmq/broker/metrics"
	"github.com/rocketmq-go/rmq/broker/offset"
	"github.com/rocketmq-go/rmq/broker/outapi"
	"github.com/rocketmq-go/rmq/broker/stats"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/subscription"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/internal/configfile"
	imetrics "github.com/rocketmq-go/rmq/internal/metrics"
	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// processorFamilies are registered by each processor file's init(); New calls
// each once, after every manager exists and before anything starts. A family
// registers its codes with b.registerProcessor and may add services
// (b.addService), arrival listeners (b.OnArriving) and shutdown hooks
// (b.onShutdown).
var processorFamilies []func(b *Broker)

// Pools are the processor executors, one per Java executor of
// BrokerController.initialize, sized from BrokerConfig.
type Pools struct {
	Send           *remoting.Pool // sendMessageThreadPoolNums / sendThreadPoolQueueCapacity
	Put            *remoting.Pool // putMessageFutureThreadPoolNums / putThreadPoolQueueCapacity (store completions)
	Pull           *remoting.Pool // pullMessageThreadPoolNums / pullThreadPoolQueueCapacity
	Reply          *remoting.Pool // processReplyMessageThreadPoolNums / replyThreadPoolQueueCapacity
	Query          *remoting.Pool // queryMessageThreadPoolNums / queryThreadPoolQueueCapacity
	Admin          *remoting.Pool // adminBrokerThreadPoolNums (Java: unbounded queue)
	Client         *remoting.Pool // clientManageThreadPoolNums / clientManagerThreadPoolQueueCapacity
	Heartbeat      *remoting.Pool // heartbeatThreadPoolNums / heartbeatThreadPoolQueueCapacity
	ConsumerManage *remoting.Pool // consumerManageThreadPoolNums / consumerManagerThreadPoolQueueCapacity
	EndTransaction *remoting.Pool // endTransactionThreadPoolNums / endTransactionPoolQueueCapacity
}

// adminQueueCapacity stands in for the unbounded LinkedBlockingQueue Java
// gives the admin executor.
const adminQueueCapacity = 100000

func newPools(c *BrokerConfig) Pools {
	return Pools{
		Send:           remoting.NewPool("SendMessageThread", c.SendMessageThreadPoolNums, c.SendThreadPoolQueueCapacity),
		Put:            remoting.NewPool("PutMessageThread", c.PutMessageFutureThreadPoolNums, c.PutThreadPoolQueueCapacity),
		Pull:           remoting.NewPool("PullMessageThread", c.PullMessageThreadPoolNums, c.PullThreadPoolQueueCapacity),
		Reply:          remoting.NewPool("ProcessReplyMessageThread", c.ProcessReplyMessageThreadPoolNums, c.ReplyThreadPoolQueueCapacity),
		Query:          remoting.NewPool("QueryMessageThread", c.QueryMessageThreadPoolNums, c.QueryThreadPoolQueueCapacity),
		Admin:          remoting.NewPool("AdminBrokerThread", c.AdminBrokerThreadPoolNums, adminQueueCapacity),
		Client:         remoting.NewPool("ClientManageThread", c.ClientManageThreadPoolNums, c.ClientManagerThreadPoolQueueCapacity),
		Heartbeat:      remoting.NewPool("HeartbeatThread", c.HeartbeatThreadPoolNums, c.HeartbeatThreadPoolQueueCapacity),
		ConsumerManage: remoting.NewPool("ConsumerManageThread", c.ConsumerManageThreadPoolNums, c.ConsumerManagerThreadPoolQueueCapacity),
		EndTransaction: remoting.NewPool("EndTransactionThread", c.EndTransactionThreadPoolNums, c.EndTransactionPoolQueueCapacity),
	}
}

func (p *Pools) all() []*remoting.Pool {
	return []*remoting.Pool{p.Send, p.Put, p.Pull, p.Reply, p.Query, p.Admin, p.Client, p.Heartbeat, p.ConsumerManage, p.EndTransaction}
}

// Options are the optional parts of a Broker.
type Options struct {
	// ServerConfig is the main remoting server (listenPort 10911); nil → Java
	// defaults with listenPort 10911 as BrokerStartup sets it.
	ServerConfig *remoting.NettyServerConfig
	// ClientConfig is the client toward name servers and the master.
	ClientConfig *remoting.NettyClientConfig
	// FastListenAddr overrides the fast (VIP) server's bind address. Empty:
	// listenPort-2 on the main server's host, or an ephemeral port when the
	// main server's port is 0.
	FastListenAddr string
	// Logger; nil → zap.NewNop().
	Logger *zap.Logger
	// SerializeType is the header serialization of the requests the broker
	// starts toward clients and of the answers it writes afresh (Java's
	// RemotingCommand.serializeTypeConfigInThisServer). nil: the
	// ROCKETMQ_SERIALIZE_TYPE environment variable, JSON unless it says
	// ROCKETMQ.
	SerializeType *codec.SerializeType
	// StoreOptions are passed to store.Open after the broker's own (tests
	// inject clocks and disk-usage probes this way).
	StoreOptions []store.Option
	// ACLPlainFile is Java's system property rocketmq.acl.plain.file: the
	// default ACL file relative to rocketmqHome; empty: conf/plain_acl.yml.
	ACLPlainFile string
	// StatsSchedule overrides when the BrokerStatsManager is sampled and
	// its stats.log lines written (tests); nil: Java's (stats.JavaSchedule).
	StatsSchedule *stats.Schedule
}

// Broker is one running broker: managers, store, remoting servers and the
// housekeeping goroutines. Create with New, then Start; Shutdown stops it.
type Broker struct {
	cfg      atomic.Pointer[BrokerConfig]
	storeCfg *store.MessageStoreConfig
	srvCfg   *remoting.NettyServerConfig
	fastCfg  *remoting.NettyServerConfig
	cliCfg   *remoting.NettyClientConfig
	lg       *zap.Logger
	// serializeType is the serialization in force for commands the broker
	// creates (see Options.SerializeType); fixed at New.
	serializeType codec.SerializeType
	storeOpts     []store.Option // Options.StoreOptions, for initStore

	server     *remoting.Server // listenPort
	fastServer *remoting.Server // listenPort-2 (VIP channel; no pull)
	outAPI     *outapi.API      // name servers and master
	acl        *acl.Plain       // nil unless aclEnable

	store     store.MessageStore
	topics    *topic.Manager
	subs      *subscription.Manager
	offsets   *offset.Manager
	consumers *client.ConsumerManager
	producers *client.ProducerManager
	locks     *client.RebalanceLockManager
	filters   *filter.ConsumerFilterManager
	stats     *stats.Manager // BrokerStatsManager (admin_stats.go)
	// statsSchedule is Options.StatsSchedule or Java's; fixed at New.
	statsSchedule stats.Schedule

	exporter *imetrics.Exporter // metrics HTTP exporter (metrics_wiring.go)
	metrics  *metrics.Collector // nil unless metricsExporterType=PROM

	housekeeping *client.Housekeeping                     // channel events + expiry scan
	idsDefault   *client.DefaultConsumerIdsChangeListener // NOTIFY_CONSUMER_IDS_CHANGED sender

	// Pools are the processor executors (see Pools).
	Pools Pools
	// timedPools are the pools whose requests BrokerFastFailure may expire
	// (send, pull, heartbeat, end transaction): registerProcessor routes
	// their processors through a timedExecutor (see processor.go).
	timedPools map[*remoting.Pool]*timedPool
	// sendQueue is timedPools[Pools.Send].q (runtime info reads it).
	sendQueue *timedExecutor

	services      []*service.Service      // started by Start, stopped in Shutdown step 3
	shutdownHooks []func(context.Context) // run in Shutdown step 3, in reverse order
	arriving      []ArrivingListener      // fan-out of the store's MessageArrivingListener
	arrivingProps []func() bool           // whether some arriving listener reads the properties now
	idsListeners  []client.ListenerFunc   // extra consumer-ids-changed listeners (filter manager)

	// HA is the hook for broker/ha: set before Start (see HAService).
	HA HAService

	// masterServices are factories of the services that run only on a
	// master (schedule delivery, transaction check): see addMasterService.
	masterServices []func() *service.Service
	// ctl is the controller-mode state (role.go); nil outside it.
	ctl *controllerRole

	masterAddr   atomic.Pointer[string] // slave: learnt from registration or haMasterAddress
	haServerAddr atomic.Pointer[string] // slave: master's HA address learnt from registration

	registerMu   sync.Mutex    // serializes RegisterBrokerAll
	registerKick chan struct{} // buffered(1): asks the register loop to register now (oneway)

	goMu     sync.Mutex     // guards stopping and wg.Add
	stopping bool           // set once Shutdown began; goFunc refuses then
	wg       sync.WaitGroup // owned goroutines (goFunc)
	stopCh   chan struct{}  // closed when Shutdown begins; owned goroutines exit on it

	started  atomic.Bool
	shutdown atomic.Bool

	// storeHostCache is storeHost's parse of brokerIP1:listenPort (send.go).
	storeHostCache atomic.Pointer[storeHostEntry]
}

// ArrivingListener is the store's MessageArrivingListener: a message landed
// in topic/queueID at logic offset logicOffset (the long-poll service wakes
// waiting pulls).
type ArrivingListener func(topic string, queueID int32, logicOffset, tagsCode int64,
	msgStoreTime int64, filterBitMap []byte, properties map[string]string)

// HAService is what the broker needs from broker/ha (Java HAService): the
// HA engineer plugs an implementation into Broker.HA before Start.
type HAService interface {
	// Start binds the HA port (master) and starts replication.
	Start() error
	// Addr is the HA listen address (master); nil if not listening.
	Addr() net.Addr
	// UpdateMasterAddress points a slave at the master's HA address.
	UpdateMasterAddress(addr string)
	// Shutdown stops replication.
	Shutdown(ctx context.Context) error
}

// New validates the configuration, builds the managers, store and servers
// and registers every processor family; it starts nothing.
func New(cfg *BrokerConfig, storeCfg *store.MessageStoreConfig, opts Options) (*Broker, error) {
	if cfg == nil {
		cfg = NewBrokerConfig()
	}
	if storeCfg == nil {
		storeCfg = store.NewMessageStoreConfig()
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	lg := opts.Logger
	if lg == nil {
		lg = zap.NewNop()
	}
	for _, w := range cfg.Unimplemented() {
		lg.Warn("setting accepted but not implemented", zap.String("detail", w))
	}
	b := &Broker{storeCfg: storeCfg, lg: lg, stopCh: make(chan struct{}), registerKick: make(chan struct{}, 1),
		storeOpts: opts.StoreOptions, statsSchedule: stats.JavaSchedule()}
	if opts.StatsSchedule != nil {
		b.statsSchedule = *opts.StatsSchedule
	}
	b.cfg.Store(cfg.Clone())
	b.serializeType = ownSerializeType()
	if opts.SerializeType != nil {
		b.serializeType = *opts.SerializeType
	}
	if err := b.initConfigs(opts); err != nil {
		return nil, err
	}
	if err := b.initACL(opts); err != nil {
		return nil, err
	}
	if err := b.initManagers(); err != nil {
		return nil, err
	}
	if err := b.initStore(); err != nil {
		return nil, err
	}
	if err := b.initServers(); err != nil {
		_ = b.store.Shutdown(context.Background()) // releases the store lock
		return nil, err
	}
	for _, f := range processorFamilies {
		f(b)
	}
	if err := b.initMetrics(); err != nil { // after the families: it reads b.stats
		_ = b.store.Shutdown(context.Background())
		return nil, err
	}
	return b, nil
}

func (b *Broker) initConfigs(opts Options) error {
	b.srvCfg = opts.ServerConfig
	if b.srvCfg == nil {
		b.srvCfg = NewNettyServerConfig()
	}
	b.cliCfg = opts.ClientConfig
	if b.cliCfg == nil {
		b.cliCfg = remoting.NewNettyClientConfig()
	}
	fast := *b.srvCfg
	fast.ListenPort = b.srvCfg.ListenPort - 2
	switch {
	case opts.FastListenAddr != "":
		fast.ListenAddr = opts.FastListenAddr
	case b.srvCfg.ListenAddr == "" && fast.ListenPort <= 0:
		fast.ListenAddr = ":0" // listenPort 0 (or 1, 2): the fast server takes an ephemeral port too
	case b.srvCfg.ListenAddr != "":
		host, port, err := net.SplitHostPort(b.srvCfg.ListenAddr)
		if err != nil {
			return fmt.Errorf("broker: listen address %q: %w", b.srvCfg.ListenAddr, err)
		}
		p, _ := strconv.Atoi(port)
		if p > 0 {
			p -= 2
		}
		fast.ListenAddr = net.JoinHostPort(host, strconv.Itoa(p))
	}
	b.fastCfg = &fast
	return nil
}

// EventLoops is the number of gnet event loops a broker serving with srv
// runs: the main server's and the fast (VIP) server's, which copies srv.
func EventLoops(srv *remoting.NettyServerConfig) int { return 2 * srv.EventLoops() }

// NewNettyServerConfig is the broker's server configuration default: Java's
// NettyServerConfig with listenPort 10911, as BrokerStartup sets it.
func NewNettyServerConfig() *remoting.NettyServerConfig {
	c := remoting.NewNettyServerConfig()
	c.ListenPort = DefaultListenPort
	return c
}

// DefaultListenPort is the broker's listen port BrokerStartup sets (10911).
const DefaultListenPort = 10911

func (b *Broker) initManagers() error {
	cfg := b.Config()
	dir := b.storeCfg.ConfigDir()
	b.topics = topic.New(topic.Options{
		BrokerClusterName:     cfg.BrokerClusterName,
		BrokerName:            cfg.BrokerName,
		AutoCreateTopicEnable: cfg.AutoCreateTopicEnable,
		DefaultTopicQueueNums: int32(cfg.DefaultTopicQueueNums),
		ClusterTopicEnable:    cfg.ClusterTopicEnable,
		BrokerTopicEnable:     cfg.BrokerTopicEnable,
		TraceTopicEnable:      cfg.TraceTopicEnable,
		MsgTraceTopicName:     cfg.MsgTraceTopicName,
	}, filepath.Join(dir, "topics.json"), b.lg.Named("topic"))
	// Java calls registerBrokerAll(false, true, true) after auto-creating a
	// topic on send/send-back; the register loop does it off the caller's
	// goroutine.
	b.topics.SetChangeListener(b.kickRegister)
	b.subs = subscription.New(filepath.Join(dir, "subscriptionGroup.json"), cfg.AutoCreateSubscriptionGroup, b.lg.Named("subscription"))
	b.offsets = offset.New(filepath.Join(dir, "consumerOffset.json"), b.lg.Named("offset"))
	copts := client.Options{Logger: b.lg.Named("client")}
	b.filters = filter.NewConsumerFilterManager(b.lg.Named("filter"), nil)
	b.idsDefault = &client.DefaultConsumerIdsChangeListener{
		NotifyEnabled: func() bool { return b.Config().NotifyConsumerIdsChangedEnable },
		Filters:       b.filters,
		SerializeType: b.serializeType,
		Logger:        b.lg.Named("client"),
	}
	b.consumers = client.NewConsumerManager(client.ListenerFunc(b.onConsumerIdsChanged), copts)
	b.producers = client.NewProducerManager(copts)
	b.housekeeping = client.NewHousekeeping(b.producers, b.consumers, 0)
	b.locks = client.NewRebalanceLockManager(client.RebalanceLockMaxLiveTime, copts)
	var errs []error
	for _, load := range []func() error{b.topics.Load, b.subs.Load, b.offsets.Load, b.loadFilters} {
		errs = append(errs, load())
	}
	return errors.Join(errs...)
}

func (b *Broker) initServers() error {
	var err error
	if b.server, err = remoting.NewServer(b.srvCfg, b.lg.Named("remoting")); err != nil {
		return err
	}
	if b.fastServer, err = remoting.NewServer(b.fastCfg, b.lg.Named("remoting.fast")); err != nil {
		return err
	}
	b.Pools = newPools(b.Config())
	b.initTimedPools()
	b.outAPI = outapi.New(b.cliCfg, b.lg.Named("outapi"))
	b.server.SetChannelEventListener(b.housekeeping)
	b.fastServer.SetChannelEventListener(b.housekeeping)
	def := b.withACL(remoting.ProcessorFunc(b.processNotSupported))
	b.server.RegisterDefaultProcessor(def, b.Pools.Admin)
	b.fastServer.RegisterDefaultProcessor(def, b.Pools.Admin)
	return nil
}

// registerProcessor serves code on the main server and, when onFastPort, on
// the fast server too (Java registers everything there except PULL_MESSAGE
// and LITE_PULL_MESSAGE). Processors registered on Pools.Send, Pools.Pull,
// Pools.Heartbeat or Pools.EndTransaction run behind that pool's
// timedExecutor (BrokerFastFailure): the event loop only stamps and queues
// the request, the executor's workers (the pool's count) run the processor.
func (b *Broker) registerProcessor(code int32, p remoting.Processor, pool *remoting.Pool, onFastPort bool) {
	p = b.withACL(p) // checked where Java runs its RPC hooks: on the executor
	if tp := b.timedPools[pool]; tp != nil {
		p = b.timed(tp.q, p, tp.reject)
	}
	b.server.RegisterProcessor(code, p, pool)
	if onFastPort {
		b.fastServer.RegisterProcessor(code, p, pool)
	}
}

// addService adds a periodic service started by Start and stopped (in
// reverse order) by Shutdown before the managers persist.
func (b *Broker) addService(s *service.Service) { b.services = append(b.services, s) }

// onShutdown adds a hook run in Shutdown after the servers stopped and
// before the managers persist (reverse registration order).
func (b *Broker) onShutdown(f func(context.Context)) { b.shutdownHooks = append(b.shutdownHooks, f) }

// OnArriving adds a listener called for every message the store dispatches
// (the long-poll service). Register before Start. Its properties argument
// is nil unless a function registered with onArrivingProperties reports
// that they are needed.
func (b *Broker) OnArriving(l ArrivingListener) { b.arriving = append(b.arriving, l) }

// onArrivingProperties adds a test of whether the arriving listeners need
// the message properties at the moment (so the store builds them).
func (b *Broker) onArrivingProperties(wants func() bool) {
	b.arrivingProps = append(b.arrivingProps, wants)
}

// OnConsumerIdsChanged adds a listener for consumer-group events (REGISTER /
// UNREGISTER / CHANGE) besides the broker's own NOTIFY_CONSUMER_IDS_CHANGED
// sender. Register before Start.
func (b *Broker) OnConsumerIdsChanged(l client.ListenerFunc) {
	b.idsListeners = append(b.idsListeners, l)
}

// goFunc runs f on an owned goroutine that Shutdown waits for; it returns
// false (f not run) once shutdown has begun. f should return when StopCh is
// closed.
func (b *Broker) goFunc(f func()) bool {
	b.goMu.Lock()
	defer b.goMu.Unlock()
	if b.stopping {
		return false
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		f()
	}()
	return true
}

// StopCh is closed when Shutdown begins.
func (b *Broker) StopCh() <-chan struct{} { return b.stopCh }

// Start binds the servers, starts the store, services, HA and the
// name-server registration (Java BrokerController.start).
func (b *Broker) Start() error {
	if !b.started.CompareAndSwap(false, true) {
		return errors.New("broker: already started")
	}
	if err := b.store.Start(); err != nil {
		return fmt.Errorf("broker: start store: %w", err)
	}
	b.topics.StartPersister()
	b.subs.StartPersister()
	if b.acl != nil {
		b.acl.Start() // the ACL file watcher
	}
	if err := b.server.Start(); err != nil {
		return fmt.Errorf("broker: start server: %w", err)
	}
	if err := b.fastServer.Start(); err != nil {
		return fmt.Errorf("broker: start fast server: %w", err)
	}
	if err := b.startMetrics(); err != nil {
		return fmt.Errorf("broker: start metrics exporter: %w", err)
	}
	addr := b.BrokerAddr()
	if b.HA != nil {
		if err := b.HA.Start(); err != nil {
			return fmt.Errorf("broker: start ha: %w", err)
		}
	}
	b.startRoleSpecific()
	for _, s := range b.services {
		s.Start()
	}
	b.startHousekeeping()
	for _, tp := range b.timedPools {
		b.startTimedExecutor(tp.q, tp.workers)
	}
	b.startFastFailure()
	if err := b.startController(); err != nil {
		return err
	}
	b.startRegistration()
	b.lg.Info("broker started", zap.String("brokerName", b.Config().BrokerName),
		zap.String("brokerAddr", addr), zap.String("fastAddr", b.fastServer.Addr().String()),
		zap.String("brokerRole", string(b.storeCfg.BrokerRole)))
	return nil
}

// Shutdown stops the broker in reverse start order (STYLE §4): unregister,
// stop the servers (draining in-flight requests), stop services and
// goroutines, persist the managers, close the store. Idempotent.
func (b *Broker) Shutdown(ctx context.Context) error {
	if !b.shutdown.CompareAndSwap(false, true) {
		return nil
	}
	var errs []error
	if b.started.Load() {
		b.unregisterAll(ctx)
	}
	if b.started.Load() {
		errs = append(errs, b.server.Shutdown(ctx), b.fastServer.Shutdown(ctx), b.stopMetrics(ctx))
	}
	if b.acl != nil {
		errs = append(errs, b.acl.Shutdown(ctx))
	}
	b.goMu.Lock()
	b.stopping = true
	close(b.stopCh)
	b.goMu.Unlock()
	for _, p := range b.Pools.all() {
		errs = append(errs, p.Stop(ctx))
	}
	for i := len(b.services) - 1; i >= 0; i-- {
		errs = append(errs, b.services[i].Stop(ctx))
	}
	if b.started.Load() {
		errs = append(errs, b.housekeeping.Stop(ctx))
	}
	for i := len(b.shutdownHooks) - 1; i >= 0; i-- {
		b.shutdownHooks[i](ctx)
	}
	errs = append(errs, waitCtx(ctx, &b.wg))
	if b.HA != nil && b.started.Load() {
		errs = append(errs, b.HA.Shutdown(ctx))
	}
	errs = append(errs, b.outAPI.Shutdown(ctx))
	b.topics.StopPersister()
	b.subs.StopPersister()
	errs = append(errs, b.persistAll()...)
	errs = append(errs, b.store.Shutdown(ctx))
	_ = b.lg.Sync()
	return errors.Join(errs...)
}

func (b *Broker) persistAll() []error {
	return []error{b.topics.Persist(), b.subs.Persist(), b.offsets.Persist(), b.persistFilters()}
}

// filterPath is <root>/config/consumerFilter.json.
func (b *Broker) filterPath() string {
	return filepath.Join(b.storeCfg.ConfigDir(), "consumerFilter.json")
}

func (b *Broker) loadFilters() error {
	_, err := configfile.Load(b.filterPath(), b.filters.Decode)
	return err
}

func (b *Broker) persistFilters() error {
	return configfile.Persist(b.filterPath(), b.filters.Encode())
}

func waitCtx(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("broker: goroutines still running: %w", ctx.Err())
	}
}

// Config returns the live broker configuration snapshot; do not modify it.
func (b *Broker) Config() *BrokerConfig { return b.cfg.Load() }

// SetConfig swaps in a validated copy (UPDATE_BROKER_CONFIG).
func (b *Broker) SetConfig(c *BrokerConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	b.cfg.Store(c.Clone())
	b.topics.SetAutoCreateTopicEnable(c.AutoCreateTopicEnable)
	b.subs.SetAutoCreateSubscriptionGroup(c.AutoCreateSubscriptionGroup)
	return nil
}

// SerializeType is the header serialization of the requests the broker
// starts toward clients (Options.SerializeType).
func (b *Broker) SerializeType() codec.SerializeType { return b.serializeType }

// StoreConfig returns the message store configuration.
func (b *Broker) StoreConfig() *store.MessageStoreConfig { return b.storeCfg }

// ServerConfig returns the main server's configuration.
func (b *Broker) ServerConfig() *remoting.NettyServerConfig { return b.srvCfg }

// ClientConfig returns the remoting client configuration.
func (b *Broker) ClientConfig() *remoting.NettyClientConfig { return b.cliCfg }

// Store returns the message store.
func (b *Broker) Store() store.MessageStore { return b.store }

// Topics returns the topic config manager.
func (b *Broker) Topics() *topic.Manager { return b.topics }

// Subscriptions returns the subscription group manager.
func (b *Broker) Subscriptions() *subscription.Manager { return b.subs }

// Offsets returns the consumer offset manager.
func (b *Broker) Offsets() *offset.Manager { return b.offsets }

// Consumers returns the consumer manager.
func (b *Broker) Consumers() *client.ConsumerManager { return b.consumers }

// Producers returns the producer manager.
func (b *Broker) Producers() *client.ProducerManager { return b.producers }

// Locks returns the rebalance lock manager.
func (b *Broker) Locks() *client.RebalanceLockManager { return b.locks }

// Filters returns the consumer filter manager (SQL92 subscriptions).
func (b *Broker) Filters() *filter.ConsumerFilterManager { return b.filters }

// OuterAPI returns the client toward name servers and the master.
func (b *Broker) OuterAPI() *outapi.API { return b.outAPI }

// Logger returns the broker's logger.
func (b *Broker) Logger() *zap.Logger { return b.lg }

// Role returns the live brokerRole (ASYNC_MASTER, SYNC_MASTER or SLAVE):
// the configured one, changed at runtime in controller mode.
func (b *Broker) Role() store.BrokerRole { return b.store.BrokerRole() }

// IsSlave reports whether the broker runs as a slave now.
func (b *Broker) IsSlave() bool { return b.Role() == store.Slave }

// Addr is the main server's bound address (valid after Start).
func (b *Broker) Addr() net.Addr { return b.server.Addr() }

// FastAddr is the fast (VIP) server's bound address (valid after Start).
func (b *Broker) FastAddr() net.Addr { return b.fastServer.Addr() }

// ListenPort is the main server's bound port (the configured one before Start).
func (b *Broker) ListenPort() int {
	if b.started.Load() {
		if a, ok := b.server.Addr().(*net.TCPAddr); ok {
			return a.Port
		}
	}
	return b.srvCfg.ListenPort
}

// BrokerAddr is brokerIP1:listenPort, the address registered with the name
// servers (the bound port once started). Like Java's getBrokerAddr it is
// computed at each call, so an updated brokerIP1 is registered from then on.
func (b *Broker) BrokerAddr() string {
	return b.Config().BrokerIP1 + ":" + strconv.Itoa(b.ListenPort())
}

// HAServerAddr is brokerIP2:haListenPort (the HA service's bound port once
// it listens).
func (b *Broker) HAServerAddr() string {
	port := b.storeCfg.HAListenPort
	if b.HA != nil {
		if a, ok := b.HA.Addr().(*net.TCPAddr); ok && a != nil {
			port = a.Port
		}
	}
	return b.Config().BrokerIP2 + ":" + strconv.Itoa(port)
}

// MasterAddr is the master's address a slave learnt ("" on a master or
// before the first registration).
func (b *Broker) MasterAddr() string {
	if p := b.masterAddr.Load(); p != nil {
		return *p
	}
	return ""
}

// SetMasterAddr records the master's address (registration answer or
// haMasterAddress).
func (b *Broker) SetMasterAddr(addr string) { b.masterAddr.Store(&addr) }

func (b *Broker) sleepOrStop(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-b.stopCh:
		return false
	}
}

// initStore opens the message store (Java: DefaultMessageStore + load), with
// the arriving-message fan-out as its MessageArrivingListener; the fan-out
// reads longPollingEnable per message, as Java's ReputMessageService does,
// so UPDATE_BROKER_CONFIG turns it on and off live.
func (b *Broker) initStore() error {
	opts := []store.Option{store.WithBrokerID(b.Config().BrokerID), store.WithMessageArrivingListener(arrivingFanout{b})}
	opts = append(opts, b.storeOpts...)
	s, err := store.Open(b.storeCfg, b.lg, opts...)
	if err != nil {
		return fmt.Errorf("broker: open store: %w", err)
	}
	b.store = s
	return nil
}

// arrivingFanout passes each dispatched message to every OnArriving
// listener while longPollingEnable is set.
type arrivingFanout struct{ b *Broker }

func (f arrivingFanout) Arriving(topic string, queueID int32, logicOffset, tagsCode, msgStoreTime int64,
	filterBitMap []byte, properties map[string]string) {
	if !f.b.Config().LongPollingEnable {
		return
	}
	for _, l := range f.b.arriving {
		l(topic, queueID, logicOffset, tagsCode, msgStoreTime, filterBitMap, properties)
	}
}

// WantsArrivingProperties implements store.ArrivingPropertiesWanter.
func (f arrivingFanout) WantsArrivingProperties() bool {
	if !f.b.Config().LongPollingEnable {
		return false
	}
	for _, wants := range f.b.arrivingProps {
		if wants() {
			return true
		}
	}
	return false
}

// startRoleSpecific is the role-dependent part of Java's initialize/start:
// a slave with haMasterAddress set points HA there at once (otherwise the
// address comes from registration answers).
func (b *Broker) startRoleSpecific() {
	if b.IsSlave() && b.HA != nil && len(b.storeCfg.HAMasterAddress) >= 6 {
		b.HA.UpdateMasterAddress(b.storeCfg.HAMasterAddress)
	}
}

// startHousekeeping starts Java's periodic broker tasks that belong to the
// core: client channel expiry (ClientHousekeepingService, every 10 s) and
// consumer offset persistence (every flushConsumerOffsetInterval after 10 s).
func (b *Broker) startHousekeeping() {
	b.housekeeping.Start()
	b.goFunc(func() {
		if !b.sleepOrStop(10 * time.Second) {
			return
		}
		for {
			if err := b.offsets.Persist(); err != nil {
				b.lg.Error("persist consumer offsets", zap.Error(err))
			}
			if !b.sleepOrStop(time.Duration(b.Config().FlushConsumerOffsetInterval) * time.Millisecond) {
				return
			}
		}
	})
	b.goFunc(func() { // consumerFilterManager.persist every 10 s, dropping long-dead data
		for b.sleepOrStop(10 * time.Second) {
			b.filters.Clean(time.Duration(b.Config().FilterDataCleanTimeSpan) * time.Millisecond)
			if err := b.persistFilters(); err != nil {
				b.lg.Error("persist consumer filters", zap.Error(err))
			}
		}
	})
}

// onConsumerIdsChanged is the ConsumerManager's listener: Java's
// DefaultConsumerIdsChangeListener, then every extra listener.
func (b *Broker) onConsumerIdsChanged(ev client.ConsumerGroupEvent, group string, chs []client.Channel, subs []body.SubscriptionData) {
	b.idsDefault.Handle(ev, group, chs, subs)
	for _, l := range b.idsListeners {
		l(ev, group, chs, subs)
	}
}

// processNotSupported is the default processor: Java's AdminBrokerProcessor
// answer for an unknown code.
func (b *Broker) processNotSupported(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	remark := " request type " + strconv.Itoa(int(req.Code)) + " not supported"
	return codec.NewResponse(code.RequestCodeNotSupported, remark), nil
}
