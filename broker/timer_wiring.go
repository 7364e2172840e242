package broker

// Timer message delivery (broker/timer) wired into the broker: the service
// runs on a master only, is woken when a message lands in the timer topic,
// and persists <storeRoot>/timercheck at shutdown.

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/timer"
)

func init() { processorFamilies = append(processorFamilies, registerTimerDelivery) }

// timerServices maps a *Broker to its timer service (TimerService); entries
// are removed at shutdown.
var timerServices sync.Map

func registerTimerDelivery(b *Broker) {
	st, ok := b.store.(timer.Store)
	if b.IsSlave() || !b.storeCfg.TimerWheelEnable || !ok {
		return
	}
	s := timer.NewService(st, timer.Options{
		CheckpointPath: filepath.Join(b.storeCfg.StorePathRootDir, "timercheck"),
		FlushInterval:  time.Duration(b.storeCfg.TimerFlushIntervalMs) * time.Millisecond,
		Logger:         b.lg.Named("timer"),
	})
	b.OnArriving(func(topic string, _ int32, _, _, _ int64, _ []byte, _ map[string]string) {
		if topic == timer.Topic {
			s.Wakeup()
		}
	})
	timerServices.Store(b, s)
	b.addService(s.Service())
	b.onShutdown(func(context.Context) {
		if err := s.Persist(); err != nil {
			b.lg.Error("persist timer checkpoint", zap.Error(err))
		}
		timerServices.Delete(b)
	})
}

// TimerService is the timer message service; nil on a slave, when
// timerWheelEnable is false, or after Shutdown.
func (b *Broker) TimerService() *timer.Service {
	if s, ok := timerServices.Load(b); ok {
		return s.(*timer.Service)
	}
	return nil
}
