package controller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"go.etcd.io/bbolt"
	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting"
)

// Lifecycle states.
const (
	stateNew int32 = iota
	stateRunning
	stateStopped
)

// raftApplyTimeout bounds one replicated write (5.x waits 5 s for DLedger).
const raftApplyTimeout = 5 * time.Second

// Controller is one controller node (5.x ControllerManager +
// DLedgerController): the Raft-replicated ReplicasInfoManager, the request
// API on this peer's address, broker heartbeats, the inactive-master scan
// and role-change notifications. See doc.go.
type Controller struct {
	cfg   *Config                // as started; never changed (static settings)
	live  atomic.Pointer[Config] // current settings, swapped by UpdateConfig
	cfgMu sync.Mutex             // serialises UpdateConfig (held across its persist)
	lg    *zap.Logger
	self  Peer
	peers []Peer

	fsm    *FSM
	hb     *HeartbeatManager
	policy ElectPolicy

	mux       *mux
	server    *remoting.Server
	client    *remoting.Client // NOTIFY_BROKER_ROLE_CHANGED to brokers
	transport *raft.NetworkTransport
	store     *raftboltdb.BoltStore
	raft      *raft.Raft

	state       atomic.Int32
	leaderReady atomic.Bool // leader and its FSM caught up (Barrier done)

	reqCh  chan *request  // request path → scheduler goroutine
	stopCh chan struct{}  // closed by Shutdown: stops every loop
	goMu   sync.Mutex     // guards goStop, with wg.Add
	goStop bool           // no more goroutines once Shutdown began
	wg     sync.WaitGroup // every goroutine this controller started
}

// New validates cfg and allocates; nothing is bound or started until Start.
func New(cfg *Config, lg *zap.Logger) (*Controller, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	peers, _ := ParsePeers(cfg.ControllerDLegerPeers)
	c := &Controller{cfg: cfg, lg: lg, peers: peers, self: *selfPeer(peers, cfg.ControllerDLegerSelfId),
		fsm: NewFSM(lg.Named("fsm")), hb: NewHeartbeatManager(nil),
		reqCh: make(chan *request, 1024), stopCh: make(chan struct{})}
	c.policy = ElectPolicy{Alive: c.hb.IsActive, LiveInfo: c.hb.LiveInfo}
	c.live.Store(cfg)
	if cfg.MappedFileSize != defaultMappedFileSize {
		// Accepted for Java's files, but there is no DLedger entry file to size.
		lg.Warn("mappedFileSize is not used: the raft log is a BoltDB file", zap.Int("mappedFileSize", cfg.MappedFileSize))
	}
	return c, nil
}

// Start binds this peer's address, starts Raft (bootstrapping the
// configured peers on first start), the request API and the loops.
func (c *Controller) Start() error {
	if !c.state.CompareAndSwap(stateNew, stateRunning) {
		return errors.New("controller: already started")
	}
	if err := c.start(); err != nil {
		c.state.Store(stateStopped)
		c.release()
		return err
	}
	c.goFunc(c.schedule)
	c.goFunc(c.watchLeadership)
	c.goFunc(c.scanLoop)
	c.lg.Info("controller started", zap.String("selfId", c.self.ID), zap.String("addr", c.Addr().String()),
		zap.String("group", c.cfg.ControllerDLegerGroup), zap.String("peers", c.cfg.ControllerDLegerPeers))
	return nil
}

func (c *Controller) start() error {
	ln := c.cfg.Listener
	if ln == nil {
		_, port, _ := net.SplitHostPort(c.self.Addr)
		var err error
		// Like DLedger's Netty server: every interface, the peer's port.
		if ln, err = net.Listen("tcp", ":"+port); err != nil {
			return fmt.Errorf("controller: listen %s: %w", c.self.Addr, err)
		}
	}
	c.mux = newMux(ln, c.lg.Named("mux"))
	c.mux.start()
	if err := c.startRaft(); err != nil {
		return err
	}
	return c.startServer()
}

