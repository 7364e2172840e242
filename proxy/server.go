package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting"
)

// ErrShutdown is returned by Start after Shutdown.
var ErrShutdown = errors.New("proxy: shut down")

// Server is the gRPC front end: one MessagingService on one listener.
type Server struct {
	cfg *Config
	be  Backend
	lg  *zap.Logger

	tlsCfg *remoting.TLSConfig // nil: plain only
	acl    ACL                 // nil: calls are not authenticated

	grpc *grpc.Server
	svc  *service
	ln   net.Listener
	addr net.Addr

	goMu     sync.Mutex     // orders goFunc's wg.Add before Shutdown's wg.Wait
	wg       sync.WaitGroup // background goroutines (serve, broker heartbeats)
	stopCh   chan struct{}  // closed by Shutdown: background loops end
	shutdown atomic.Bool
}

// New validates cfg and prepares a server on be; nothing listens yet.
func New(cfg *Config, be Backend, lg *zap.Logger) (*Server, error) {
	if cfg == nil {
		cfg = NewConfig()
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if be == nil {
		return nil, errors.New("proxy: nil backend")
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	s := &Server{cfg: cfg, be: be, lg: lg, stopCh: make(chan struct{})}
	if rb, ok := be.(*remotingBackend); ok && rb.local != nil && rb.local.ACL() != nil {
		s.acl = rb.local.ACL() // local mode checks its broker's own accounts
	}
	s.svc = newService(s)
	return s, nil
}

// SetTLS makes the listener follow the remoting tls.* settings (mode
// disabled, permissive or enforcing, certificates). Call before Start.
func (s *Server) SetTLS(c *remoting.TLSConfig) { s.tlsCfg = c }

// Start listens on grpcServerHost:grpcServerPort (port 0: ephemeral) and
// serves.
func (s *Server) Start() error {
	if s.shutdown.Load() {
		return ErrShutdown
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(s.cfg.GRPCServerHost, strconv.Itoa(s.cfg.GRPCServerPort)))
	if err != nil {
		return fmt.Errorf("proxy: listen: %w", err)
	}
	return s.Serve(ln)
}

// Serve serves on ln (Start's listener, or one a caller made).
func (s *Server) Serve(ln net.Listener) error {
	if mode := s.tlsCfg.Mode(); mode != remoting.TLSDisabled {
		tc, err := s.tlsCfg.ServerTLS()
		if err != nil {
			_ = ln.Close()
			return err
		}
		ln = newSniffListener(ln, mode, tc, s.lg)
	}
	s.ln, s.addr = ln, ln.Addr()
	s.grpc = grpc.NewServer(
		grpc.MaxRecvMsgSize(s.cfg.GRPCMaxInboundMessageSize),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0))),
		grpc.SharedWriteBuffer(true),
		grpc.ChainUnaryInterceptor(recoverUnary(s.lg), s.authUnary()),
		grpc.ChainStreamInterceptor(recoverStream(s.lg), s.authStream()),
	)
	apiv2.RegisterMessagingServiceServer(s.grpc, s.svc)
	s.svc.start()
	s.goFunc(func() {
		if err := s.grpc.Serve(ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			s.lg.Error("grpc serve ended", zap.Error(err))
		}
	})
	s.lg.Info("grpc proxy started", zap.Stringer("addr", s.addr), zap.String("proxyMode", s.cfg.Mode()))
	return nil
}

// Addr is the listening address, valid after Start.
func (s *Server) Addr() net.Addr { return s.addr }

// Config returns the server's configuration (do not modify).
func (s *Server) Config() *Config { return s.cfg }

// Shutdown stops accepting, lets running calls end within ctx (then cuts
// them), and stops the background loops. The backend is not closed.
// Idempotent.
func (s *Server) Shutdown(ctx context.Context) error {
	s.goMu.Lock()
	if s.shutdown.Swap(true) {
		s.goMu.Unlock()
		return nil
	}
	close(s.stopCh)
	s.goMu.Unlock()
	if s.grpc != nil {
		done := make(chan struct{})
		go func() { s.grpc.GracefulStop(); close(done) }()
		// grpcShutdownTimeSeconds bounds the graceful part, as 5.x's
		// awaitTermination before shutdownNow; ctx may end it sooner.
		var expire <-chan time.Time
		if d := time.Duration(s.cfg.GRPCShutdownTimeSeconds) * time.Second; d > 0 {
			t := time.NewTimer(d)
			defer t.Stop()
			expire = t.C
		}
		select {
		case <-done:
		case <-ctx.Done():
			s.grpc.Stop()
			<-done
		case <-expire:
			s.grpc.Stop()
			<-done
		}
	}
	if sl, ok := s.ln.(*sniffListener); ok {
		_ = sl.Close()
		sl.wait()
	}
	s.wg.Wait()
	return nil
}

// goFunc runs f as a background goroutine Shutdown waits for; false once
// shutdown began.
func (s *Server) goFunc(f func()) bool {
	s.goMu.Lock()
	defer s.goMu.Unlock()
	if s.shutdown.Load() {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
	return true
}

// tlsEnabled reports whether clients may connect with TLS.
func (s *Server) tlsEnabled() bool { return s.tlsCfg.Mode() != remoting.TLSDisabled }
