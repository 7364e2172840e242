package service

import (
	"context"
	"sync"
	"time"
)

// Service owns one goroutine that calls run periodically and on Wakeup.
type Service struct {
	name     string
	interval time.Duration
	run      func(ctx context.Context)

	wake chan struct{} // buffered(1): pending wakeup
	done chan struct{} // closed when the goroutine has returned

	mu      sync.Mutex
	started bool
	stopped bool
	cancel  context.CancelFunc
}

// New returns a stopped service. interval <= 0 means run only on Wakeup.
func New(name string, interval time.Duration, run func(ctx context.Context)) *Service {
	return &Service{
		name:     name,
		interval: interval,
		run:      run,
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
}

// Name returns the name given to New.
func (s *Service) Name() string { return s.name }

// Start spawns the goroutine; later calls and calls after Stop do nothing.
func (s *Service) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.stopped {
		return
	}
	s.started = true
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.loop(ctx)
}

// Wakeup asks for a run as soon as the current one (if any) returns.
func (s *Service) Wakeup() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Stop cancels the run context and waits for the goroutine, or for ctx.
func (s *Service) Stop(ctx context.Context) error {
	s.mu.Lock()
	wasStarted := s.started && !s.stopped
	s.stopped = true
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	if !wasStarted && s.cancel == nil {
		return nil
	}
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Service) loop(ctx context.Context) {
	defer close(s.done)
	var tick <-chan time.Time
	if s.interval > 0 {
		t := time.NewTicker(s.interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-tick:
		}
		if ctx.Err() != nil {
			return
		}
		s.run(ctx)
	}
}
