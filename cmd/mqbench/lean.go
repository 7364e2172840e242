package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// The lean load generator: -c TCP connections to one server, each keeping
// -inflight pipelined SEND_MESSAGE_V2 requests outstanding (a writer
// goroutine that batches whatever requests are free into one write, a
// reader goroutine that matches responses by opaque). Every response's
// latency in the measured window is kept, so the percentiles are exact.

// leanLoad is one run of the generator.
type leanLoad struct {
	addr     string
	tpl      *sendTemplate
	inflight int
	queues   int
	echo     bool  // the server echoes frames: any code is a success
	quantity int64 // stop issuing after this many requests (0: no limit)
	base     time.Time

	issued    atomic.Int64
	measuring atomic.Bool
	ok        atomic.Int64 // successes in the measured window
	failed    atomic.Int64 // failures in the measured window
	seq       atomic.Uint64
	errOnce   sync.Once
	err       error // first transport error
	stop      chan struct{}
	conns     []*leanConn
}

// leanConn is one connection's state.
type leanConn struct {
	l     *leanLoad
	nc    net.Conn
	start []atomic.Int64 // per slot: send time, ns since l.base
	gen   []int          // per slot: requests sent on it (writer only)
	free  chan int       // slots with no request outstanding
	lat   []int64        // measured latencies, ns (reader only until done)
	done  chan struct{}  // closed when the reader has ended
	qnext int
}

// leanResult is what one measured window saw.
type leanResult struct {
	ok, failed int64
	elapsed    time.Duration
	lat        []int64       // sorted, ns
	genCPU     time.Duration // this process's CPU over the window (-1: unknown)
}

func (r *leanResult) tps() float64 { return float64(r.ok) / r.elapsed.Seconds() }

// quantile returns the exact q-quantile (nearest rank) of the latencies.
func (r *leanResult) quantile(q float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	rank := int(float64(len(r.lat))*q+0.999999) - 1
	return time.Duration(r.lat[min(max(rank, 0), len(r.lat)-1)])
}

func dialLean(ctx context.Context, l *leanLoad, conns int) error {
	var d net.Dialer
	for range conns {
		nc, err := d.DialContext(ctx, "tcp", l.addr)
		if err != nil {
			l.close()
			return err
		}
		c := &leanConn{l: l, nc: nc, start: make([]atomic.Int64, l.inflight), gen: make([]int, l.inflight),
			free: make(chan int, l.inflight), done: make(chan struct{}), qnext: len(l.conns)}
		for i := range l.inflight {
			c.free <- i
		}
		l.conns = append(l.conns, c)
	}
	return nil
}

// run starts every connection's writer and reader.
func (l *leanLoad) run() {
	for _, c := range l.conns {
		go c.write()
		go c.read()
	}
}

func (l *leanLoad) fail(err error) {
	l.errOnce.Do(func() { l.err = err })
}

// measure counts what completes during d, then returns the window.
func (l *leanLoad) measure(ctx context.Context, d time.Duration, during func()) *leanResult {
	l.ok.Store(0)
	l.failed.Store(0)
	start := time.Now()
	l.measuring.Store(true)
	if during != nil {
		during()
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
	l.measuring.Store(false)
	return &leanResult{ok: l.ok.Load(), failed: l.failed.Load(), elapsed: time.Since(start)}
}

// finish stops issuing, waits up to grace for the outstanding requests,
// closes the connections and merges the latencies into r.
func (l *leanLoad) finish(r *leanResult, grace time.Duration) {
	close(l.stop)
	deadline := time.Now().Add(grace)
	for _, c := range l.conns {
		for len(c.free) < l.inflight && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	l.close()
	for _, c := range l.conns {
		<-c.done
		if r != nil {
			r.lat = append(r.lat, c.lat...)
		}
	}
	if r != nil {
		slices.Sort(r.lat)
	}
}

func (l *leanLoad) close() {
	for _, c := range l.conns {
		_ = c.nc.Close()
	}
}

// write sends a request on every free slot, batching the ones free at the
// same time into one write, until l.stop or the quantity is reached.
func (c *leanConn) write() {
	l := c.l
	buf := make([]byte, 0, 64<<10)
	for {
		var slot int
		select {
		case slot = <-c.free:
		case <-l.stop:
			return
		}
		buf = buf[:0]
		for {
			if l.quantity > 0 && l.issued.Add(1) > l.quantity {
				c.free <- slot
				break
			}
			buf = c.append(buf, slot)
			ok := false
			select {
			case slot = <-c.free:
				ok = true
			default:
			}
			if !ok {
				break
			}
		}
		if len(buf) == 0 {
			<-l.stop
			return
		}
		if _, err := c.nc.Write(buf); err != nil {
			l.fail(err)
			return
		}
	}
}

// append adds the request for slot to buf and stamps its send time.
func (c *leanConn) append(buf []byte, slot int) []byte {
	l := c.l
	n := c.gen[slot]*l.inflight + slot
	c.gen[slot]++
	if n >= opaqueSpan-l.inflight {
		c.gen[slot] = 0
		n = slot
	}
	now := time.Now()
	c.start[slot].Store(int64(now.Sub(l.base)))
	q := c.qnext % l.queues
	c.qnext++
	return l.tpl.appendSend(buf, n, q, now.UnixMilli(), l.seq.Add(1))
}

// read matches responses to slots until the connection closes.
func (c *leanConn) read() {
	defer close(c.done)
	l := c.l
	br := bufio.NewReaderSize(c.nc, 256<<10)
	var hdr [4]byte
	frame := make([]byte, 0, 4096)
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			c.readErr(err)
			return
		}
		n := int(binary.BigEndian.Uint32(hdr[:]))
		if n < 4 || n > codec.DefaultMaxFrameLength {
			l.fail(fmt.Errorf("response frame of %d bytes", n))
			return
		}
		frame = slices.Grow(frame[:0], n)[:n]
		if _, err := io.ReadFull(br, frame); err != nil {
			c.readErr(err)
			return
		}
		rc, op, err := responseHead(frame)
		if err != nil {
			l.fail(err)
			return
		}
		slot := (int(op) - opaqueBase) % l.inflight
		if slot < 0 || int(op) < opaqueBase {
			l.fail(fmt.Errorf("response with opaque %d", op))
			return
		}
		rt := int64(time.Since(l.base)) - c.start[slot].Load()
		if l.measuring.Load() {
			if rc == code.Success || l.echo {
				l.ok.Add(1)
				c.lat = append(c.lat, rt)
			} else {
				l.failed.Add(1)
			}
		}
		c.free <- slot
	}
}

func (c *leanConn) readErr(err error) {
	select {
	case <-c.l.stop:
		return // closed by finish
	default:
	}
	if !errors.Is(err, net.ErrClosed) {
		c.l.fail(err)
	}
}
