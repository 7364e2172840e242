package timer

import (
	"context"
	"math"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/consumequeue"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/service"
)

// scanInterval is how often the service looks for new and due messages
// when not woken: well under the 1 s precision.
const scanInterval = 100 * time.Millisecond

// Store is what the service needs from the message store
// (*store.DefaultMessageStore implements it).
type Store interface {
	ConsumeQueue(topic string, queueID int32) *consumequeue.ConsumeQueue
	LookMessageByOffset(commitLogOffset int64) (*message.MessageExt, error)
	PutMessage(m *message.MessageExt) commitlog.PutMessageResult
}

// Options configures a Service.
type Options struct {
	// CheckpointPath is <storeRoot>/timercheck.
	CheckpointPath string
	// FlushInterval is timerFlushIntervalMs (1 s when 0).
	FlushInterval time.Duration
	// Now is the clock; nil → time.Now.
	Now func() time.Time
	// Logger; nil → zap.NewNop().
	Logger *zap.Logger
}

// Service ingests rmq_sys_wheel_timer queue 0 and delivers due messages.
// One goroutine (tick) owns the index and cursors; mu guards only the
// last persisted checkpoint and the counters others read.
type Service struct {
	st    Store
	path  string
	flush time.Duration
	now   func() time.Time
	lg    *zap.Logger
	svc   *service.Service

	// runMu is held by each tick and by Persist, so a Persist from outside
	// (a broker shutting down while a controller-mode master term's service
	// is still running) never reads the state below mid-tick.
	runMu sync.Mutex

	// Owned by the service goroutine (under runMu).
	idx    index
	ingest int64 // next queue offset to read
	// settled and settledUntil are the loaded checkpoint's settled key and
	// IngestOffset: units below settledUntil with a key below settled were
	// delivered (they may appear only later on a lagging slave's queue).
	settled      entry
	settledUntil int64
	recovered    bool
	lastPersist  time.Time

	mu        sync.Mutex
	ckpt      Checkpoint // last persisted
	delivered int64
	scheduled int64
}

// NewService returns a stopped service.
func NewService(st Store, o Options) *Service {
	s := &Service{st: st, path: o.CheckpointPath, flush: o.FlushInterval, now: o.Now, lg: o.Logger}
	if s.flush <= 0 {
		s.flush = time.Second
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.lg == nil {
		s.lg = zap.NewNop()
	}
	s.svc = service.New("TimerMessageService", scanInterval, s.tick)
	return s
}

// Service is the goroutine for an owner that starts and stops services;
// stopping it does not persist (call Persist afterwards).
func (s *Service) Service() *service.Service { return s.svc }

// Start starts the service.
func (s *Service) Start() { s.svc.Start() }

// Wakeup makes the service look at the queue now (a timer message arrived).
func (s *Service) Wakeup() { s.svc.Wakeup() }

// Stop stops the service and persists its checkpoint.
func (s *Service) Stop(ctx context.Context) error {
	err := s.svc.Stop(ctx)
	if perr := s.Persist(); perr != nil && err == nil {
		err = perr
	}
	return err
}

// Stats are the counters since start: messages ingested into the index
// and messages delivered to their real topic.
func (s *Service) Stats() (scheduled, delivered int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scheduled, s.delivered
}

// Checkpoint is the last persisted checkpoint.
func (s *Service) Checkpoint() Checkpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ckpt
}

// tick recovers once, ingests new units, delivers due ones and persists
// the checkpoint every FlushInterval.
func (s *Service) tick(ctx context.Context) {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if !s.recovered {
		s.recover(ctx)
		if ctx.Err() != nil {
			return
		}
		s.recovered = true
		s.lastPersist = s.now()
	}
	s.ingestNew(ctx)
	s.deliverDue(ctx)
	if s.now().Sub(s.lastPersist) >= s.flush {
		s.lastPersist = s.now()
		if err := s.persistOwned(); err != nil {
			s.lg.Error("persist timer checkpoint", zap.Error(err))
		}
	}
}

// recover loads the checkpoint and re-reads the queue from its MinPending to
// its IngestOffset, keeping the units not yet settled.
func (s *Service) recover(ctx context.Context) {
	c, err := LoadCheckpoint(s.path)
	if err != nil {
		s.lg.Error("load timer checkpoint, re-reading the whole timer queue", zap.Error(err))
	}
	cq := s.st.ConsumeQueue(Topic, 0)
	from, to := c.MinPending, c.IngestOffset
	if cq != nil {
		from = max(from, cq.MinOffsetInQueue())
		to = min(max(to, from), cq.MaxOffsetInQueue())
	} else {
		from, to = 0, 0
	}
	s.settled, s.settledUntil = entry{deliverAt: c.SettledAt, qo: c.SettledQo}, c.IngestOffset
	s.ingest = from
	s.read(ctx, cq, to, s.pending)
	s.mu.Lock()
	s.ckpt = c
	s.mu.Unlock()
	s.lg.Info("timer index recovered", zap.Int64("fromOffset", from), zap.Int64("toOffset", to),
		zap.Int("pending", len(s.idx)))
}

