package proxy

// Auto renewal of the receipt handles of auto_renew receives (push
// consumers), as 5.x's DefaultReceiptHandleManager does: the proxy pops
// with the default invisible time and, while the client holds a message,
// extends its invisible time shortly before it runs out. Ack, change and
// DLQ take the held handle out (handleOf) and use the newest one.
//
// Held handles are keyed as 5.x's ReceiptHandleGroupKey + HandleKey: the
// receiving client and group, then the message id and the message's place
// (broker, topic kind, queue, offset). A call takes a held handle out only
// when it comes from that client with the very handle that pop gave it, so
// a stale handle, or another client of the group, never stops a renewal.

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// renewConcurrency bounds the renewals in flight at once (5.x runs them on
// a pool of renewMaxThreadPoolNums threads, as async calls).
const renewConcurrency = 16

// renewCallTimeout bounds one renewal or give-back call.
const renewCallTimeout = 3 * time.Second

type heldKey struct {
	clientID, group, msgID string
	brokerName, topicType  string
	queueID                int32
	offset                 int64
}

// heldKeyOf is the key of the handle orig that clientID received.
func heldKeyOf(clientID, group, msgID string, orig ReceiptHandle) heldKey {
	return heldKey{clientID: clientID, group: group, msgID: msgID, brokerName: orig.BrokerName,
		topicType: orig.TopicType, queueID: orig.QueueID, offset: orig.Offset}
}

type heldHandle struct {
	orig     string       // the handle the client got from its receive
	creds    *credentials // the account the receive was admitted as; nil: none
	topic    string
	handle   ReceiptHandle
	since    time.Time // first pop
	renewing bool      // a change is in flight
	// renewed is closed when the in-flight change is over (whether or
	// not this entry is still held then).
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
	// slots bounds the renewal calls in flight; wg waits for them.
	slots chan struct{}
	wg    sync.WaitGroup
}

func newRenewer(c *consumer, alive func(clientID string) bool) *renewer {
	return &renewer{c: c, held: map[heldKey]*heldHandle{}, alive: alive,
		slots: make(chan struct{}, renewConcurrency)}
}

// run renews due handles every period until stop is closed, then waits
// for the renewals in flight.
func (r *renewer) run(stop <-chan struct{}, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	defer r.wg.Wait()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r.renewDue(stop)
		}
	}
}

// hold starts renewing the handles of popped messages; ctx is the
// receive's, whose account (ACL) later renewals and give-backs sign as.
func (r *renewer) hold(ctx context.Context, clientID, group, topic string, msgs []*message.MessageExt) {
	creds, _ := ctx.Value(credKey{}).(*credentials)
	now := r.c.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range msgs {
		raw := m.Properties[propPopCK]
		h, err := ParseReceiptHandle(raw)
		if err != nil {
			continue
		}
		id := messageIDOf(m)
		r.held[heldKeyOf(clientID, group, id, h)] = &heldHandle{orig: raw, creds: creds, topic: topic, handle: h, since: now}
	}
}

// errHandleBusy is what a call gets when the message's handle is still
// being renewed when its context ends (5.x: "try to remove and get handle
// failed").
var errHandleBusy = errStatus(apiv2.Code_INTERNAL_SERVER_ERROR, "try to remove and get handle failed")

// release stops renewing the message clientID received with handle sent
// and returns its newest handle; false when no such handle is held (the
// caller then uses sent). If a renewal of it is in flight it waits for it,
// at most until ctx ends: the handle the renewal is about to store is the
// only one the broker still honours.
func (r *renewer) release(ctx context.Context, clientID, group, msgID, sent string) (string, bool, error) {
	orig, err := ParseReceiptHandle(sent)
	if err != nil {
		return "", false, nil
	}
	k := heldKeyOf(clientID, group, msgID, orig)
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		hh, ok := r.held[k]
		if !ok || hh.orig != sent {
			return "", false, nil
		}
		if !hh.renewing {
			delete(r.held, k)
			return hh.handle.Encode(), true, nil
		}
		done := hh.renewed
		r.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			r.mu.Lock()
			return "", false, errHandleBusy
		}
		r.mu.Lock()
	}
}

// renewJob is one renewal or give-back of a held handle.
type renewJob struct {
	k     heldKey
	hh    heldHandle
	clear bool // the client is gone: make the message visible again soon
}

// renewDue extends every held handle that expires within the renew-ahead
// time, at most renewConcurrency at once; handles held longer than the
// renew maximum are dropped and left to expire, like 5.x. It returns once
// every renewal has started (or stop is closed).
func (r *renewer) renewDue(stop <-chan struct{}) {
	for _, j := range r.dueJobs() {
		select {
		case r.slots <- struct{}{}:
		case <-stop:
			r.finish(j, ReceiptHandle{}, context.Canceled)
			continue
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer func() { <-r.slots }()
			r.renewOne(j)
		}()
	}
}

// dueJobs takes the handles to renew or give back out of the table (or
// marks them renewing).
func (r *renewer) dueJobs() []renewJob {
	cfg := r.c.cfg
	now := r.c.now()
	ahead := now.Add(time.Duration(cfg.RenewAheadTimeMillis) * time.Millisecond).UnixMilli()
	var jobs []renewJob
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, hh := range r.held {
		switch {
		case now.Sub(hh.since) > time.Duration(cfg.RenewMaxTimeMillis)*time.Millisecond, hh.handle.Expired(now):
			if !hh.renewing {
				delete(r.held, k)
			}
		case r.alive != nil && !r.alive(k.clientID):
			if !hh.renewing {
				delete(r.held, k)
				jobs = append(jobs, renewJob{k, *hh, true})
			}
		case !hh.renewing && hh.handle.NextVisibleTime() <= ahead:
			hh.renewing, hh.renewed = true, make(chan struct{})
			jobs = append(jobs, renewJob{k, *hh, false})
		}
	}
	return jobs
}

// renewOne makes one change call, signed as the account the message was
// received as, and stores its result.
func (r *renewer) renewOne(j renewJob) {
	ms := r.c.cfg.DefaultInvisibleTimeMills
	if j.clear {
		ms = nackInvisible.Milliseconds()
	}
	ctx, cancel := context.WithTimeout(asCreds(j.hh.creds), renewCallTimeout)
	n, err := r.c.changeInvisible(ctx, j.hh.handle, j.k.group, j.hh.topic, ms)
	cancel()
	r.finish(j, n, err)
	if err != nil {
		r.c.lg.Warn("renewing a receipt handle failed", zap.String("group", j.k.group),
			zap.String("msgId", j.k.msgID), zap.Bool("giveBack", j.clear), zap.Error(err))
	}
}

// finish stores a renewal's new handle in the entry it renewed, if that
// entry is still held, and wakes whoever waits for the renewal.
func (r *renewer) finish(j renewJob, n ReceiptHandle, err error) {
	if j.clear {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// A message popped again since is a new entry with its own handle.
	if cur, ok := r.held[j.k]; ok && cur.renewing && cur.renewed == j.hh.renewed {
		cur.renewing = false
		if err == nil {
			cur.handle = n
		}
	}
	close(j.hh.renewed)
}