func (c *Controller) startRaft() error {
	dir := filepath.Join(c.cfg.StorePath(), c.self.ID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("controller: store path: %w", err)
	}
	hlg := newHCLog(c.lg.Named("raft"))
	store, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, "raft.db"),
		BoltOptions: &bbolt.Options{Timeout: time.Second}})
	if err != nil {
		return fmt.Errorf("controller: open raft log %s: %w", dir, err)
	}
	c.store = store
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, hlg)
	if err != nil {
		return fmt.Errorf("controller: snapshot store: %w", err)
	}
	advertise, err := net.ResolveTCPAddr("tcp", c.self.Addr)
	if err != nil {
		return fmt.Errorf("controller: self address: %w", err)
	}
	c.transport = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: c.mux.streamLayer(advertise), MaxPool: 3, Timeout: 10 * time.Second, Logger: hlg})
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(c.self.ID)
	rc.Logger = hlg
	if c.cfg.RaftHeartbeatTimeout > 0 {
		rc.HeartbeatTimeout = c.cfg.RaftHeartbeatTimeout
	}
	if c.cfg.RaftElectionTimeout > 0 {
		rc.ElectionTimeout = c.cfg.RaftElectionTimeout
	}
	if c.cfg.RaftLeaderLeaseTimeout > 0 {
		rc.LeaderLeaseTimeout = c.cfg.RaftLeaderLeaseTimeout
	}
	if c.cfg.RaftTrailingLogs > 0 {
		rc.TrailingLogs = c.cfg.RaftTrailingLogs
	}
	existing, err := raft.HasExistingState(store, store, snaps)
	if err != nil {
		return fmt.Errorf("controller: read raft state: %w", err)
	}
	if !existing {
		// Every node bootstraps the same configuration from the peers key;
		// hashicorp/raft accepts identical bootstraps.
		var conf raft.Configuration
		for _, p := range c.peers {
			conf.Servers = append(conf.Servers, raft.Server{ID: raft.ServerID(p.ID), Address: raft.ServerAddress(p.Addr)})
		}
		if err := raft.BootstrapCluster(rc, store, store, snaps, c.transport, conf); err != nil {
			return fmt.Errorf("controller: bootstrap raft: %w", err)
		}
	}
	r, err := raft.NewRaft(rc, c.fsm, store, store, snaps, c.transport)
	if err != nil {
		return fmt.Errorf("controller: start raft: %w", err)
	}
	c.raft = r
	return nil
}

func (c *Controller) startServer() error {
	netty := remoting.NewNettyServerConfig()
	srv, err := remoting.NewServer(netty, c.lg.Named("remoting"))
	if err != nil {
		return err
	}
	c.server = srv
	c.client = remoting.NewClient(nil, c.lg.Named("notify"))
	c.registerProcessors()
	srv.SetChannelEventListener(channelListener{c})
	srv.UseListener(c.mux.remotingListener())
	return srv.Start()
}

// Addr is the address the controller listens on (nil before Start).
func (c *Controller) Addr() net.Addr {
	if c.mux == nil {
		return nil
	}
	return c.mux.ln.Addr()
}

// SelfID is this node's controllerDLegerSelfId.
func (c *Controller) SelfID() string { return c.self.ID }

// IsLeader reports whether this node leads and serves requests: never once
// Shutdown began (the watcher may still mark it ready after that).
func (c *Controller) IsLeader() bool {
	return c.state.Load() == stateRunning && c.leaderReady.Load()
}

// Leader returns the current leader's id and address ("" when unknown).
func (c *Controller) Leader() (id, addr string) {
	if c.raft == nil {
		return "", ""
	}
	a, i := c.raft.LeaderWithID()
	return string(i), string(a)
}

// FSM exposes the replicated state for reading (tests, admin).
func (c *Controller) FSM() *FSM { return c.fsm }

// Snapshot makes Raft snapshot the state now and compact its log (down to
// the trailing entries).
func (c *Controller) Snapshot() error {
	if c.raft == nil {
		return errors.New("controller: not started")
	}
	return c.raft.Snapshot().Error()
}

// Heartbeats exposes the liveness table.
func (c *Controller) Heartbeats() *HeartbeatManager { return c.hb }

