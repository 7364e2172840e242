package remoting

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/panjf2000/gnet/v2"
	"go.uber.org/zap"
)

// Server states.
const (
	stateNew int32 = iota
	stateRunning
	stateStopped
)

// Server is the remoting server (Java's NettyRemotingServer) on gnet event
// loops. See doc.go for the threading model.
type Server struct {
	cfg *NettyServerConfig
	lg  *zap.Logger
	ep  *endpoint

	state   atomic.Int32
	closing atomic.Bool // set by Shutdown: OnOpen refuses new connections

	eng    gnet.Engine   // set in OnBoot, read after booted
	addr   net.Addr      // bound address, set in OnBoot
	booted chan struct{} // closed by OnBoot
	runErr chan error    // gnet.Run's result
	runWG  sync.WaitGroup
}

// NewServer validates cfg; nothing is bound until Start.
func NewServer(cfg *NettyServerConfig, lg *zap.Logger) (*Server, error) {
	if cfg == nil {
		cfg = NewNettyServerConfig()
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	if cfg.ListenAddr == "" && (cfg.ListenPort < 0 || cfg.ListenPort > 65535) {
		return nil, fmt.Errorf("remoting: bad listenPort %d", cfg.ListenPort)
	}
	idle := time.Duration(cfg.ServerChannelMaxIdleTimeSeconds) * time.Second
	return &Server{
		cfg:    cfg,
		lg:     lg,
		ep:     newEndpoint(lg, cfg.MaxFrameLength, idle),
		booted: make(chan struct{}),
		runErr: make(chan error, 1),
	}, nil
}

// RegisterProcessor routes requests with code c to p, run on pool.
func (s *Server) RegisterProcessor(c int32, p Processor, pool *Pool) { s.ep.register(c, p, pool) }

// RegisterDefaultProcessor handles codes without their own processor.
func (s *Server) RegisterDefaultProcessor(p Processor, pool *Pool) { s.ep.registerDefault(p, pool) }

// SetChannelEventListener sets the receiver of connect/close/idle events.
func (s *Server) SetChannelEventListener(l ChannelEventListener) { s.ep.setListener(l) }

// Addr is the bound address; valid after Start.
func (s *Server) Addr() net.Addr { return s.addr }

// Channels returns the open connections.
func (s *Server) Channels() []*Channel { return s.ep.snapshotChannels() }

// Start binds the listener and starts the event loops.
func (s *Server) Start() error {
	if !s.state.CompareAndSwap(stateNew, stateRunning) {
		return errors.New("remoting: server already started")
	}
	addr := s.cfg.ListenAddr
	if addr == "" {
		addr = ":" + strconv.Itoa(s.cfg.ListenPort)
	}
	h := &gnetHandler{s: s}
	s.runWG.Add(1)
	go func() {
		defer s.runWG.Done()
		s.runErr <- gnet.Run(h, "tcp://"+addr, s.gnetOptions()...)
	}()
	select {
	case <-s.booted:
	case err := <-s.runErr:
		s.state.Store(stateStopped)
		if err == nil {
			err = errors.New("engine stopped during boot")
		}
		return fmt.Errorf("remoting: listen %s: %w", addr, err)
	}
	s.ep.startHousekeeping()
	s.lg.Info("remoting server started", zap.String("addr", s.addr.String()))
	return nil
}

func (s *Server) gnetOptions() []gnet.Option {
	loops := s.cfg.ServerSelectorThreads
	if loops <= 0 {
		loops = 1
	}
	opts := []gnet.Option{
		gnet.WithNumEventLoop(loops),
		gnet.WithReuseAddr(true),
		gnet.WithTCPNoDelay(gnet.TCPNoDelay),
		gnet.WithLogger(s.lg.Named("gnet").WithOptions(zap.IncreaseLevel(zap.WarnLevel)).Sugar()),
	}
	if s.cfg.ServerSocketSndBufSize > 0 {
		opts = append(opts, gnet.WithSocketSendBuffer(s.cfg.ServerSocketSndBufSize))
	}
	if s.cfg.ServerSocketRcvBufSize > 0 {
		opts = append(opts, gnet.WithSocketRecvBuffer(s.cfg.ServerSocketRcvBufSize))
	}
	return opts
}

// Shutdown stops accepting, waits within ctx for queued and running processor
// tasks, closes every connection, stops the event loops and releases the
// pools. It is idempotent.
func (s *Server) Shutdown(ctx context.Context) error {
	switch s.state.Swap(stateStopped) {
	case stateNew: // never started: only the pool references to give back
		return s.ep.stopHousekeeping(ctx)
	case stateStopped:
		return nil
	}
	s.closing.Store(true)
	var errs []error
	if err := s.ep.waitTasks(ctx); err != nil {
		errs = append(errs, fmt.Errorf("remoting: drain tasks: %w", err))
	}
	// Engine.Stop polls every 500 ms; trigger it with a done context instead
	// and wait for gnet.Run, which returns once the event loops are closed.
	triggered, cancel := context.WithCancel(ctx)
	cancel()
	_ = s.eng.Stop(triggered)
	if err := waitGroupCtx(ctx, &s.runWG); err != nil {
		errs = append(errs, fmt.Errorf("remoting: stop engine: %w", err))
	}
	if err := s.ep.stopHousekeeping(ctx); err != nil {
		errs = append(errs, err)
	}
	s.lg.Info("remoting server stopped", zap.String("addr", s.addr.String()))
	return errors.Join(errs...)
}

func waitGroupCtx(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// boundAddr reads the listener's address through a dup of its descriptor.
func boundAddr(eng gnet.Engine) (net.Addr, error) {
	fd, err := eng.Dup()
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return nil, err
	}
	switch a := sa.(type) {
	case *syscall.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]).To16(), Port: a.Port}, nil
	case *syscall.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}, nil
	}
	return nil, fmt.Errorf("remoting: unexpected listener address %T", sa)
}