// ingestNew reads every unit from the ingest cursor to the queue's end.
func (s *Service) ingestNew(ctx context.Context) {
	cq := s.st.ConsumeQueue(Topic, 0)
	if cq == nil {
		return
	}
	if lo := cq.MinOffsetInQueue(); s.ingest < lo {
		s.ingest = lo
	} else if hi := cq.MaxOffsetInQueue(); s.ingest > hi {
		// The queue was destroyed and re-created (every unit expired) or
		// cut back: its offsets restart below the cursor.
		s.lg.Warn("timer queue behind the ingest cursor, reading from its start",
			zap.Int64("queueOffset", s.ingest), zap.Int64("maxOffset", hi))
		s.ingest = lo
	}
	s.read(ctx, cq, cq.MaxOffsetInQueue(), s.pending)
}

// pending reports whether e may still need delivery per the checkpoint
// loaded at start.
func (s *Service) pending(e entry) bool {
	return e.qo >= s.settledUntil || !e.less(s.settled)
}

// read indexes the units in [s.ingest, to) that keep accepts and moves
// the cursor past what it read.
func (s *Service) read(ctx context.Context, cq *consumequeue.ConsumeQueue, to int64, keep func(entry) bool) {
	for cq != nil && s.ingest < to && ctx.Err() == nil {
		u := cq.Units(s.ingest)
		if u == nil {
			return
		}
		n := 0
		for i := 0; i < u.Len() && s.ingest < to; i++ {
			phy, _, _ := u.At(i)
			if e, ok := s.load(phy, s.ingest); ok && keep(e) {
				s.idx.push(e)
				n++
			}
			s.ingest++
		}
		u.Release()
		s.mu.Lock()
		s.scheduled += int64(n)
		s.mu.Unlock()
	}
}

// load reads the timer message at phy; false if it is unreadable or has
// no valid TIMER_OUT_MS (it is then skipped for good).
func (s *Service) load(phy, qo int64) (entry, bool) {
	m, err := s.st.LookMessageByOffset(phy)
	if err != nil || m == nil {
		s.lg.Warn("timer message not readable, skipped", zap.Int64("commitLogOffset", phy),
			zap.Int64("queueOffset", qo), zap.Error(err))
		return entry{}, false
	}
	at, ok := DeliverAt(m.PropertiesString)
	if !ok {
		s.lg.Warn("timer message without TIMER_OUT_MS, skipped", zap.Int64("commitLogOffset", phy),
			zap.String("msgId", m.MsgID))
		return entry{}, false
	}
	return entry{deliverAt: at, qo: qo, phy: phy, enqueueMs: s.now().UnixMilli()}, true
}

// deliverDue re-puts every due message in key order; a failed put stops the
// round (retried next tick).
func (s *Service) deliverDue(ctx context.Context) {
	for len(s.idx) > 0 && ctx.Err() == nil {
		e := s.idx[0]
		now := s.now().UnixMilli()
		if e.deliverAt > now {
			return
		}
		if !s.deliver(e, now) {
			return
		}
		s.idx.pop()
		s.mu.Lock()
		s.delivered++
		s.mu.Unlock()
	}
}

// deliver puts the message of e to its real topic; false means try again
// later (nothing settled).
func (s *Service) deliver(e entry, now int64) bool {
	m, err := s.st.LookMessageByOffset(e.phy)
	if err != nil || m == nil {
		s.lg.Warn("timer message not readable at delivery, dropped", zap.Int64("commitLogOffset", e.phy), zap.Error(err))
		return true
	}
	out, ok := convert(m, e.enqueueMs, now)
	if !ok {
		s.lg.Error("bad real topic of timer message, dropped", zap.String("msgId", m.MsgID))
		return true
	}
	r := s.st.PutMessage(out)
	switch r.Status {
	case commitlog.PutOK, commitlog.FlushDiskTimeout, commitlog.FlushSlaveTimeout, commitlog.SlaveNotAvailable:
		return true // appended: never written twice
	}
	s.lg.Warn("deliver timer message failed, will retry", zap.String("topic", out.Topic),
		zap.String("msgId", m.MsgID), zap.Stringer("status", r.Status))
	return false
}

// Persist writes the current checkpoint; while the service runs it waits
// for the tick in progress.
func (s *Service) Persist() error {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if !s.recovered {
		return nil // nothing learned: keep the file as it is
	}
	return s.persistOwned()
}

func (s *Service) persistOwned() error {
	c := Checkpoint{IngestOffset: s.ingest, MinPending: s.idx.minQo(s.ingest),
		SettledAt: math.MaxInt64, SettledQo: math.MaxInt64}
	if len(s.idx) > 0 {
		c.SettledAt, c.SettledQo = s.idx[0].deliverAt, s.idx[0].qo
	}
	if err := PersistCheckpoint(s.path, c); err != nil {
		return err
	}
	s.mu.Lock()
	s.ckpt = c
	s.mu.Unlock()
	return nil
}
