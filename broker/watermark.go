package broker

// BrokerController's periodic health lines (4.9.8 initialize()): every
// second printWaterMark writes each request queue's length and how long its
// oldest request has waited to the RocketmqWaterMark logger (watermark.log),
// and every minute the CommitLog bytes not yet dispatched go to broker.log.
// Both start 10 s after the broker.

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting"
)

// wireWaterMark adds the services that write those lines (from wireStats,
// with the same schedule).
func wireWaterMark(b *Broker) {
	sch := b.statsSchedule
	wm := b.lg.Named("watermark")
	b.addService(service.New("printWaterMark", sch.WaterMark, afterDelay(sch.FirstDelay-sch.WaterMark, func() {
		b.printWaterMark(wm)
	})))
	b.addService(service.New("dispatchBehindLog", sch.DispatchBehind, afterDelay(sch.FirstDelay-sch.DispatchBehind, func() {
		b.lg.Info(fmt.Sprintf("dispatch behind commit log %d bytes", b.store.DispatchBehindBytes()))
	})))
}

// afterDelay runs f on each tick once delay has passed since the first
// tick, so that a service ticking every period first runs f about
// period+delay after it starts (Java's initialDelay).
func afterDelay(delay time.Duration, f func()) func(context.Context) {
	var first time.Time
	return func(context.Context) {
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		if now.Sub(first) >= delay {
			f()
		}
	}
}

// printWaterMark writes Java's four [WATERMARK] lines.
func (b *Broker) printWaterMark(lg *zap.Logger) {
	for _, q := range []struct {
		name string
		pool *remoting.Pool
	}{{"Send", b.Pools.Send}, {"Pull", b.Pools.Pull}, {"Query", b.Pools.Query}, {"Transaction", b.Pools.EndTransaction}} {
		lg.Info(fmt.Sprintf("[WATERMARK] %s Queue Size: %d SlowTimeMills: %d", q.name, b.QueueLen(q.pool), b.HeadWait(q.pool).Milliseconds()))
	}
}
