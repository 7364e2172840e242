package main

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"github.com/rocketmq-go/rmq/remoting"
)

// goSender sends with one shared rocketmq-client-go/v2 producer, as
// Apache's benchmark shares one DefaultMQProducer between its threads.
type goSender struct {
	p interface {
		SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
		SendAsync(context.Context, func(context.Context, *primitive.SendResult, error), ...*primitive.Message) error
		Shutdown() error
	}
	o   *options
	tpl *msgTemplate
}

func newGoSender(o *options) (*goSender, error) {
	rlog.SetLogLevel("error")
	// Make sure the topic exists with o.queues queues before the client
	// would auto-create it with 4.
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	_, err := resolveQueues(context.Background(), c, o, true)
	_ = c.Shutdown(context.Background())
	if err != nil {
		return nil, err
	}
	p, err := producer.NewDefaultProducer(
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{o.namesrv})),
		producer.WithGroupName("benchmark_producer"),
		producer.WithInstanceName("mqbench_"+strconv.FormatInt(time.Now().UnixNano(), 36)),
		producer.WithSendMsgTimeout(o.sendTimeout),
		producer.WithRetry(2),
	)
	if err != nil {
		return nil, err
	}
	if err := p.Start(); err != nil {
		return nil, err
	}
	return &goSender{p: p, o: o, tpl: newTemplate(o)}, nil
}

func (g *goSender) msgs() []*primitive.Message {
	ms := make([]*primitive.Message, g.o.batch)
	for i := range ms {
		m := primitive.NewMessage(g.o.topic, g.tpl.body)
		tag, key := g.tpl.next()
		if tag != "" {
			m.WithTag(tag)
		}
		if key != "" {
			m.WithKeys([]string{key})
		}
		ms[i] = m
	}
	return ms
}

func (g *goSender) sendSync(ctx context.Context) (int, error) {
	r, err := g.p.SendSync(ctx, g.msgs()...)
	return g.o.batch, goSendError(r, err)
}

func (g *goSender) sendAsync(ctx context.Context, done func(int, error)) error {
	return g.p.SendAsync(ctx, func(_ context.Context, r *primitive.SendResult, err error) {
		done(g.o.batch, goSendError(r, err))
	}, g.msgs()...)
}

func goSendError(r *primitive.SendResult, err error) error {
	if err != nil {
		return err
	}
	if r.Status != primitive.SendOK {
		return fmt.Errorf("send status %d", r.Status)
	}
	return nil
}

func (g *goSender) close() { _ = g.p.Shutdown() }

// runGoConsumer consumes with a rocketmq-client-go/v2 push consumer until
// ctx ends or o.quantity (or, in consumer mode, the backlog present at
// start) messages arrived.
func runGoConsumer(ctx context.Context, o *options, m *meter) error {
	rlog.SetLogLevel("error")
	target := o.quantity
	if o.mode == "consumer" && target == 0 {
		c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
		qs, err := resolveQueues(ctx, c, o, false)
		if err == nil {
			var ends []int64
			if ends, err = maxOffsets(ctx, c, o.topic, qs); err == nil {
				for _, e := range ends {
					target += e
				}
			}
		}
		_ = c.Shutdown(context.Background())
		if err != nil {
			return err
		}
		fmt.Printf("consuming backlog of %d messages\n", target)
	}
	from := consumer.ConsumeFromFirstOffset
	if o.from == "last" {
		from = consumer.ConsumeFromLastOffset
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var got atomic.Int64
	pc, err := consumer.NewPushConsumer(
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{o.namesrv})),
		consumer.WithGroupName(o.group), consumer.WithConsumeFromWhere(from),
		consumer.WithInstance("mqbench_"+strconv.FormatInt(time.Now().UnixNano(), 36)),
		consumer.WithConsumeGoroutineNums(o.threads),
	)
	if err != nil {
		return err
	}
	err = pc.Subscribe(o.topic, consumer.MessageSelector{}, func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		now := time.Now().UnixMilli()
		for _, msg := range msgs {
			m.record(1, time.Duration(now-msg.BornTimestamp)*time.Millisecond)
		}
		if n := got.Add(int64(len(msgs))); target > 0 && n >= target {
			cancel()
		}
		return consumer.ConsumeSuccess, nil
	})
	if err != nil {
		return err
	}
	if err := pc.Start(); err != nil {
		return err
	}
	<-ctx.Done()
	return pc.Shutdown()
}
