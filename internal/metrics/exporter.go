package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
)

// Path is where the exporter serves the metrics (as 5.x's PrometheusHttpServer).
const Path = "/metrics"

// Exporter serves a registry over HTTP when metricsExporterType is PROM.
// It owns one goroutine (the HTTP server) between Start and Shutdown.
type Exporter struct {
	cfg  ExporterConfig
	host string // bind host: metricsPromExporterHost, else the default given to New
	lg   *zap.Logger
	reg  *prometheus.Registry

	mu   sync.Mutex    // guards srv and addr
	srv  *http.Server  // nil unless serving
	addr net.Addr      // bound address, set by Start
	done chan struct{} // closed when the serve goroutine returned

	started  atomic.Bool
	shutdown atomic.Bool
}

// NewExporter validates cfg and builds the registry (with the Go runtime
// and process collectors); it binds nothing. defaultHost is the bind host
// when metricsPromExporterHost is empty (5.x: brokerIP1).
func NewExporter(cfg ExporterConfig, defaultHost string, lg *zap.Logger) (*Exporter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	host := cfg.MetricsPromExporterHost
	if host == "" {
		host = defaultHost
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &Exporter{cfg: cfg, host: host, lg: lg, reg: reg}, nil
}

// Enabled reports whether metrics are exported (metricsExporterType=PROM).
// Callers skip their collectors and observers otherwise.
func (e *Exporter) Enabled() bool { return e.cfg.ExporterType() == ExporterProm }

// Registry is where callers register their collectors before Start.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// Start binds metricsPromExporterHost:metricsPromExporterPort and serves
// /metrics. With another exporter type it opens nothing; OTLP_GRPC and LOG
// are logged as not implemented.
func (e *Exporter) Start() error {
	if !e.started.CompareAndSwap(false, true) {
		return errors.New("metrics: exporter already started")
	}
	switch t := e.cfg.ExporterType(); t {
	case ExporterProm:
	case ExporterOTLPGRPC, ExporterLog:
		e.lg.Warn("metrics exporter type not implemented, no metrics exported",
			zap.String("metricsExporterType", t))
		return nil
	default:
		return nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(e.host, strconv.Itoa(e.cfg.MetricsPromExporterPort)))
	if err != nil {
		return fmt.Errorf("metrics: listen: %w", err)
	}
	mux := http.NewServeMux()
	// ContinueOnError: a collector failing (a duplicate series, say) costs
	// its own metrics, not the whole scrape.
	mux.Handle(Path, promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{ErrorLog: zapErrorLog{e.lg},
		ErrorHandling: promhttp.ContinueOnError}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	e.mu.Lock()
	e.srv, e.addr, e.done = srv, ln.Addr(), make(chan struct{})
	done := e.done
	e.mu.Unlock()
	go func() { // owned by the exporter: Shutdown waits on done
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			e.lg.Error("metrics exporter stopped", zap.Error(err))
		}
	}()
	e.lg.Info("metrics exporter started", zap.String("addr", ln.Addr().String()))
	return nil
}

// Addr is the bound address after Start; nil when nothing listens.
func (e *Exporter) Addr() net.Addr {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.addr
}

// Shutdown stops the HTTP server within ctx; idempotent.
func (e *Exporter) Shutdown(ctx context.Context) error {
	if !e.shutdown.CompareAndSwap(false, true) {
		return nil
	}
	e.mu.Lock()
	srv, done := e.srv, e.done
	e.mu.Unlock()
	if srv == nil {
		return nil
	}
	err := srv.Shutdown(ctx)
	select {
	case <-done:
	case <-ctx.Done():
		return errors.Join(err, ctx.Err())
	}
	return err
}

// zapErrorLog passes promhttp's gathering errors to zap.
type zapErrorLog struct{ lg *zap.Logger }

func (l zapErrorLog) Println(v ...any) {
	l.lg.Warn("metrics scrape error", zap.String("error", fmt.Sprint(v...)))
}
