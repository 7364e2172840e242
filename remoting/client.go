package remoting

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Client is the remoting client (Java's NettyRemotingClient): one connection
// per address, dialled lazily and again after it closes. Server-initiated
// requests arriving on its connections go to the processors registered here.
type Client struct {
	cfg *NettyClientConfig
	lg  *zap.Logger
	ep  *endpoint

	asyncSem  chan struct{} // clientAsyncSemaphoreValue permits
	onewaySem chan struct{} // clientOnewaySemaphoreValue permits

	tlsCfg func() (*tls.Config, error) // the client TLS settings, built once (tls_client.go)

	mu      sync.Mutex // guards conns, dialing, closed
	conns   map[string]*Channel
	dialing map[string]*dialCall
	closed  bool
	dialer  Dialer // inproc.go; nil dials TCP

	dialCtx    context.Context    // parent of every dial; cancelled by Shutdown
	dialCancel context.CancelFunc // aborts dials in flight
}

type dialCall struct {
	done chan struct{} // closed when ch/err are set
	ch   *Channel
	err  error
}

// NewClient returns a client; connections are made on first use.
func NewClient(cfg *NettyClientConfig, lg *zap.Logger) *Client {
	if cfg == nil {
		cfg = NewNettyClientConfig()
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	idle := time.Duration(cfg.ClientChannelMaxIdleTimeSeconds) * time.Second
	c := &Client{
		cfg:       cfg,
		lg:        lg,
		ep:        newEndpoint(lg, cfg.MaxFrameLength, idle),
		asyncSem:  make(chan struct{}, max(cfg.ClientAsyncSemaphoreValue, 1)),
		onewaySem: make(chan struct{}, max(cfg.ClientOnewaySemaphoreValue, 1)),
		conns:     make(map[string]*Channel),
		dialing:   make(map[string]*dialCall),
		tlsCfg:    sync.OnceValues(cfg.TLS.ClientTLS),
	}
	c.dialCtx, c.dialCancel = context.WithCancel(context.Background())
	c.ep.startHousekeeping()
	return c
}

// RegisterProcessor serves server-initiated requests with code c.
func (c *Client) RegisterProcessor(code int32, p Processor, pool *Pool) { c.ep.register(code, p, pool) }

// SetChannelEventListener sets the receiver of connect/close/idle events.
func (c *Client) SetChannelEventListener(l ChannelEventListener) { c.ep.setListener(l) }

// InvokeSync sends req to addr and waits for the reply until ctx ends. Like
// Java with clientCloseSocketIfTimeout, a timeout (ctx's deadline) closes
// the connection; a cancelled ctx (the caller gave up, e.g. a proxy's
// client hung up) only ends this call.
func (c *Client) InvokeSync(ctx context.Context, addr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	ch, err := c.Channel(ctx, addr)
	if err != nil {
		return nil, err
	}
	resp, err := ch.InvokeSync(ctx, req)
	if err != nil && errors.Is(err, ErrTimeout) && errors.Is(err, context.DeadlineExceeded) && c.cfg.ClientCloseSocketIfTimeout {
		c.lg.Warn("invoke sync timeout, close the channel", zap.String("remoteAddr", addr), zap.Int32("code", req.Code))
		_ = ch.Close()
	}
	return resp, err
}

// InvokeAsync sends req to addr; cb gets the reply or an error once. The
// number of outstanding async calls is bounded by clientAsyncSemaphoreValue.
func (c *Client) InvokeAsync(ctx context.Context, addr string, req *codec.RemotingCommand, cb func(*codec.RemotingCommand, error)) error {
	ch, err := c.Channel(ctx, addr)
	if err != nil {
		return err
	}
	if err := acquire(ctx, c.asyncSem); err != nil {
		return err
	}
	var once atomic.Bool
	wrapped := func(resp *codec.RemotingCommand, err error) {
		if !once.Swap(true) {
			<-c.asyncSem
		}
		if cb != nil {
			cb(resp, err)
		}
	}
	if err := ch.InvokeAsync(ctx, req, wrapped); err != nil {
		<-c.asyncSem
		return err
	}
	return nil
}

// InvokeOneway sends req to addr with the oneway flag.
func (c *Client) InvokeOneway(ctx context.Context, addr string, req *codec.RemotingCommand) error {
	ch, err := c.Channel(ctx, addr)
	if err != nil {
		return err
	}
	if err := acquire(ctx, c.onewaySem); err != nil {
		return err
	}
	defer func() { <-c.onewaySem }()
	return ch.InvokeOneway(req)
}

func acquire(ctx context.Context, sem chan struct{}) error {
	select {
	case sem <- struct{}{}:
		return nil
	default:
	}
	select {
	case sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrTooMuchRequest, ctx.Err())
	}
}

// CloseChannel closes the connection to addr, if any.
func (c *Client) CloseChannel(addr string) {
	c.mu.Lock()
	ch := c.conns[addr]
	delete(c.conns, addr)
	c.mu.Unlock()
	if ch != nil {
		_ = ch.Close()
	}
}

// Channel returns the open connection to addr, dialling it if needed;
// concurrent callers share one dial. The dial runs on its own goroutine,
// bounded by connectTimeoutMillis and Shutdown, so every caller, the one
// that started it included, stops waiting when its ctx ends.
func (c *Client) Channel(ctx context.Context, addr string) (*Channel, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrShutdown
	}
	if ch := c.conns[addr]; ch != nil && !ch.IsClosed() {
		c.mu.Unlock()
		return ch, nil
	}
	d := c.dialing[addr]
	if d == nil {
		d = &dialCall{done: make(chan struct{})}
		c.dialing[addr] = d
		c.mu.Unlock()
		if !c.ep.goFunc(func() { c.dial(addr, d) }) {
			c.publishDial(addr, d, nil, ErrShutdown)
		}
	} else {
		c.mu.Unlock()
	}
	select {
	case <-d.done:
		return d.ch, d.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %s: %w", ErrConnect, addr, ctx.Err())
	}
}

