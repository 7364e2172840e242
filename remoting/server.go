package remoting

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
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
//
// The server owns its listening socket and accepts on its own goroutine
// (acceptLoop); gnet runs only the event loops (a gnet.Client, which has
// loops and no listener) and each accepted connection is enrolled into
// them. Why not gnet's own listener: gnet v2.9.7's acceptors (the main
// reactor's accept0, or each event loop's accept under SO_REUSEPORT) turn
// every accept error except EAGAIN/EINTR/ECONNRESET/ECONNABORTED into
// ErrAcceptSocket, which the poller treats as fatal, so the first EMFILE
// shuts the whole engine down (listener and every open connection), and no
// option changes that. Engine.Register cannot be used instead: an engine
// without a listener fails Validate ("the internal engine is empty").
type Server struct {
	cfg *NettyServerConfig
	lg  *zap.Logger
	ep  *endpoint

	state   atomic.Int32
	closing atomic.Bool // set by Shutdown: OnOpen refuses new connections

	loops  *gnet.Client                    // the event loops; set by Start
	ln     net.Listener                    // owned listener, closed by Shutdown
	wrapLn func(net.Listener) net.Listener // tests: fault injection around ln
	given  net.Listener                    // set by UseListener: served instead of binding
	addr   net.Addr                        // bound address, set by Start

	acceptStop chan struct{}  // closed by Shutdown: ends the accept back-off
	acceptWG   sync.WaitGroup // the accept goroutine
	enrollMu   sync.Mutex     // serialises enroll (accept and sniff goroutines)
	spare      *os.File       // reserve descriptor, see enroll; guarded by enrollMu
	acceptLog  rateLog        // accept errors; accept goroutine only

	// TLS (tls_sniff.go, conn_std.go): with a mode other than disabled each
	// accepted connection is sniffed on its own goroutine; TLS ones are
	// served on the standard library.
	tlsMode     TLSMode
	tlsCfg      atomic.Pointer[tls.Config] // swapped by watchCerts
	connMu      sync.Mutex                 // guards conns, connsClosed
	conns       map[net.Conn]struct{}      // connections not (yet) on gnet
	connsClosed bool                       // set by Shutdown once conns were closed
	connWG      sync.WaitGroup             // sniff, TLS read and write goroutines
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
	s := &Server{
		cfg:        cfg,
		lg:         lg,
		ep:         newEndpoint(lg, cfg.MaxFrameLength, idle),
		acceptStop: make(chan struct{}),
		tlsMode:    cfg.TLS.Mode(),
		conns:      make(map[net.Conn]struct{}),
	}
	if s.tlsMode != TLSDisabled {
		tc, err := cfg.TLS.ServerTLS()
		if err != nil {
			return nil, err
		}
		s.tlsCfg.Store(tc)
	}
	return s, nil
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

// Start binds the listener, starts the event loops and the accept goroutine.
func (s *Server) Start() error {
	if !s.state.CompareAndSwap(stateNew, stateRunning) {
		return errors.New("remoting: server already started")
	}
	addr := s.cfg.ListenAddr
	if addr == "" {
		addr = ":" + strconv.Itoa(s.cfg.ListenPort)
	}
	ln, err := s.given, error(nil)
	if ln == nil {
		ln, err = s.listen(addr)
	}
	if err != nil {
		s.state.Store(stateStopped)
		return fmt.Errorf("remoting: listen %s: %w", addr, err)
	}
	s.ln, s.addr = ln, ln.Addr()
	if s.wrapLn != nil {
		s.ln = s.wrapLn(ln)
	}
	loops, err := gnet.NewClient(&gnetHandler{s: s}, s.gnetOptions()...)
	if err == nil {
		err = loops.Start()
	}
	if err != nil {
		s.state.Store(stateStopped)
		_ = ln.Close()
		return fmt.Errorf("remoting: start event loops: %w", err)
	}
	s.loops = loops
	s.reserveSpare()
	s.ep.startHousekeeping()
	s.acceptWG.Add(1)
	go func() {
		defer s.acceptWG.Done()
		s.acceptLoop()
	}()
	if w := s.newCertWatch(); w != nil {
		s.acceptWG.Add(1)
		go func() {
			defer s.acceptWG.Done()
			s.watchCerts(w)
		}()
	}
	s.lg.Info("remoting server started", zap.String("addr", s.addr.String()), zap.Stringer("tlsMode", s.tlsMode))
	return nil
}

// listen binds addr with Java's socket options: SO_REUSEADDR (Go's
// default), no TCP keepalive (Netty's default), SO_SNDBUF/SO_RCVBUF when
// configured (accepted sockets inherit them). TCP_NODELAY is Go's default on
// accepted connections.
func (s *Server) listen(addr string) (net.Listener, error) {
	snd, rcv := s.cfg.ServerSocketSndBufSize, s.cfg.ServerSocketRcvBufSize
	lc := net.ListenConfig{KeepAlive: -1, Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			if snd > 0 {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, snd)
			}
			if rcv > 0 && serr == nil {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcv)
			}
		})
		return errors.Join(err, serr)
	}}
	return lc.Listen(context.Background(), "tcp", addr)
}

