package broker

// config/consumerOrderInfo.json: the FIFO-pop table (pop.OrderInfo), loaded
// at start and written every flushConsumerOffsetInterval when it changed
// and at shutdown, as 5.x's ConsumerOrderInfoManager (a ConfigManager
// persisted with the consumer offsets). The write runs with no lock held.

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/configfile"
	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// orderPersister writes the FIFO table when it changed.
type orderPersister struct {
	p    *popProcessor
	path string
	mu   sync.Mutex // orders the writes; held across one file write
	done int64      // version last written; guarded by mu
}

func (p *popProcessor) wireOrderPersist() {
	op := &orderPersister{p: p, path: filepath.Join(p.b.storeCfg.ConfigDir(), "consumerOrderInfo.json")}
	err := configfile.LoadLogged(p.lg, "consumer order info", op.path, func(data []byte) error {
		norm, err := body.Normalize(data)
		if err != nil {
			return err
		}
		return p.orders.Decode(norm)
	})
	if err != nil {
		p.lg.Warn("consumer order info not loaded", zap.Error(err))
	}
	op.done = p.orders.Version()
	interval := time.Duration(max(p.b.Config().FlushConsumerOffsetInterval, 100)) * time.Millisecond
	p.b.addService(service.New("ConsumerOrderInfoPersist", interval, func(context.Context) { op.persist() }))
	p.b.onShutdown(func(context.Context) { op.persist() })
}

func (op *orderPersister) persist() {
	op.mu.Lock()
	defer op.mu.Unlock()
	data, ver := op.p.orders.Encode()
	if ver == op.done {
		return
	}
	if err := configfile.PersistPretty(op.path, data); err != nil {
		op.p.lg.Error("persist consumer order info", zap.String("path", op.path), zap.Error(err))
		return
	}
	op.done = ver
}
