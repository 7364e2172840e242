package main

import (
	"context"
	"fmt"
	"os"
	"sync"
)

// runMode runs the producer, the consumer or both for o.duration.
func runMode(ctx context.Context, o *options) error {
	if o.prefillCount > 0 {
		if err := prefill(ctx, o); err != nil {
			return err
		}
	}
	if o.topics > 0 {
		_, err := runTopics(ctx, o)
		return err
	}
	switch o.mode {
	case "producer":
		s, err := newSender(ctx, o)
		if err != nil {
			return err
		}
		warmUp(ctx, o, s)
		runProducer(ctx, o, s, o.quantity, "Send", false)
		return nil
	case "consumer":
		return runConsumer(ctx, o)
	case "both":
		s, err := newSender(ctx, o)
		if err != nil {
			return err
		}
		var wg sync.WaitGroup
		var cerr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			cerr = runConsumer(ctx, o)
		}()
		runProducer(ctx, o, s, o.quantity, "Send", false)
		wg.Wait()
		return cerr
	}
	return fmt.Errorf("unknown -mode %q (producer, consumer or both)", o.mode)
}

// runConsumer consumes for o.duration and prints TPS and born→receipt
// latency every interval.
func runConsumer(ctx context.Context, o *options) error {
	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	m := newMeter("Consume(B2C)")
	stop := startReporter(m, o, false)
	var err error
	switch o.client {
	case "raw":
		err = runRawConsumer(ctx, o, m)
	case "go":
		err = runGoConsumer(ctx, o, m)
	default:
		err = fmt.Errorf("unknown -client %q (go or raw)", o.client)
	}
	stop()
	m.summary(os.Stdout, vmRSS(o.pid))
	return err
}

// warmUp runs the producer unmeasured for o.warmup.
func warmUp(ctx context.Context, o *options, s sender) {
	if o.warmup <= 0 {
		return
	}
	w := *o
	w.duration = o.warmup
	fmt.Printf("warming up for %v\n", o.warmup)
	runProducer(ctx, &w, keepOpen{s}, 0, "Warmup", true)
}

// keepOpen is a sender whose close does nothing (the warm-up's sender is
// reused by the measured run).
type keepOpen struct{ sender }

func (keepOpen) close() {}

// prefill sends o.prefillCount messages with the raw async sender (64
// threads) to build a backlog before consuming.
func prefill(ctx context.Context, o *options) error {
	p := *o
	p.client, p.async, p.threads, p.duration = "raw", true, 64, 10*o.duration
	s, err := newRawSender(ctx, &p)
	if err != nil {
		return err
	}
	fmt.Printf("prefilling %d messages\n", o.prefillCount)
	m := runProducer(ctx, &p, s, o.prefillCount, "Prefill", true)
	if f := m.total.failed.Load(); f > 0 {
		return fmt.Errorf("prefill: %d sends failed", f)
	}
	return nil
}
