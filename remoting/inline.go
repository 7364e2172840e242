package remoting

import (
	"errors"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// InlineProcessor is a Processor that can declare, per request code, that it
// never blocks: it only reads or updates memory under short critical sections
// (no disk or network I/O, no waiting for other goroutines, no ctx.Respond
// later). The server then runs those requests directly on the gnet event loop
// that read them, with no pool hop, and appends their responses to the
// batch it writes once at the end of that OnTraffic call: one read, one
// write, no goroutine wake-up per request. Java has no equivalent (every
// request goes through the processor's executor); clients cannot tell.
//
// Inline is asked for every request, so it must be cheap; its answer may
// follow live configuration (the name server's clusterTest mode). Requests with codes for which Inline is false go to the processor's pool
// as usual, and so do all requests on Client endpoints.
type InlineProcessor interface {
	Processor
	Inline(code int32) bool
}

// InlineProcessorFunc is a ProcessorFunc that runs inline for every code.
type InlineProcessorFunc func(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error)

// ProcessRequest calls f.
func (f InlineProcessorFunc) ProcessRequest(ctx *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	return f(ctx, req)
}

// Inline reports true: f is declared non-blocking.
func (InlineProcessorFunc) Inline(int32) bool { return true }

// isInline reports whether pe handles requests of code c on the event loop.
func (pe procEntry) isInline(c int32) bool {
	ip, ok := pe.p.(InlineProcessor)
	return ok && ip.Inline(c)
}

// outcome turns a processor's result into the response to send (nil: none
// now) and whether it keeps its own serialize type (Java's error paths
// answer in the server default, JSON).
func outcome(resp *codec.RemotingCommand, err error) (*codec.RemotingCommand, bool) {
	if err == nil {
		return resp, false
	}
	var re *Error
	if errors.As(err, &re) {
		return codec.NewResponse(re.Code, re.Remark), false
	}
	return codec.NewResponse(code.SystemError, err.Error()), true
}

// runInline processes req on the calling event loop and appends the encoded
// response to dst, which the caller writes when the whole read is handled.
func (ep *endpoint) runInline(pe procEntry, ctx *Context, req *codec.RemotingCommand, dst []byte) []byte {
	if ep.observer != nil {
		// Armed like a pool request, so that an answer the processor
		// defers (ctx.Respond later: the broker's timed queues for send
		// and pull) is reported when it is written.
		ctx.observe(ep.observer)
	}
	resp, asIs := outcome(ep.safeProcess(pe.p, ctx, req))
	if ep.observer != nil && resp != nil {
		ctx.report(resp.Code, req.IsOneway(), false) // timed from ctx.observe
	}
	if resp == nil || !ctx.claim() {
		return dst
	}
	if !asIs {
		resp.SerializeType = ctx.serializeType()
	}
	resp.Opaque = ctx.opaque
	resp.Flag |= codec.FlagResponse
	out, err := codec.AppendFrame(dst, resp)
	if err != nil {
		ctx.lg.Debug("encode response failed", ctxFields(ctx, err)...)
		return dst
	}
	return out
}

// inlineEntry returns the processor entry of cmd when cmd is a request its
// processor runs inline.
func (ep *endpoint) inlineEntry(cmd *codec.RemotingCommand) (procEntry, bool) {
	if cmd.IsResponse() {
		return procEntry{}, false
	}
	pe, ok := ep.lookup(cmd.Code)
	if !ok || !pe.isInline(cmd.Code) {
		return procEntry{}, false
	}
	return pe, true
}
