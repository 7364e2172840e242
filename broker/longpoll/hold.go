package longpoll

// PullRequestHoldService + ManyPullRequest + NotifyMessageArrivingListener
// (Apache RocketMQ 4.9.8 broker/longpolling).

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/service"
)

// Request is one held pull (Java PullRequest).
type Request struct {
	Topic   string
	QueueID int32
	// Offset is the queue offset the consumer asked for (pullFromThisOffset).
	Offset int64
	// SuspendTimestamp is when the request was parked (ms, store clock).
	SuspendTimestamp int64
	// TimeoutMillis is how long it may be held.
	TimeoutMillis int64
	// Filter decides whether an arriving message is worth a wake-up; nil
	// matches everything.
	Filter store.MessageFilter
	// Wakeup re-executes the pull; called exactly once, with no lock held.
	Wakeup func()
	// Abandoned, when set and true, drops the request without a wake-up
	// (its connection is gone).
	Abandoned func() bool
	// Dropped, when set, tells the request's connection that it will never
	// be answered: the service stopped while it was held (or it arrived
	// after Stop). Called at most once, instead of Wakeup, with no lock
	// held. Java leaves such a pull to the remoting server's shutdown,
	// which closes its channel.
	Dropped func()
}

type queueKey struct {
	topic   string
	queueID int32
}

// Options configures a Service.
type Options struct {
	// MaxOffset is the queue's current max offset (store.MaxOffsetInQueue).
	MaxOffset func(topic string, queueID int32) int64
	// Now is the clock in ms; nil → time.Now().UnixMilli().
	Now func() int64
	// Interval is how often every held request is re-checked: 5 s with
	// long polling, shortPollingTimeMills (1 s) without.
	Interval time.Duration
	// Logger; nil → zap.NewNop().
	Logger *zap.Logger
}

// Service is the PullRequestHoldService.
type Service struct {
	maxOffset func(topic string, queueID int32) int64
	now       func() int64
	lg        *zap.Logger
	svc       *service.Service

	mu    sync.Mutex
	table map[queueKey][]*Request // guarded by mu
	// stopped is set by Stop under mu; from then on nothing enters table,
	// so a request notify took out before Stop and would keep, or one
	// suspended after Stop, is dropped instead of being held for ever.
	stopped bool
	// afterTake, when set (tests only), runs in notify between taking a
	// queue's requests out of table and putting the kept ones back.
	afterTake func()
	// propHeld counts the held requests whose filter reads the arriving
	// message's properties; written under mu, read without it by
	// WantsArrivingProperties.
	propHeld atomic.Int64
	// held counts the requests in table; written under mu, read without
	// it by Arriving, which skips the lock while nothing is held. A
	// Suspend that returned before an Arriving began is counted by then,
	// so that arrival still takes the lock and wakes it.
	held atomic.Int64
}

// New returns a stopped service.
func New(o Options) *Service {
	s := &Service{maxOffset: o.MaxOffset, now: o.Now, lg: o.Logger, table: make(map[queueKey][]*Request)}
	if s.now == nil {
		s.now = func() int64 { return time.Now().UnixMilli() }
	}
	if s.lg == nil {
		s.lg = zap.NewNop()
	}
	if s.maxOffset == nil {
		s.maxOffset = func(string, int32) int64 { return 0 }
	}
	interval := o.Interval
	if interval <= 0 {
		interval = 5 * time.Second
	}
	s.svc = service.New("PullRequestHoldService", interval, func(context.Context) { s.Check() })
	return s
}

// Start starts the periodic check.
func (s *Service) Start() { s.svc.Start() }

// Periodic is the goroutine running the periodic check, for an owner that
// starts and stops its services itself (Stop still drops held requests).
func (s *Service) Periodic() *service.Service { return s.svc }

// Stop stops the periodic check and drops every held request, telling
// each through its Dropped func. Arrivals still wake requests a concurrent
// notify had taken out; the ones it would keep are dropped too, and a
// request suspended after Stop is dropped at once.
func (s *Service) Stop(ctx context.Context) error {
	err := s.svc.Stop(ctx)
	s.mu.Lock()
	s.stopped = true
	var all []*Request
	for k, l := range s.table {
		all = append(all, l...)
		delete(s.table, k)
	}
	s.propHeld.Store(0)
	s.held.Store(0)
	s.mu.Unlock()
	if len(all) > 0 {
		s.lg.Info("dropped held pull requests at shutdown", zap.Int("count", len(all)))
	}
	drop(all)
	return err
}

// drop tells each of rs that it will not be answered.
func drop(rs []*Request) {
	for _, r := range rs {
		if r.Dropped != nil {
			r.Dropped()
		}
	}
}