func (s *Server) gnetOptions() []gnet.Option {
	// Socket options are set in listen; the event loops bind nothing and
	// take each connection on the least loaded loop.
	return []gnet.Option{
		gnet.WithNumEventLoop(s.cfg.EventLoops()),
		gnet.WithLogger(s.lg.Named("gnet").WithOptions(zap.IncreaseLevel(zap.WarnLevel)).Sugar()),
	}
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
	// Stop accepting first; the accept goroutine finishes the hand-over in
	// progress (the engine still runs) and exits.
	close(s.acceptStop)
	_ = s.ln.Close()
	acceptDone := true
	if err := waitGroupCtx(ctx, &s.acceptWG); err != nil {
		errs = append(errs, fmt.Errorf("remoting: stop accepting: %w", err))
		acceptDone = false
	}
	if err := s.ep.waitTasks(ctx); err != nil {
		errs = append(errs, fmt.Errorf("remoting: drain tasks: %w", err))
	}
	// Connections off gnet (sniffing, TLS) are closed here; their
	// goroutines end, and no enroll runs after them.
	s.closeStdConns()
	if err := waitGroupCtx(ctx, &s.connWG); err != nil {
		errs = append(errs, fmt.Errorf("remoting: close tls connections: %w", err))
	} else if acceptDone { // no enroll can run any more
		s.enrollMu.Lock()
		if s.spare != nil {
			_ = s.spare.Close()
			s.spare = nil
		}
		s.enrollMu.Unlock()
	}
	// Client.Stop closes every connection and returns once the loops ended.
	stopped := make(chan error, 1)
	go func() { stopped <- s.loops.Stop() }()
	select {
	case err := <-stopped:
		if err != nil {
			errs = append(errs, fmt.Errorf("remoting: stop event loops: %w", err))
		}
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("remoting: stop event loops: %w", ctx.Err()))
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

// Accept back-off, as net/http's Server.Serve: 5 ms doubling to 1 s.
const (
	acceptDelayMin = 5 * time.Millisecond
	acceptDelayMax = time.Second
	acceptLogEvery = time.Second // at most one accept-error line per interval
)

// acceptLoop accepts until Shutdown. No error ends it: after a failed
// accept (EMFILE, ENFILE, ENOBUFS…) or hand-over it waits acceptDelayMin,
// doubling up to acceptDelayMax, reset by the next success, and tries
// again. Meanwhile the event loops go on serving the open connections, and
// new ones wait in the kernel's accept backlog.
func (s *Server) acceptLoop() {
	var delay time.Duration
	for {
		c, err := s.ln.Accept()
		if err == nil && s.tlsMode != TLSDisabled {
			s.sniff(c)
			delay = 0
			continue
		}
		if err == nil {
			if err = s.enroll(c); err == nil {
				if delay > 0 {
					s.lg.Info("accept resumed", zap.String("addr", s.addr.String()))
				}
				delay = 0
				continue
			}
		}
		if s.closing.Load() {
			return
		}
		delay = nextAcceptDelay(delay)
		if ok, held := s.acceptLog.allow(time.Now(), acceptLogEvery); ok {
			s.lg.Error("accept failed, retrying", zap.String("addr", s.addr.String()), zap.Error(err),
				zap.Duration("retryIn", delay), zap.Int("suppressed", held))
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-s.acceptStop:
			t.Stop()
			return
		}
	}
}

// nextAcceptDelay doubles the back-off within [acceptDelayMin, acceptDelayMax].
func nextAcceptDelay(d time.Duration) time.Duration {
	return min(max(2*d, acceptDelayMin), acceptDelayMax)
}

// enroll hands c to the event loops and returns once one has opened it
// (OnOpen has run). gnet serves a duplicate of c's descriptor and closes c,
// so for a moment the connection holds two descriptors; the spare
// descriptor is given up for that moment, so that a connection accepted
// into the last free descriptor is not dropped for want of a second one.
func (s *Server) enroll(c net.Conn) error {
	s.enrollMu.Lock()
	defer s.enrollMu.Unlock()
	if s.spare != nil {
		_ = s.spare.Close()
		s.spare = nil
	}
	defer s.reserveSpare()
	if _, err := s.loops.Enroll(c); err != nil { // c is closed either way
		return fmt.Errorf("remoting: hand over connection: %w", err)
	}
	return nil
}

// sniff serves c on its own goroutine (sniffAndServe), or closes it when
// Shutdown has begun.
func (s *Server) sniff(c net.Conn) {
	if !s.track(c) {
		_ = c.Close()
		return
	}
	go func() {
		defer s.connWG.Done()
		s.sniffAndServe(c)
	}()
}

// reserveSpare keeps one descriptor in reserve for enroll; under EMFILE it
// stays empty until a descriptor is free again. Caller holds enrollMu or is
// Start.
func (s *Server) reserveSpare() {
	if s.spare == nil {
		if f, err := os.Open(os.DevNull); err == nil {
			s.spare = f
		}
	}
}

// rateLog lets one event through per interval and counts those held back.
// Used by one goroutine only.
type rateLog struct {
	last time.Time
	held int
}

// allow reports whether to log now and how many events were held back
// since the last one logged.
func (r *rateLog) allow(now time.Time, every time.Duration) (bool, int) {
	if !r.last.IsZero() && now.Sub(r.last) < every {
		r.held++
		return false, 0
	}
	held := r.held
	r.last, r.held = now, 0
	return true, held
}
