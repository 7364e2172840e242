package remoting

import (
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Processor handles requests of the codes it is registered for
// (Java's NettyRequestProcessor / AsyncNettyRequestProcessor).
//
// Return (resp, nil) to answer now; (nil, nil) to answer later through
// ctx.Respond from any goroutine, or never for oneway requests; (nil, *Error)
// to answer with that code and remark; any other error answers SYSTEM_ERROR
// with the error text.
type Processor interface {
	ProcessRequest(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error)
}

// ProcessorFunc adapts a function to Processor.
type ProcessorFunc func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error)

// ProcessRequest calls f.
func (f ProcessorFunc) ProcessRequest(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	return f(ctx, req)
}

// Context is one request being processed (Java's ChannelHandlerContext plus
// the response callback).
type Context struct {
	Channel *Channel

	opaque    int32
	oneway    bool
	reqCode   int32
	responded atomic.Bool
	lg        *zap.Logger

	serMu     sync.Mutex          // guards serialize
	serialize codec.SerializeType // the request's, or the one ForceSerializeType set

	// Metrics (observer.go): nil obs means the server has no observer.
	obs       RPCObserver
	start     time.Time   // dispatch time, set with obs
	suspended atomic.Bool // MarkSuspended was called
}

func newContext(ch *Channel, req *codec.RemotingCommand, lg *zap.Logger) *Context {
	return &Context{
		Channel:   ch,
		opaque:    req.Opaque,
		oneway:    req.IsOneway(),
		reqCode:   req.Code,
		serialize: req.SerializeType,
		lg:        lg,
	}
}

// Opaque is the request's opaque.
func (c *Context) Opaque() int32 { return c.opaque }

// IsOneway reports whether the request expects no reply.
func (c *Context) IsOneway() bool { return c.oneway }

// ForceSerializeType makes the response use t instead of the request's
// serialize type (the default, as in Java 4.9).
func (c *Context) ForceSerializeType(t codec.SerializeType) {
	c.serMu.Lock()
	c.serialize = t
	c.serMu.Unlock()
}

// Respond sends resp as the reply: it gets the request's opaque, the response
// flag and the request's serialize type (unless forced). Only the first
// call sends; oneway requests are never answered.
func (c *Context) Respond(resp *codec.RemotingCommand) {
	if resp == nil {
		return
	}
	c.serMu.Lock()
	resp.SerializeType = c.serialize
	c.serMu.Unlock()
	c.respondAsIs(resp)
}

// respondAsIs is Respond keeping resp's serialize type: Java's error paths
// (exception, overload) answer in the server's default, JSON.
func (c *Context) respondAsIs(resp *codec.RemotingCommand) {
	if c.claim() {
		c.write(resp)
		return
	}
	if c.obs != nil && c.oneway {
		c.report(resp.Code, true, false)
	}
}

// claim reports whether a response may be sent now: false for oneway
// requests and after the first response.
func (c *Context) claim() bool {
	if c.oneway {
		return false
	}
	if c.responded.Swap(true) {
		c.lg.Debug("response already sent", zap.Int32("opaque", c.opaque), zap.Int32("code", c.reqCode))
		return false
	}
	return true
}

func (c *Context) serializeType() codec.SerializeType {
	c.serMu.Lock()
	defer c.serMu.Unlock()
	return c.serialize
}

func ctxFields(c *Context, err error) []zap.Field {
	return []zap.Field{zap.String("remoteAddr", c.Channel.remoteAddr), zap.Int32("opaque", c.opaque),
		zap.Int32("code", c.reqCode), zap.Error(err)}
}

// write sends resp as the reply regardless of the oneway flag (Java answers
// REQUEST_CODE_NOT_SUPPORTED even to oneway requests).
func (c *Context) write(resp *codec.RemotingCommand) {
	resp.Opaque = c.opaque
	resp.Flag |= codec.FlagResponse
	respCode := resp.Code
	err := c.Channel.WriteCommand(resp)
	if err != nil {
		c.lg.Debug("write response failed", zap.String("remoteAddr", c.Channel.remoteAddr),
			zap.Int32("opaque", c.opaque), zap.Error(err))
	}
	if c.obs != nil {
		c.report(respCode, false, err != nil)
	}
}

type procEntry struct {
	p    Processor
	pool *Pool
}
