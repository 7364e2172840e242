package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// sender sends one send (o.batch messages) per call.
type sender interface {
	// sendSync returns after the broker answered.
	sendSync(ctx context.Context) (n int, err error)
	// sendAsync calls done from another goroutine once answered; an error
	// return means done will not be called.
	sendAsync(ctx context.Context, done func(n int, err error)) error
	close()
}

// msgTemplate is what every benchmark message carries: a fixed random body,
// an optional tag (Tag<i % tagCount>) and key.
type msgTemplate struct {
	body     []byte
	tagCount int
	keys     bool
	seq      atomic.Uint64
}

func newTemplate(o *options) *msgTemplate {
	b := make([]byte, o.size)
	_, _ = rand.Read(b)
	for i := range b { // printable, like Apache's benchmark body
		b[i] = 'a' + b[i]%26
	}
	return &msgTemplate{body: b, tagCount: o.tagCount, keys: o.keys}
}

// next returns the tag and key of the next message ("" when disabled).
func (m *msgTemplate) next() (tag, key string) {
	n := m.seq.Add(1)
	if m.tagCount > 0 {
		tag = "Tag" + strconv.FormatUint(n%uint64(m.tagCount), 10)
	}
	if m.keys {
		key = "key" + strconv.FormatUint(n, 10)
	}
	return tag, key
}

// runProducer drives o.threads sending loops until ctx ends, the duration
// passes or o.quantity messages were sent, printing a report every interval.
func runProducer(ctx context.Context, o *options, s sender, quantity int64, name string, quiet bool) *meter {
	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	m := newMeter(name)
	var reserved atomic.Int64
	take := func() bool {
		return ctx.Err() == nil && (quantity <= 0 || reserved.Add(int64(o.batch)) <= quantity)
	}
	stopReport := startReporter(m, o, quiet)
	// Sends already started finish even when the run's time is up.
	sendCtx := context.WithoutCancel(ctx)
	var wg sync.WaitGroup
	for range o.threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if o.async {
				asyncLoop(sendCtx, o, s, m, take)
			} else {
				syncLoop(sendCtx, s, m, take)
			}
		}()
	}
	wg.Wait()
	stopReport()
	s.close()
	m.summary(os.Stdout, vmRSS(o.pid))
	return m
}

func syncLoop(ctx context.Context, s sender, m *meter, take func() bool) {
	for take() {
		start := time.Now()
		n, err := s.sendSync(ctx)
		if err != nil {
			m.fail(int64(max(n, 1)), err)
			continue
		}
		m.record(int64(n), time.Since(start))
	}
}

// asyncLoop keeps up to o.inflight sends outstanding, then waits for all.
func asyncLoop(ctx context.Context, o *options, s sender, m *meter, take func() bool) {
	sem := make(chan struct{}, o.inflight)
	for take() {
		sem <- struct{}{}
		start := time.Now()
		err := s.sendAsync(ctx, func(n int, err error) {
			if err != nil {
				m.fail(int64(max(n, 1)), err)
			} else {
				m.record(int64(n), time.Since(start))
			}
			<-sem
		})
		if err != nil {
			m.fail(int64(o.batch), err)
			<-sem
		}
	}
	for range o.inflight {
		sem <- struct{}{}
	}
}

// startReporter prints m every interval until the returned func is called.
func startReporter(m *meter, o *options, quiet bool) func() {
	stop := make(chan struct{}) // closed to end the reporter
	done := make(chan struct{}) // closed when it has ended
	go func() {
		defer close(done)
		t := time.NewTicker(o.interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				m.last = time.Now()
				return
			case <-t.C:
				if quiet {
					m.last = time.Now()
					m.interval.reset()
				} else {
					m.report(os.Stdout, vmRSS(o.pid))
				}
			}
		}
	}()
	return func() { close(stop); <-done }
}

func newSender(ctx context.Context, o *options) (sender, error) {
	switch o.client {
	case "raw":
		return newRawSender(ctx, o)
	case "go":
		return newGoSender(o)
	}
	return nil, fmt.Errorf("unknown -client %q (go or raw)", o.client)
}
