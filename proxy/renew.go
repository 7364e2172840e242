package proxy

// Auto renewal of the receipt handles of auto_renew receives (push
// consumers), as 5.x's DefaultReceiptHandleManager does: the proxy pops
// with the default invisible time and, while the client holds a message,
// extends its invisible time shortly before it runs out. Ack, change and
// DLQ take the held handle out (handleOf) and use the newest one.

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/message"
)

type heldKey struct{ group, msgID string }

type heldHandle struct {
	clientID string // who received it
	topic    string
	handle   ReceiptHandle
	since    time.Time // first pop
	renewing bool      // a change is in flight
	// renewed is closed when the in-flight change has stored its result.
	renewed chan struct{}
}

// renewer holds and renews handles; its loop runs on the server's
// goroutine until the server stops.
type renewer struct {
	c    *consumer
	mu   sync.Mutex // guards held; never held across a broker call
	held map[heldKey]*heldHandle
	// alive reports whether a client is still connected; the handles of a
	// gone client are given back (visible again after a second) instead of
	// renewed, as 5.x's ReceiptHandleManager does for offline clients.
	alive func(clientID string) bool
	// as returns a context signing as the client's account (ACL); nil:
	// unsigned.
	as func(clientID string) context.Context
}

func newRenewer(c *consumer, alive func(clientID string) bool) *renewer {
	return &renewer{c: c, held: map[heldKey]*heldHandle{}, alive: alive}
}

// run renews due handles every period until stop is closed.
func (r *renewer) run(stop <-chan struct{}, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r.renewDue()
		}
	}
}

// hold starts renewing the handles of popped messages.
func (r *renewer) hold(clientID, group, topic string, msgs []*message.MessageExt) {
	now := r.c.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range msgs {
		h, err := ParseReceiptHandle(m.Properties[propPopCK])
		if err != nil {
			continue
		}
		r.held[heldKey{group, messageIDOf(m)}] = &heldHandle{clientID: clientID, topic: topic, handle: h, since: now}
	}
}

// release stops renewing a message and returns its newest handle.
// If a renewal of the message is in flight it waits for it (at most the
// renewal's 3 s bound): the handle it is about to store is the only one
// the broker still honours.
func (r *renewer) release(group, msgID string) (string, bool) {
	k := heldKey{group, msgID}
	r.mu.Lock()
	hh, ok := r.held[k]
	if ok && hh.renewing {
		done := hh.renewed
		r.mu.Unlock()
		<-done
		r.mu.Lock()
		hh, ok = r.held[k]
	}
	defer r.mu.Unlock()
	if !ok {
		return "", false
	}
	delete(r.held, k)
	return hh.handle.Encode(), true
}

// renewDue extends every held handle that expires within the renew-ahead
// time; handles held longer than the renew maximum are dropped and left to
// expire, like 5.x.
func (r *renewer) renewDue() {
	cfg := r.c.cfg
	now := r.c.now()
	ahead := now.Add(time.Duration(cfg.RenewAheadTimeMillis) * time.Millisecond).UnixMilli()
	type job struct {
		k     heldKey
		hh    heldHandle
		clear bool // the client is gone: make the message visible again soon
	}
	var jobs []job
	r.mu.Lock()
	for k, hh := range r.held {
		switch {
		case now.Sub(hh.since) > time.Duration(cfg.RenewMaxTimeMillis)*time.Millisecond, hh.handle.Expired(now):
			delete(r.held, k)
		case r.alive != nil && !r.alive(hh.clientID):
			delete(r.held, k)
			jobs = append(jobs, job{k, *hh, true})
		case !hh.renewing && hh.handle.NextVisibleTime() <= ahead:
			hh.renewing, hh.renewed = true, make(chan struct{})
			jobs = append(jobs, job{k, *hh, false})
		}
	}
	r.mu.Unlock()
	for _, j := range jobs {
		ms := cfg.DefaultInvisibleTimeMills
		if j.clear {
			ms = nackInvisible.Milliseconds()
		}
		base := context.Background()
		if r.as != nil {
			base = r.as(j.hh.clientID)
		}
		ctx, cancel := context.WithTimeout(base, 3*time.Second)
		n, err := r.c.changeInvisible(ctx, j.hh.handle, j.k.group, j.hh.topic, ms)
		cancel()
		r.mu.Lock()
		// Only the entry this job renewed (a message popped again since is
		// a new entry with its own handle).
		if cur, ok := r.held[j.k]; ok && !j.clear && cur.renewing && cur.renewed == j.hh.renewed {
			cur.renewing = false
			if err == nil {
				cur.handle = n
			}
			close(cur.renewed)
		}
		r.mu.Unlock()
		if err != nil {
			r.c.lg.Warn("renewing a receipt handle failed", zap.String("group", j.k.group),
				zap.String("msgId", j.k.msgID), zap.Error(err))
		}
	}
}