// dial connects addr within connectTimeoutMillis (aborted by Shutdown) and
// publishes the result through d.
func (c *Client) dial(addr string, d *dialCall) {
	timeout := time.Duration(c.cfg.ConnectTimeoutMillis) * time.Millisecond
	ctx := c.dialCtx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	conn, err := c.customDial(ctx, addr)
	if conn == nil && err == nil {
		dialer := net.Dialer{KeepAlive: -1}
		conn, err = dialer.DialContext(ctx, "tcp", addr)
	}
	if err == nil && c.cfg.UseTLS {
		conn, err = c.handshake(c.dialCtx, conn, timeout) // its own timeout, as before; Shutdown aborts it
	}
	var ch *Channel
	if err != nil {
		err = fmt.Errorf("%w: %s: %w", ErrConnect, addr, err)
	} else {
		ch, err = c.startConn(addr, conn)
	}
	c.publishDial(addr, d, ch, err)
}

// publishDial ends the dial d: it records ch as addr's connection (closing
// it instead when the client shut down meanwhile) and wakes the waiters.
func (c *Client) publishDial(addr string, d *dialCall, ch *Channel, err error) {
	var orphan *Channel
	c.mu.Lock()
	delete(c.dialing, addr)
	if err == nil {
		if c.closed {
			err, orphan, ch = ErrShutdown, ch, nil
		} else {
			c.conns[addr] = ch
		}
	}
	c.mu.Unlock()
	if orphan != nil {
		_ = orphan.Close()
	}
	d.ch, d.err = ch, err
	close(d.done)
}

// Shutdown closes every connection, fails pending calls, waits for the
// client's goroutines within ctx and releases its pools. Idempotent.
func (c *Client) Shutdown(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	conns := c.conns
	c.conns = map[string]*Channel{}
	c.mu.Unlock()
	c.dialCancel()
	for _, ch := range conns {
		_ = ch.Close()
	}
	for _, ch := range c.ep.snapshotChannels() {
		_ = ch.Close()
	}
	return c.ep.stopHousekeeping(ctx)
}
