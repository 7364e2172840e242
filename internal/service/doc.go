// Package service is the Go analogue of Java's ServiceThread: one goroutine
// that runs a function every interval, or at once when woken.
//
// Invariants: run is never called concurrently with itself; a Wakeup that
// arrives while run executes causes exactly one more immediate run (the wake
// channel is buffered(1), like ServiceThread.hasNotified); Stop cancels the
// context passed to run, waits for the goroutine and is idempotent.
//
// Usage:
//
//	s := service.New("flushCommitLog", 500*time.Millisecond, func(ctx context.Context) { flush() })
//	s.Start()
//	s.Wakeup()
//	_ = s.Stop(ctx)
package service
