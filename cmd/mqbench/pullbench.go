package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// The backlog drain (-mode pull): -c connections pull every queue of the
// topic from offset 0 to the end it had at start, queue i on connection
// i mod c, one PULL_MESSAGE of 32 messages in flight per queue (all of a
// connection's queues pipelined in one write), as fast as the server
// answers. The rate is messages received per second of wall time.

// pullResult is what a drain measured.
type pullResult struct {
	msgs    int64
	elapsed time.Duration
	usage   procUsage
}

// queueEnds reads GET_MAX_OFFSET of queues 0..n-1 on addr; when want > 0
// it polls until they add up to at least want (the server dispatches to
// its consume queues after answering the sends), or stop growing for a
// second (some sends failed), or wait passes.
func queueEnds(ctx context.Context, addr, topic string, n int, want int64, wait time.Duration) ([]int64, error) {
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	defer func() { _ = c.Shutdown(context.Background()) }()
	deadline := time.Now().Add(wait)
	last, lastChange := int64(-1), time.Now()
	for {
		ends := make([]int64, n)
		var sum int64
		for q := range n {
			resp, err := invoke(ctx, c, addr, codec.NewRequest(code.GetMaxOffset,
				map[string]string{"topic": topic, "queueId": strconv.Itoa(q)}, nil))
			if err != nil {
				return nil, err
			}
			if ends[q], err = strconv.ParseInt(resp.Ext("offset"), 10, 64); err != nil {
				return nil, fmt.Errorf("max offset of %s/%d: code %d %q", topic, q, resp.Code, resp.Remark)
			}
			sum += ends[q]
		}
		if sum != last {
			last, lastChange = sum, time.Now()
		}
		if sum >= want || time.Since(lastChange) > time.Second || time.Now().After(deadline) || ctx.Err() != nil {
			return ends, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// drain pulls queue ends[i] of every queue over conns connections within
// limit and returns the messages received.
func drain(ctx context.Context, addr string, o *options, ends []int64, conns int, limit time.Duration) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var got atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for i := range conns {
		var mine []int
		for q := i; q < len(ends); q += conns {
			mine = append(mine, q)
		}
		if len(mine) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := drainConn(ctx, addr, o, mine, ends, &got); err != nil && ctx.Err() == nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return got.Load(), <-errs
}

// drainConn pulls the queues qs to their ends over one connection.
func drainConn(ctx context.Context, addr string, o *options, qs []int, ends []int64, got *atomic.Int64) error {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer func() { _ = nc.Close() }()
	stop := context.AfterFunc(ctx, func() { _ = nc.Close() })
	defer stop()
	br := bufio.NewReaderSize(nc, 1<<20)
	offsets := make([]int64, len(ends))
	var buf, frame []byte
	for {
		buf = buf[:0]
		pending := 0
		for _, q := range qs {
			if offsets[q] >= ends[q] {
				continue
			}
			req := codec.NewRequest(code.PullMessage, pullHeader(o, q, offsets[q]), nil)
			req.Opaque = int32(q + 1)
			if buf, err = codec.AppendFrame(buf, req); err != nil {
				return err
			}
			pending++
		}
		if pending == 0 {
			return nil
		}
		if _, err := nc.Write(buf); err != nil {
			return err
		}
		for range pending {
			if frame, err = readFrame(br, frame); err != nil {
				return err
			}
			resp, err := codec.Decode(frame)
			if err != nil {
				return err
			}
			q := int(resp.Opaque) - 1
			if q < 0 || q >= len(ends) {
				return fmt.Errorf("pull response with opaque %d", resp.Opaque)
			}
			n, next, err := pullOutcome(resp)
			if err != nil {
				return fmt.Errorf("pull %s/%d@%d: %w", o.topic, q, offsets[q], err)
			}
			got.Add(n)
			if next > offsets[q] {
				offsets[q] = next
			}
		}
	}
}

func pullHeader(o *options, q int, offset int64) map[string]string {
	return map[string]string{
		"consumerGroup": o.group, "topic": o.topic, "queueId": strconv.Itoa(q),
		"queueOffset": strconv.FormatInt(offset, 10), "maxMsgNums": "32", "sysFlag": "6", "commitOffset": "0",
		"suspendTimeoutMillis": "15000", "subscription": "*", "subVersion": "0", "expressionType": "TAG",
	}
}

// pullOutcome returns the messages in a pull response and its
// nextBeginOffset.
func pullOutcome(resp *codec.RemotingCommand) (n int64, next int64, err error) {
	next, _ = strconv.ParseInt(resp.Ext("nextBeginOffset"), 10, 64)
	switch resp.Code {
	case code.Success:
		n, err = countRecords(resp.Body)
		return n, next, err
	case code.PullNotFound, code.PullRetryImmediately, code.PullOffsetMoved:
		return 0, next, nil
	}
	return 0, 0, fmt.Errorf("code %d %s", resp.Code, resp.Remark)
}

// countRecords walks the stored messages of a pull body by their
// TOTALSIZE fields.
func countRecords(b []byte) (int64, error) {
	var n int64
	for len(b) > 0 {
		if len(b) < 4 {
			return n, fmt.Errorf("pull body: %d trailing bytes", len(b))
		}
		size := int(binary.BigEndian.Uint32(b))
		if size < 4 || size > len(b) {
			return n, fmt.Errorf("pull body: record of %d bytes, %d left", size, len(b))
		}
		b = b[size:]
		n++
	}
	return n, nil
}

// readFrame reads one length-prefixed frame (prefix included) into buf.
func readFrame(br *bufio.Reader, buf []byte) ([]byte, error) {
	head, err := br.Peek(4)
	if err != nil {
		return buf, err
	}
	n := int(binary.BigEndian.Uint32(head))
	if n < 4 || n > codec.DefaultMaxFrameLength {
		return buf, fmt.Errorf("frame of %d bytes", n)
	}
	if cap(buf) < n+4 {
		buf = make([]byte, n+4)
	}
	buf = buf[:n+4]
	_, err = io.ReadFull(br, buf)
	return buf, err
}
