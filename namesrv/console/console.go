package console

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/admin"
	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting"
)

//go:embed static
var staticFS embed.FS

// Defaults of Config's zero values.
const (
	DefaultSampleInterval = 5 * time.Second
	DefaultTimeout        = 5 * time.Second
	// SeriesLen is how many samples the live charts keep (10 minutes at 5 s).
	SeriesLen = 120
)

// Config configures a Console.
type Config struct {
	// ListenAddr is the HTTP address, e.g. "127.0.0.1:8080" (":0" picks a port).
	ListenAddr string
	// Namesrv returns the name server addresses to ask; the name server
	// that owns the console passes its own address. Called per request, so
	// it may be resolved after the name server has bound its port.
	Namesrv func() []string
	// SampleInterval is the live charts' sampling period (DefaultSampleInterval).
	SampleInterval time.Duration
	// Timeout bounds one API request's admin calls (DefaultTimeout).
	Timeout time.Duration
	// Client configures the remoting client (nil: defaults).
	Client *remoting.NettyClientConfig
}

// Console is the read-only web console: static pages plus a JSON API
// computed with internal/admin, and a sampler feeding the live charts.
type Console struct {
	cfg    Config
	lg     *zap.Logger
	rc     *remoting.Client
	http   *http.Server
	sample *service.Service
	series *ring

	ln      net.Listener  // set by Start
	served  chan struct{} // closed when Serve has returned
	started atomic.Bool
	stopped atomic.Bool
	mu      sync.Mutex // guards ln
}

// New validates cfg and allocates the console; it binds nothing.
func New(cfg Config, lg *zap.Logger) (*Console, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if cfg.ListenAddr == "" {
		return nil, errors.New("console: listen address is empty")
	}
	if cfg.Namesrv == nil {
		return nil, errors.New("console: no name server")
	}
	if cfg.SampleInterval <= 0 {
		cfg.SampleInterval = DefaultSampleInterval
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Client == nil {
		cfg.Client = remoting.NewNettyClientConfig()
	}
	c := &Console{cfg: cfg, lg: lg, served: make(chan struct{}), series: newRing(SeriesLen)}
	c.rc = remoting.NewClient(cfg.Client, lg.Named("remoting"))
	c.http = &http.Server{
		Handler:           c.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          zap.NewStdLog(lg.Named("http")),
	}
	c.sample = service.New("consoleSampler", cfg.SampleInterval, c.takeSample)
	return c, nil
}

// admin returns an admin client over the current name server addresses.
func (c *Console) admin() *admin.Admin { return admin.New(c.rc, c.cfg.Namesrv()) }

// Handler serves the pages and the API (GET and HEAD only).
func (c *Console) Handler() http.Handler {
	mux := http.NewServeMux()
	sub, _ := fs.Sub(staticFS, "static")
	mux.Handle("/", http.FileServerFS(sub))
	mux.HandleFunc("/api/cluster", c.api(c.clusterAPI))
	mux.HandleFunc("/api/topics", c.api(c.topicsAPI))
	mux.HandleFunc("/api/topic", c.api(c.topicAPI))
	mux.HandleFunc("/api/groups", c.api(c.groupsAPI))
	mux.HandleFunc("/api/group", c.api(c.groupAPI))
	mux.HandleFunc("/api/message", c.api(c.messageAPI))
	mux.HandleFunc("/api/series", c.api(c.seriesAPI))
	return readOnly(mux)
}

// readOnly refuses every method but GET and HEAD and sets the headers that
// keep the pages self-contained (no external fetches, no inline script).
func readOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "read-only console", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// httpError is an API error with its HTTP status.
type httpError struct {
	status int
	err    error
}

func (e *httpError) Error() string { return e.err.Error() }
func (e *httpError) Unwrap() error { return e.err }

func badRequest(msg string) error {
	return &httpError{status: http.StatusBadRequest, err: errors.New(msg)}
}

// api adapts a JSON handler: the admin calls get a ctx bounded by Timeout;
// errors are answered as {"error": "..."}.
func (c *Console) api(f func(ctx context.Context, r *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), c.cfg.Timeout)
		defer cancel()
		v, err := f(ctx, r)
		status := http.StatusOK
		if err != nil {
			status = http.StatusBadGateway
			var he *httpError
			switch {
			case errors.As(err, &he):
				status = he.status
			case errors.Is(err, admin.ErrNotFound):
				status = http.StatusNotFound
			}
			v = map[string]string{"error": err.Error()}
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		// encoding/json escapes <, > and & as \u003c…, so data never reads as markup.
		if err := json.NewEncoder(w).Encode(v); err != nil {
			c.lg.Debug("write api answer failed", zap.String("path", r.URL.Path), zap.Error(err))
		}
	}
}

// Start binds ListenAddr, then serves and samples in goroutines of their own.
func (c *Console) Start() error {
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("console: already started")
	}
	ln, err := net.Listen("tcp", c.cfg.ListenAddr)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.ln = ln
	c.mu.Unlock()
	go func() {
		defer close(c.served)
		if err := c.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.lg.Error("console serve failed", zap.Error(err))
		}
	}()
	c.sample.Start()
	c.sample.Wakeup() // a first point now, not one interval later
	c.lg.Info("console started", zap.String("addr", ln.Addr().String()))
	return nil
}

// Addr is the bound address (nil before Start).
func (c *Console) Addr() net.Addr {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ln == nil {
		return nil
	}
	return c.ln.Addr()
}

// Shutdown stops the sampler and the HTTP server (waiting for requests in
// flight within ctx) and closes the remoting client; it is idempotent.
func (c *Console) Shutdown(ctx context.Context) error {
	if !c.stopped.CompareAndSwap(false, true) {
		return nil
	}
	err := c.sample.Stop(ctx)
	if c.started.Load() && c.Addr() != nil {
		err = errors.Join(err, c.http.Shutdown(ctx))
		select {
		case <-c.served:
		case <-ctx.Done():
			err = errors.Join(err, ctx.Err())
		}
	}
	return errors.Join(err, c.rc.Shutdown(ctx))
}
