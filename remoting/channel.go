package remoting

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketmq-go/rmq/remoting/codec"
)

// maxSpareBuffer bounds the outbound buffer a channel keeps for reuse.
const maxSpareBuffer = 1 << 20

var (
	channelIDs atomic.Uint64
	opaqueSeq  atomic.Int32
)

// NextOpaque returns the next request id of this process, like Java's
// RemotingCommand.requestId counter.
func NextOpaque() int32 { return opaqueSeq.Add(1) }

// Channel is one TCP connection, accepted by a Server or dialled by a Client.
// Both directions are multiplexed on it: WriteCommand sends any frame,
// InvokeSync sends a request and waits for the reply with the same opaque.
//
// Outbound frames are appended to one buffer; the first frame after an empty
// buffer "kicks" the transport's flusher, and everything appended before the
// flusher runs leaves in a single write. The flusher is the gnet event loop for
// server channels and a writer goroutine for client channels.
type Channel struct {
	id         uint64
	remoteAddr string
	remoteAP   netip.AddrPort // remoteAddr parsed once; invalid if it is not ip:port
	localAddr  string
	ep         *endpoint

	kick    func()       // starts a flush; called when kicked goes false→true
	closeFn func() error // closes the socket; the transport then calls ep.channelGone

	mu     sync.Mutex // guards out, spare, kicked; never held across I/O
	out    []byte     // encoded frames waiting for the flusher
	spare  []byte     // a flushed buffer kept for reuse
	kicked bool       // a flush is scheduled or running

	closed     atomic.Bool
	writes     atomic.Uint64 // socket writes of queued or inline frames (gnet server channels)
	done       chan struct{} // closed once the connection is gone (by markGone)
	goneOnce   sync.Once
	lastActive atomic.Int64 // unix nanos of the last read or flush

	iov [2][]byte // gnet server only, event loop only: flushOnLoop's writev

	need      int    // server only, event loop only: size of the partly received next frame
	inlineOut []byte // server only, event loop only: responses of inline requests of one read

	attachMu   sync.Mutex
	attachment any
}

func newChannel(ep *endpoint, remote, local string) *Channel {
	ap, _ := netip.ParseAddrPort(remote) // the zero AddrPort when unparsable
	ch := &Channel{
		id:         channelIDs.Add(1),
		remoteAddr: remote,
		remoteAP:   ap,
		localAddr:  local,
		ep:         ep,
		done:       make(chan struct{}),
	}
	ch.touch()
	return ch
}

// ID is unique among the channels of this process.
func (ch *Channel) ID() uint64 { return ch.id }

// RemoteAddr is the peer's "ip:port".
func (ch *Channel) RemoteAddr() string { return ch.remoteAddr }

// RemoteAddrPort is RemoteAddr parsed, once per connection; it is not
// valid (IsValid false) when RemoteAddr is not "ip:port" (an in-process
// connection's name).
func (ch *Channel) RemoteAddrPort() netip.AddrPort { return ch.remoteAP }

// LocalAddr is our side's "ip:port".
func (ch *Channel) LocalAddr() string { return ch.localAddr }

// IsClosed reports whether Close was called or the connection is gone.
func (ch *Channel) IsClosed() bool { return ch.closed.Load() }

// Done is closed once the connection is gone.
func (ch *Channel) Done() <-chan struct{} { return ch.done }

// SetAttachment stores a value for the channel's owner (e.g. the client id).
func (ch *Channel) SetAttachment(v any) {
	ch.attachMu.Lock()
	ch.attachment = v
	ch.attachMu.Unlock()
}

// Attachment returns what SetAttachment stored.
func (ch *Channel) Attachment() any {
	ch.attachMu.Lock()
	defer ch.attachMu.Unlock()
	return ch.attachment
}

func (ch *Channel) String() string {
	return fmt.Sprintf("channel#%d[%s->%s]", ch.id, ch.localAddr, ch.remoteAddr)
}

// Close closes the connection; pending calls on it fail with ErrChannelClosed.
func (ch *Channel) Close() error {
	if ch.closed.Swap(true) {
		return nil
	}
	return ch.closeFn()
}

func (ch *Channel) touch() { ch.lastActive.Store(time.Now().UnixNano()) }

func (ch *Channel) idleFor(now time.Time) time.Duration {
	return time.Duration(now.UnixNano() - ch.lastActive.Load())
}

// markGone records that the connection is closed; true the first time.
func (ch *Channel) markGone() bool {
	first := false
	ch.goneOnce.Do(func() {
		first = true
		ch.closed.Store(true)
		close(ch.done)
		ch.mu.Lock()
		ch.out, ch.spare = nil, nil
		ch.mu.Unlock()
	})
	return first
}