// Suspend parks r under its topic and queue (suspendPullRequest), or drops
// it once the service has stopped.
func (s *Service) Suspend(r *Request) {
	k := queueKey{r.Topic, r.QueueID}
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		drop([]*Request{r})
		return
	}
	s.table[k] = append(s.table[k], r)
	s.held.Add(1)
	s.propHeld.Add(countPropFilters(r))
	s.mu.Unlock()
}

// WantsArrivingProperties implements store.ArrivingPropertiesWanter: the
// properties of an arrival matter only to a held request whose filter
// reads them.
func (s *Service) WantsArrivingProperties() bool { return s.propHeld.Load() > 0 }

// countPropFilters is how many of rs have a filter that reads properties
// (a filter that cannot say is assumed to).
func countPropFilters(rs ...*Request) int64 {
	var n int64
	for _, r := range rs {
		if r.Filter == nil {
			continue
		}
		if m, ok := r.Filter.(store.PropertiesMatcher); ok && !m.UsesCommitLogProperties() {
			continue
		}
		n++
	}
	return n
}

// Len is the number of held requests (the held counter, kept with table
// under mu).
func (s *Service) Len() int { return int(s.held.Load()) }

// Check re-examines every held request against its queue's max offset and
// its timeout (checkHoldRequest).
func (s *Service) Check() {
	s.mu.Lock()
	keys := make([]queueKey, 0, len(s.table))
	for k := range s.table {
		keys = append(keys, k)
	}
	s.mu.Unlock()
	for _, k := range keys {
		s.notify(k, s.maxOffset(k.topic, k.queueID), nil)
	}
}

// arrival is what the store reported for one dispatched message.
type arrival struct {
	tagsCode   int64
	cqExt      *store.CqExtUnit
	properties map[string]string
}

// Arriving implements store.MessageArrivingListener: a message landed in
// topic/queueID and the queue's max offset is now maxOffset.
func (s *Service) Arriving(topic string, queueID int32, maxOffset, tagsCode, msgStoreTime int64,
	filterBitMap []byte, properties map[string]string) {
	if s.held.Load() == 0 {
		return // nothing held: no lock, no map lookup per dispatched message
	}
	a := &arrival{tagsCode: tagsCode, properties: properties}
	if filterBitMap != nil {
		a.cqExt = &store.CqExtUnit{TagsCode: tagsCode, MsgStoreTime: msgStoreTime, FilterBitMap: filterBitMap}
	}
	s.notify(queueKey{topic, queueID}, maxOffset, a)
}

// notify is notifyMessageArriving: wake the requests of k that now have
// something to read (and whose filter accepts the arrival, when there is
// one) or that timed out; keep the others.
func (s *Service) notify(k queueKey, maxOffset int64, a *arrival) {
	s.mu.Lock()
	held := s.table[k]
	delete(s.table, k)
	s.held.Add(-int64(len(held)))
	s.propHeld.Add(-countPropFilters(held...))
	s.mu.Unlock()
	if len(held) == 0 {
		return
	}
	if s.afterTake != nil {
		s.afterTake()
	}
	var keep, wake []*Request
	now := s.now()
	for _, r := range held {
		switch {
		case r.Abandoned != nil && r.Abandoned():
		case s.ready(r, maxOffset, a), now >= r.SuspendTimestamp+r.TimeoutMillis:
			wake = append(wake, r)
		default:
			keep = append(keep, r)
		}
	}
	if len(keep) > 0 && !s.putBack(k, keep) {
		drop(keep)
	}
	for _, r := range wake {
		r.Wakeup()
	}
}

// putBack returns kept requests to k's list, ahead of those suspended
// meanwhile; false once Stop has run (the caller drops them).
func (s *Service) putBack(k queueKey, keep []*Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return false
	}
	s.table[k] = append(keep, s.table[k]...)
	s.held.Add(int64(len(keep)))
	s.propHeld.Add(countPropFilters(keep...))
	return true
}

// ready reports whether r has a message to read: the newest offset is past
// its offset and the arriving message (if known) passes its filter.
func (s *Service) ready(r *Request, maxOffset int64, a *arrival) bool {
	newest := maxOffset
	if newest <= r.Offset {
		newest = s.maxOffset(r.Topic, r.QueueID)
	}
	if newest <= r.Offset {
		return false
	}
	if a == nil || r.Filter == nil {
		return true
	}
	if !r.Filter.IsMatchedByConsumeQueue(a.tagsCode, a.cqExt) {
		return false
	}
	return a.properties == nil || r.Filter.IsMatchedByCommitLog(nil, a.properties)
}
