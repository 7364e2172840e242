package transaction

// NewCheckService mirrors TransactionalMessageCheckService (4.9.8): every
// transactionCheckInterval, one check pass.

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/service"
)

// CheckConfig is what each pass reads from the live BrokerConfig.
type CheckConfig struct {
	TimeOut  time.Duration // transactionTimeOut
	CheckMax int           // transactionCheckMax
}

// NewCheckService returns the periodic check service (not started). The
// interval is read once, as Java reads transactionCheckInterval when its
// thread starts; timeout and max are read at every pass.
func NewCheckService(svc *Service, l Listener, interval time.Duration, cfg func() CheckConfig, lg *zap.Logger) *service.Service {
	if lg == nil {
		lg = zap.NewNop()
	}
	return service.New("TransactionalMessageCheckService", interval, func(ctx context.Context) {
		c := cfg()
		begin := time.Now()
		lg.Debug("begin to check prepare message")
		svc.Check(ctx, c.TimeOut, c.CheckMax, l)
		lg.Debug("end to check prepare message", zap.Duration("took", time.Since(begin)))
	})
}
