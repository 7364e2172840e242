package store

import (
	"time"

	"go.uber.org/zap"
)

// phaseClock times the steps of Open and Start (lock and checkpoint, the
// loads, each recovery step, the dispatcher's catch-up) and logs each at
// Info as it ends, as Apache logs its recovery steps, so a slow start
// shows which step was slow.
type phaseClock struct {
	lg    *zap.Logger
	begin time.Time
	last  time.Time
}

func newPhaseClock(lg *zap.Logger) *phaseClock {
	now := time.Now()
	return &phaseClock{lg: lg, begin: now, last: now}
}

// done logs the step that ends now with the time since the previous one.
func (p *phaseClock) done(phase string, fields ...zap.Field) {
	now := time.Now()
	p.lg.Info("store recovery phase", append([]zap.Field{zap.String("phase", phase),
		zap.Duration("took", now.Sub(p.last))}, fields...)...)
	p.last = now
}

// total logs the time since the clock was made.
func (p *phaseClock) total(what string) {
	p.lg.Info(what, zap.Duration("took", time.Since(p.begin)))
}
