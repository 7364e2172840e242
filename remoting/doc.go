// Package remoting is the RocketMQ remoting transport: a server on gnet/v2
// event loops (Java's NettyRemotingServer), a client on plain net.Conn
// (NettyRemotingClient), processor registration with one bounded Pool per
// request code, and the opaque-matched pending-response table both sides use
// for their own requests. Frames are encoded by remoting/codec:
//
//	+--------------+----------------------+---------------+------------+
//	| length (i32) | type<<24 | headerLen | header bytes  | body bytes |
//	+--------------+----------------------+---------------+------------+
//	length counts everything after itself; flag bit 0 = response, bit 1 = oneway
//
// # Threading model (server)
//
//	listener ─▶ accept goroutine (errors: back off 5 ms…1 s, never fatal)
//	          ─▶ gnet.Client.Enroll
//	socket ─▶ gnet event loop (serverSelectorThreads)
//	            OnTraffic: measure whole frames (codec.FrameLength), copy them out
//	            in one slice, Discard, Decode, then per frame:
//	              response → pending table → waiter's channel / callback goroutine
//	              request, inline (InlineProcessor.Inline(code) true) → processed
//	                right here; its encoded response joins the batch written
//	                after the last frame of this read
//	              request  → Pool.Submit (never blocks; full → SYSTEM_BUSY [OVERLOAD])
//	            then one write (writev) of this read's inline answers and
//	            every answer queued on the channel so far
//	          ─▶ pool worker: Processor.ProcessRequest (panic → SYSTEM_ERROR)
//	          ─▶ Context.Respond → Channel.WriteCommand: encode into the channel's
//	             outbound buffer; the first frame into an empty buffer kicks
//	             Conn.Wake, a task on the event loop that runs OnTraffic and
//	             takes the buffer only then: everything queued for the
//	             connection until the loop gets to it (or until its next
//	             read, whichever comes first) leaves in one write syscall.
//
// TLS (NettyServerConfig.TLS, Java's tls.server.mode): when not disabled
// the accept goroutine passes each connection to a goroutine of its own,
// which peeks (MSG_PEEK, nothing consumed) the client's first byte:
//
//	0x16 (TLS handshake record) ─▶ crypto/tls handshake (≤10 s) ─▶ reader
//	      goroutine (frames ─▶ the same endpoint: pools, inline processors,
//	      pending table, events) + writer goroutine draining the outbound buffer
//	other byte ─▶ gnet.Client.Enroll as above (enforcing: closed instead)
//
// The client is the same with a reader goroutine in place of OnTraffic and a
// writer goroutine draining the outbound buffer in place of the event loop.
// Connect/close/idle events go to the ChannelEventListener on one event
// goroutine (Java's NettyEventExecutor), never on an event loop. A sweeper
// goroutine fails async calls past their deadline (ErrTimeout) and closes
// channels idle longer than server/clientChannelMaxIdleTimeSeconds (IDLE then
// CLOSE events, as Java).
//
// # Invariants
//
//   - Event loops never block; OnTraffic only copies, decodes and submits,
//     or runs processors that declared the code non-blocking (InlineProcessor).
//   - A frame longer than MaxFrameLength or with an impossible length closes
//     only its own connection.
//   - Responses carry the request's opaque, the response flag and the
//     request's serialize type (Context.ForceSerializeType overrides); a
//     Context answers at most once; oneway requests are never answered
//     (except REQUEST_CODE_NOT_SUPPORTED, which Java sends regardless).
//   - A pending entry is completed exactly once, by whoever removes it from
//     the table (reply, timeout sweep, channel close or shutdown).
//   - Opaques come from one process-wide counter (NextOpaque).
//
// # Lock order
//
// Locks are leaves except where listed; none is held across I/O or a
// channel send that can block:
//
//	Client.mu is released before dialling and before closing channels.
//	endpoint.procMu → Pool.mu (adopt/release take a pool reference)
//	Channel.mu, pendingTable.mu, endpoint.chMu, endpoint.listenerMu,
//	endpoint.goMu, Context.serMu: leaves.
//	Server.enrollMu (held across Enroll), Server.connMu: leaves.
//
// # Usage
//
//	s, _ := remoting.NewServer(cfg, lg)
//	s.RegisterProcessor(code.HeartBeat, proc, remoting.NewPool("heartbeat", 4, 10000))
//	_ = s.Start()
//	defer s.Shutdown(ctx)
//
//	cfg.TLS = remoting.NewTLSConfig() // permissive, self-signed: Java's default
//
//	c := remoting.NewClient(remoting.NewNettyClientConfig(), lg) // UseTLS: dial with TLS
//	resp, err := c.InvokeSync(ctx, s.Addr().String(), codec.NewRequest(code.HeartBeat, nil, body))
package remoting