// WriteCommand encodes cmd and queues it; it returns once the frame is queued.
func (ch *Channel) WriteCommand(cmd *codec.RemotingCommand) error {
	if ch.closed.Load() {
		return ErrChannelClosed
	}
	ch.mu.Lock()
	n := len(ch.out)
	out, err := codec.AppendFrame(ch.out, cmd)
	if err != nil {
		ch.out = ch.out[:n]
		ch.mu.Unlock()
		return err
	}
	ch.out = out
	start := !ch.kicked
	ch.kicked = true
	ch.mu.Unlock()
	if start {
		ch.kick()
	}
	return nil
}

// takeBatch hands the queued bytes to the flusher; nil (and the flush ends)
// when nothing is queued.
func (ch *Channel) takeBatch() []byte {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if len(ch.out) == 0 {
		ch.kicked = false
		return nil
	}
	return ch.swapOutLocked()
}

// takeQueued hands every queued byte to the flusher and ends the flush: a
// frame queued after it kicks a new one. For flushers that run as one task
// per kick (the gnet event loop), where takeBatch's "until empty" loop
// would leave a kick pending with no task to serve it.
func (ch *Channel) takeQueued() []byte {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	ch.kicked = false
	if len(ch.out) == 0 {
		return nil
	}
	return ch.swapOutLocked()
}

// swapOutLocked returns the queued bytes and queues into the spare buffer
// from now on; ch.mu is held.
func (ch *Channel) swapOutLocked() []byte {
	b := ch.out
	ch.out = ch.spare[:0:cap(ch.spare)]
	ch.spare = nil
	return b
}

// recycle returns a flushed buffer for reuse.
func (ch *Channel) recycle(b []byte) {
	ch.touch()
	if cap(b) > maxSpareBuffer {
		return
	}
	ch.mu.Lock()
	if ch.spare == nil && !ch.closed.Load() {
		ch.spare = b[:0]
	}
	ch.mu.Unlock()
}

// abortFlush drops queued bytes after a failed write.
func (ch *Channel) abortFlush() {
	ch.mu.Lock()
	ch.out = ch.out[:0]
	ch.kicked = false
	ch.mu.Unlock()
}

// InvokeSync sends req (a fresh opaque is assigned) and waits for the reply
// until ctx ends; the error then wraps ErrTimeout and ctx.Err().
func (ch *Channel) InvokeSync(ctx context.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	rf := &responseFuture{ch: ch, result: make(chan invokeResult, 1)}
	if err := ch.send(req, rf); err != nil {
		return nil, err
	}
	select {
	case r := <-rf.result:
		return r.resp, r.err
	case <-ctx.Done():
		if ch.ep.pending.remove(req.Opaque) == nil {
			r := <-rf.result // completed concurrently
			return r.resp, r.err
		}
		return nil, fmt.Errorf("%w: %s code %d opaque %d: %w", ErrTimeout, ch.remoteAddr, req.Code, req.Opaque, ctx.Err())
	}
}

// InvokeAsync sends req and calls cb once with the reply or an error
// (ErrTimeout when ctx's deadline passes first, ErrChannelClosed…). cb runs on
// its own goroutine. An error returned here means cb will not be called.
func (ch *Channel) InvokeAsync(ctx context.Context, req *codec.RemotingCommand, cb func(*codec.RemotingCommand, error)) error {
	rf := &responseFuture{ch: ch, cb: cb}
	if dl, ok := ctx.Deadline(); ok {
		rf.deadline = dl
	}
	return ch.send(req, rf)
}

// InvokeOneway sends req with the oneway flag; no reply is expected.
func (ch *Channel) InvokeOneway(req *codec.RemotingCommand) error {
	req.Opaque = NextOpaque()
	req.Flag = (req.Flag | codec.FlagOneway) &^ codec.FlagResponse
	if err := ch.WriteCommand(req); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrSendRequest, ch.remoteAddr, err)
	}
	return nil
}

func (ch *Channel) send(req *codec.RemotingCommand, rf *responseFuture) error {
	req.Opaque = NextOpaque()
	req.Flag &^= codec.FlagResponse | codec.FlagOneway
	rf.opaque = req.Opaque
	ch.ep.pending.put(rf)
	// If the entry is already gone, the close handler completed it: the
	// caller learns the outcome from rf, not from here.
	fail := func(err error) error {
		if ch.ep.pending.remove(rf.opaque) == nil {
			return nil
		}
		return err
	}
	if ch.closed.Load() {
		return fail(fmt.Errorf("%w: %s", ErrChannelClosed, ch.remoteAddr))
	}
	if err := ch.WriteCommand(req); err != nil {
		return fail(fmt.Errorf("%w: %s: %w", ErrSendRequest, ch.remoteAddr, err))
	}
	return nil
}