// Shutdown stops the API, Raft and the loops, in reverse start order. It is
// idempotent.
func (c *Controller) Shutdown(ctx context.Context) error {
	if c.state.Swap(stateStopped) != stateRunning {
		return nil
	}
	c.leaderReady.Store(false)
	c.goMu.Lock()
	c.goStop = true
	close(c.stopCh)
	c.goMu.Unlock()
	var errs []error
	if c.server != nil {
		errs = append(errs, c.server.Shutdown(ctx))
	}
	// Stopping Raft first ends a scheduler or leadership-watcher wait to
	// enqueue an entry; a wait for its commit ends with stopCh (await).
	if c.raft != nil {
		errs = append(errs, c.raft.Shutdown().Error())
	}
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		errs = append(errs, ctx.Err())
	}
	errs = append(errs, c.release())
	c.lg.Info("controller stopped", zap.String("selfId", c.self.ID))
	return errors.Join(errs...)
}

// release stops Raft and closes the transport, the mux, the client and the
// store (whatever was started).
func (c *Controller) release() error {
	var errs []error
	if c.raft != nil {
		errs = append(errs, c.raft.Shutdown().Error()) // a no-op when already shut down
	}
	if c.transport != nil {
		errs = append(errs, c.transport.Close())
	}
	if c.mux != nil {
		c.mux.close()
	}
	if c.client != nil {
		errs = append(errs, c.client.Shutdown(context.Background()))
	}
	if c.store != nil {
		errs = append(errs, c.store.Close())
	}
	return errors.Join(errs...)
}

// goFunc runs f on a goroutine Shutdown waits for; false once it began.
func (c *Controller) goFunc(f func()) bool {
	c.goMu.Lock()
	defer c.goMu.Unlock()
	if c.goStop {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
	return true
}

// watchLeadership serves requests only once this node leads and its state
// machine has applied everything committed before (Barrier).
func (c *Controller) watchLeadership() {
	for {
		select {
		case <-c.stopCh:
			return
		case leader := <-c.raft.LeaderCh():
			if !leader {
				c.leaderReady.Store(false)
				c.lg.Info("controller lost leadership", zap.String("selfId", c.self.ID))
				continue
			}
			if err := c.await(c.raft.Barrier(raftApplyTimeout)); err != nil {
				c.lg.Warn("leader barrier failed", zap.Error(err))
				continue
			}
			c.leaderReady.Store(c.raft.State() == raft.Leader)
			c.lg.Info("controller became leader", zap.String("selfId", c.self.ID))
		}
	}
}

// await returns f's outcome, or raft.ErrRaftShutdown as soon as Shutdown
// begins. hashicorp/raft does not answer every future when it stops: a
// committed batch already queued for its FSM goroutine is dropped if that
// goroutine sees the shutdown first, and Error then never returns. So the
// wait runs on a helper goroutine, which the caller leaves behind at stop;
// it ends with the future, or (the dropped case) stays parked on it: at most
// one per loop that was waiting, and only on a stopped controller.
func (c *Controller) await(f raft.Future) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case err := <-done:
		return err
	case <-c.stopCh:
		return raft.ErrRaftShutdown
	}
}

// hcWriter adapts hashicorp's hclog to zap: each raft line becomes one
// entry "raft" with the line in field "line", at the line's level.
type hcWriter struct{ lg *zap.Logger }

func (w hcWriter) Write(p []byte) (int, error) {
	s := strings.TrimSpace(string(p))
	level, rest, _ := strings.Cut(s, "]")
	line := zap.String("line", strings.TrimSpace(rest))
	switch strings.TrimPrefix(level, "[") {
	case "ERROR":
		w.lg.Error("raft", line)
	case "WARN":
		w.lg.Warn("raft", line)
	case "DEBUG", "TRACE":
		w.lg.Debug("raft", line)
	default:
		w.lg.Info("raft", line)
	}
	return len(p), nil
}

func newHCLog(lg *zap.Logger) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Info, Output: io.Writer(hcWriter{lg}),
		DisableTime: true})
}
