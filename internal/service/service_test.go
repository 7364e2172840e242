package service

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestServiceWakeupRunsOnce(t *testing.T) {
	var n atomic.Int32
	ran := make(chan struct{}, 10)
	s := New("t", 0, func(context.Context) { n.Add(1); ran <- struct{}{} })
	s.Start()
	s.Wakeup()
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("wakeup did not run")
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 1 {
		t.Fatalf("ran %d times", n.Load())
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal("second stop:", err)
	}
}

func TestServiceIntervalAndStopCancelsRun(t *testing.T) {
	var n atomic.Int32
	s := New("t", time.Millisecond, func(ctx context.Context) {
		if n.Add(1) == 3 {
			<-ctx.Done() // blocks until Stop cancels
		}
	})
	s.Start()
	deadline := time.Now().Add(5 * time.Second)
	for n.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 3 {
		t.Fatalf("runs %d", n.Load())
	}
}

func TestServiceStopWithoutStart(t *testing.T) {
	s := New("t", time.Second, func(context.Context) { t.Fatal("ran") })
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Start() // refused after Stop
	s.Wakeup()
}
