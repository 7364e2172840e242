package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// -mode wake measures long-poll wake-up: a PULL_MESSAGE waits suspended at
// the head of queue 0, then one message is sent to that queue on another
// connection; the latency is from writing the send to receiving the pull
// response that carries the message (send handling, dispatch to the
// consume queue and the wake-up of the held pull). -q rounds (default
// 1000), each after the pull has been held for -wakehold.

// wakeHold is how long each pull waits at the broker before the send, so
// that it is suspended rather than answered as an ordinary pull.
const wakeHold = 5 * time.Millisecond

func runWakeMode(ctx context.Context, o *options, out io.Writer) error {
	o.queues = max(o.queues, 1)
	if err := ensureTopic(ctx, o); err != nil {
		return err
	}
	ends, err := queueEnds(ctx, o.broker, o.topic, 1, 0, 0)
	if err != nil {
		return err
	}
	tpl, err := newSendTemplate(o.topic, newTemplate(o).body, 1, codec.JSON)
	if err != nil {
		return err
	}
	var d net.Dialer
	pc, err := d.DialContext(ctx, "tcp", o.broker)
	if err != nil {
		return err
	}
	defer func() { _ = pc.Close() }()
	sc, err := d.DialContext(ctx, "tcp", o.broker)
	if err != nil {
		return err
	}
	defer func() { _ = sc.Close() }()
	stop := context.AfterFunc(ctx, func() { _ = pc.Close(); _ = sc.Close() })
	defer stop()
	w := &waker{o: o, tpl: tpl, pc: pc, sc: sc, pr: bufio.NewReader(pc), sr: bufio.NewReader(sc), offset: ends[0]}
	rounds := o.quantity
	if rounds <= 0 {
		rounds = 1000
	}
	lat := make([]int64, 0, rounds)
	for i := range rounds {
		rt, err := w.round(i)
		if err != nil {
			return fmt.Errorf("round %d: %w", i, err)
		}
		lat = append(lat, int64(rt))
	}
	slices.Sort(lat)
	r := &leanResult{ok: int64(len(lat)), lat: lat}
	fmt.Fprintf(out, "[Lean wake] %d long-poll wake-ups: p50 %.3f ms p99 %.3f ms max %.3f ms\n",
		len(lat), ms(r.quantile(0.5)), ms(r.quantile(0.99)), ms(r.quantile(1)))
	fmt.Fprintf(out, "RESULT mode=wake ok=%d p50_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
		len(lat), ms(r.quantile(0.5)), ms(r.quantile(0.99)), ms(r.quantile(1)))
	return nil
}

// waker holds the two connections of -mode wake.
type waker struct {
	o      *options
	tpl    *sendTemplate
	pc, sc net.Conn
	pr, sr *bufio.Reader
	offset int64
	buf    []byte
}

// round holds a pull, sends one message and times its arrival.
func (w *waker) round(i int64) (time.Duration, error) {
	req := codec.NewRequest(code.PullMessage, pullHeader(w.o, 0, w.offset), nil)
	req.Opaque = int32(i + 1)
	frame, err := codec.Encode(req)
	if err != nil {
		return 0, err
	}
	if _, err := w.pc.Write(frame); err != nil {
		return 0, err
	}
	time.Sleep(wakeHold)
	start := time.Now()
	if _, err := w.sc.Write(w.tpl.appendSend(w.buf[:0], int(i), 0, start.UnixMilli(), uint64(i))); err != nil {
		return 0, err
	}
	rt, err := w.awaitMessage(i, start)
	if err != nil {
		return 0, err
	}
	if w.buf, err = readFrame(w.sr, w.buf); err != nil {
		return 0, err
	}
	if c, _, err := responseHead(w.buf[4:]); err != nil || c != code.Success {
		return 0, fmt.Errorf("send: code %d %v", c, err)
	}
	return rt, nil
}

// awaitMessage reads pull responses until one carries the message,
// re-pulling at once after an empty answer (a woken pull may find the
// consume queue not yet updated: Apache then answers PULL_NOT_FOUND, and
// a client pulls again).
func (w *waker) awaitMessage(i int64, start time.Time) (time.Duration, error) {
	for tries := 0; ; tries++ {
		var err error
		if w.buf, err = readFrame(w.pr, w.buf); err != nil {
			return 0, err
		}
		rt := time.Since(start)
		resp, err := codec.Decode(w.buf)
		if err != nil {
			return 0, err
		}
		n, next, err := pullOutcome(resp)
		if err != nil {
			return 0, fmt.Errorf("pull at %d: %w", w.offset, err)
		}
		if n > 0 {
			w.offset = next
			return rt, nil
		}
		if tries >= 100 {
			return 0, fmt.Errorf("pull at %d: still no message after %d pulls (code %d)", w.offset, tries, resp.Code)
		}
		req := codec.NewRequest(code.PullMessage, pullHeader(w.o, 0, w.offset), nil)
		req.Opaque = int32(i + 1)
		frame, err := codec.Encode(req)
		if err != nil {
			return 0, err
		}
		if _, err := w.pc.Write(frame); err != nil {
			return 0, err
		}
	}
}
