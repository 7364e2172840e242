package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// rawSender sends SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE with this
// repository's remoting client, round-robin over the topic's master queues.
type rawSender struct {
	c       *remoting.Client
	o       *options
	qs      []queue
	next    atomic.Uint64
	tpl     *msgTemplate
	uniqPfx string
	uniqSeq atomic.Uint64
}

func newRawSender(ctx context.Context, o *options) (*rawSender, error) {
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	qs, err := resolveQueues(ctx, c, o, true)
	if err != nil {
		_ = c.Shutdown(context.Background())
		return nil, err
	}
	// UNIQ_KEY as a client sets it: 32 hex digits, here pid and start
	// time followed by a counter.
	pfx := fmt.Sprintf("7F000001%04X%08X", os.Getpid()&0xFFFF, uint32(time.Now().Unix()))
	return &rawSender{c: c, o: o, qs: qs, tpl: newTemplate(o), uniqPfx: pfx}, nil
}

func (r *rawSender) close() { _ = r.c.Shutdown(context.Background()) }

// properties is one message's properties string.
func (r *rawSender) properties() string {
	tag, key := r.tpl.next()
	var b strings.Builder
	b.WriteString(message.PropertyUniqClientMessageIDKeyidx)
	b.WriteByte(message.NameValueSeparator)
	b.WriteString(r.uniqPfx)
	fmt.Fprintf(&b, "%012X", r.uniqSeq.Add(1))
	b.WriteByte(message.PropertySeparator)
	b.WriteString(message.PropertyWaitStoreMsgOK + "\x01true")
	if tag != "" {
		b.WriteString("\x02" + message.PropertyTags + "\x01" + tag)
	}
	if key != "" {
		b.WriteString("\x02" + message.PropertyKeys + "\x01" + key)
	}
	return b.String()
}

// request builds the next send and the broker it goes to.
func (r *rawSender) request() (*codec.RemotingCommand, string) {
	q := r.qs[r.next.Add(1)%uint64(len(r.qs))]
	ext := map[string]string{
		"a": "benchmark_producer", "b": r.o.topic, "c": "TBW102", "d": "4", "e": strconv.Itoa(q.id), "f": "0",
		"g": strconv.FormatInt(time.Now().UnixMilli(), 10), "h": "0", "j": "0", "k": "false", "m": "false",
	}
	if r.o.batch <= 1 {
		ext["i"] = r.properties()
		return codec.NewRequest(code.SendMessageV2, ext, r.tpl.body), q.addr
	}
	items := make([]message.BatchItem, r.o.batch)
	for i := range items {
		items[i] = message.BatchItem{Body: r.tpl.body, PropertiesString: r.properties()}
	}
	ext["i"], ext["m"] = message.PropertyWaitStoreMsgOK+"\x01true", "true"
	return codec.NewRequest(code.SendBatchMessage, ext, message.EncodeBatch(nil, items)), q.addr
}

func (r *rawSender) sendSync(ctx context.Context) (int, error) {
	req, addr := r.request()
	ctx, cancel := context.WithTimeout(ctx, r.o.sendTimeout)
	defer cancel()
	resp, err := r.c.InvokeSync(ctx, addr, req)
	return r.o.batch, sendError(resp, err)
}

func (r *rawSender) sendAsync(ctx context.Context, done func(int, error)) error {
	req, addr := r.request()
	ctx, cancel := context.WithTimeout(ctx, r.o.sendTimeout)
	err := r.c.InvokeAsync(ctx, addr, req, func(resp *codec.RemotingCommand, err error) {
		cancel()
		done(r.o.batch, sendError(resp, err))
	})
	if err != nil {
		cancel()
	}
	return err
}

func sendError(resp *codec.RemotingCommand, err error) error {
	if err != nil {
		return err
	}
	if resp.Code != code.Success {
		return fmt.Errorf("send: code %d %s", resp.Code, resp.Remark)
	}
	return nil
}

// runRawConsumer pulls every readable queue with PULL_MESSAGE (subscription
// "*", long polling) from o.from, one goroutine per queue. In consumer
// mode it stops once each queue reached the max offset it had at start.
func runRawConsumer(ctx context.Context, o *options, m *meter) error {
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	defer func() { _ = c.Shutdown(context.Background()) }()
	qs, err := resolveQueues(ctx, c, o, false)
	if err != nil {
		return err
	}
	ends, err := maxOffsets(ctx, c, o.topic, qs)
	if err != nil {
		return err
	}
	var backlog int64
	for _, e := range ends {
		backlog += e
	}
	fmt.Printf("consuming %d queues from the %s offset (%d messages stored)\n", len(qs), o.from, backlog)
	drain := o.mode == "consumer"
	var got atomic.Int64
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(qs))
	for i, q := range qs {
		start := int64(0)
		if o.from == "last" {
			start = ends[i]
		}
		go func() { errs <- pullQueue(ctx, c, o, q, start, ends[i], drain, m, &got, cancel) }()
	}
	var first error
	for range qs {
		if err := <-errs; err != nil && first == nil && ctx.Err() == nil {
			first = err
		}
	}
	return first
}

// pullQueue pulls one queue until ctx ends (or, when drain, until end).
func pullQueue(ctx context.Context, c *remoting.Client, o *options, q queue, offset, end int64, drain bool,
	m *meter, got *atomic.Int64, stopAll func()) error {
	for ctx.Err() == nil && (!drain || offset < end) {
		ext := map[string]string{
			"consumerGroup": o.group, "topic": o.topic, "queueId": strconv.Itoa(q.id),
			"queueOffset": strconv.FormatInt(offset, 10), "maxMsgNums": "32", "sysFlag": "6", "commitOffset": "0",
			"suspendTimeoutMillis": "1000", "subscription": "*", "subVersion": "0", "expressionType": "TAG",
		}
		pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		resp, err := c.InvokeSync(pctx, q.addr, codec.NewRequest(code.PullMessage, ext, nil))
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("pull %s/%d@%d: %w", q.brokerName, q.id, offset, err)
		}
		next, _ := strconv.ParseInt(resp.Ext("nextBeginOffset"), 10, 64)
		switch resp.Code {
		case code.Success:
			msgs, err := message.DecodeRecords(resp.Body, false)
			if err != nil {
				return fmt.Errorf("decode pulled messages: %w", err)
			}
			now := time.Now().UnixMilli()
			for _, msg := range msgs {
				m.record(1, time.Duration(now-msg.BornTimestamp)*time.Millisecond)
			}
			if n := got.Add(int64(len(msgs))); o.quantity > 0 && n >= o.quantity {
				stopAll()
			}
		case code.PullNotFound, code.PullRetryImmediately, code.PullOffsetMoved:
		default:
			return fmt.Errorf("pull %s/%d@%d: code %d %s", q.brokerName, q.id, offset, resp.Code, resp.Remark)
		}
		offset = next
	}
	return nil
}
