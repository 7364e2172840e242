package remoting

import "time"

// RPCRecord is one answered request as an RPCObserver sees it (the facts
// Apache 5.x's rocketmq_rpc_latency is labelled with).
type RPCRecord struct {
	RequestCode  int32
	ResponseCode int32
	// Latency runs from the request's dispatch (decoded, before the pool
	// hop) until its answer was handed to the connection.
	Latency time.Duration
	// Oneway: the request was oneway, so the answer was not sent.
	Oneway bool
	// Suspended: the processor parked the request before answering it
	// (Context.MarkSuspended: a long-polling pull), Java's
	// RemotingCommand.isSuspended.
	Suspended bool
	// WriteFailed: handing the answer to the connection failed.
	WriteFailed bool
}

// RPCObserver is told about every answered request of a server (metrics).
// It runs on the answering goroutine, which may be a gnet event loop, so
// it must be quick and must not block. Requests that get no answer
// (oneway with none, deferred and never answered) are not reported.
type RPCObserver func(RPCRecord)

// SetRPCObserver installs o for the server's requests; call it before
// Start. Without one (the default) dispatch does no timing at all.
func (s *Server) SetRPCObserver(o RPCObserver) { s.ep.observer = o }

// observe arms ctx for reporting to o (pool path: timed from dispatch).
func (c *Context) observe(o RPCObserver) {
	c.obs = o
	c.start = time.Now()
}

// report tells the observer how ctx was answered.
func (c *Context) report(respCode int32, oneway, writeFailed bool) {
	c.obs(RPCRecord{RequestCode: c.reqCode, ResponseCode: respCode, Latency: time.Since(c.start),
		Oneway: oneway, Suspended: c.suspended.Load(), WriteFailed: writeFailed})
}

// MarkSuspended records that the request was parked to be answered later
// (a long-polling pull); observers see it as RPCRecord.Suspended.
func (c *Context) MarkSuspended() { c.suspended.Store(true) }
