package broker

// Timer message delivery (broker/timer) wired into the broker: the service
// runs on a master only, is woken when a message lands in the timer topic,
// and persists <storeRoot>/timercheck at shutdown. GET_TIMER_CHECK_POINT
// (5.x AdminBrokerProcessor.getTimerCheckPoint) serves the checkpoint, in
// our timercheck layout, to the slave, which keeps a copy as it keeps the
// delay offsets (5.x SlaveSynchronize.syncTimerCheckPoint).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/timer"
	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func init() { processorFamilies = append(processorFamilies, registerTimerDelivery) }

// timerServices maps a *Broker to its timer service (TimerService); entries
// are removed at shutdown.
var timerServices sync.Map

func registerTimerDelivery(b *Broker) {
	b.registerProcessor(code.GetTimerCheckPoint, remoting.ProcessorFunc(b.getTimerCheckPoint), b.Pools.Admin, true)
	st, ok := b.store.(timer.Store)
	if !b.storeCfg.TimerWheelEnable || !ok || b.IsSlave() && !b.Config().EnableControllerMode {
		return
	}
	opts := timer.Options{
		CheckpointPath: b.timerCheckpointPath(),
		FlushInterval:  time.Duration(b.storeCfg.TimerFlushIntervalMs) * time.Millisecond,
		Logger:         b.lg.Named("timer"),
	}
	b.OnArriving(func(topic string, _ int32, _, _, _ int64, _ []byte, _ map[string]string) {
		if topic != timer.Topic {
			return
		}
		if s := b.TimerService(); s != nil {
			s.Wakeup()
		}
	})
	// A master-only service: in controller mode each master term builds its
	// own, recovering from the timercheck file (its own periodic persist, or
	// the copy synced from the master while it was a slave), so a broker
	// promoted at run time delivers too; delivery is at least once.
	b.addMasterService(func() *service.Service {
		s := timer.NewService(st, opts)
		timerServices.Store(b, s)
		return s.Service()
	})
	b.onShutdown(func(context.Context) {
		if s := b.TimerService(); s != nil {
			if err := s.Persist(); err != nil {
				b.lg.Error("persist timer checkpoint", zap.Error(err))
			}
		}
		timerServices.Delete(b)
	})
}

// TimerService is the timer message service; nil on a slave, when
// timerWheelEnable is false, or after Shutdown.
func (b *Broker) TimerService() *timer.Service {
	if b.IsSlave() {
		return nil // a controller-mode broker keeps its last term's service
	}
	if s, ok := timerServices.Load(b); ok {
		return s.(*timer.Service)
	}
	return nil
}

// timerCheckpointPath is <storeRoot>/timercheck.
func (b *Broker) timerCheckpointPath() string {
	return filepath.Join(b.storeCfg.StorePathRootDir, "timercheck")
}

// getTimerCheckPoint answers the live checkpoint on a master, the synced
// copy on a slave; without either, 5.x's SYSTEM_ERROR.
func (b *Broker) getTimerCheckPoint(*remoting.Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var data []byte
	if s := b.TimerService(); s != nil {
		data = s.Checkpoint().Encode()
	} else if raw, err := os.ReadFile(b.timerCheckpointPath()); err == nil {
		if _, err := timer.DecodeCheckpoint(raw); err == nil {
			data = raw
		}
	}
	if data == nil {
		return codec.NewResponse(code.SystemError, "The checkpoint is null"), nil
	}
	resp := codec.NewResponse(code.Success, "")
	resp.Body = data
	return resp, nil
}

// syncTimerCheckPoint copies the master's timer checkpoint to this slave's
// timercheck, so that a slave restarted as master resumes where the master
// was instead of delivering the whole timer queue again.
func (b *Broker) syncTimerCheckPoint(ctx context.Context, master string) error {
	if !b.IsSlave() || !b.storeCfg.TimerWheelEnable {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, slaveSyncTimeout)
	defer cancel()
	resp, err := b.outAPI.Client().InvokeSync(ctx, master, codec.NewRequest(code.GetTimerCheckPoint, nil, nil))
	if err != nil {
		return err
	}
	if resp.Code != code.Success {
		return fmt.Errorf("broker: timer checkpoint: code %d remark %q", resp.Code, resp.Remark)
	}
	c, err := timer.DecodeCheckpoint(resp.Body)
	if err != nil {
		return err
	}
	return timer.PersistCheckpoint(b.timerCheckpointPath(), c)
}
