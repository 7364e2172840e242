package schedule

// Delivery half of ScheduleMessageService (store/schedule, 4.9.8): per
// delay level, walk queue level-1 of SCHEDULE_TOPIC_XXXX from the recorded
// offset and re-put every message whose delivery time (the unit's tagsCode)
// has come to its real topic and queue, then advance the level's offset.

import (
	"context"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/consumequeue"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/service"
)

// Java's timer delays.
const (
	firstDelay     = time.Second            // FIRST_DELAY_TIME
	delayForAWhile = 100 * time.Millisecond // DELAY_FOR_A_WHILE: next look at a level
)

// transHalfTopic is TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC.
const transHalfTopic = "RMQ_SYS_TRANS_HALF_TOPIC"

// Store is what delivery needs from the message store
// (*store.DefaultMessageStore implements it).
type Store interface {
	ConsumeQueue(topic string, queueID int32) *consumequeue.ConsumeQueue
	LookMessageByOffset(commitLogOffset int64) (*message.MessageExt, error)
	PutMessage(m *message.MessageExt) commitlog.PutMessageResult
	// AwaitConfirmed waits until the CommitLog up to end is flushed and
	// replicated as the store's SYNC_FLUSH/SYNC_MASTER settings require.
	AwaitConfirmed(end int64) commitlog.PutMessageStatus
}

// DeliveryOptions configures a DeliveryService.
type DeliveryOptions struct {
	// Levels are the delays of levels 1..n (ParseDelayLevel).
	Levels []time.Duration
	// PersistInterval is flushDelayOffsetInterval (10 s when 0).
	PersistInterval time.Duration
	// Now is the clock; nil → time.Now.
	Now func() time.Time
	// Logger; nil → zap.NewNop().
	Logger *zap.Logger
}

// levelState is one level's cursor: the next queue offset and when to look.
// unconfirmedEnd > 0 means the unit at offset was delivered (its copy is
// in the CommitLog up to that offset) but not yet confirmed as flushed or
// replicated: the offset stays until it is, and the copy is not written
// again.
type levelState struct {
	offset         int64
	due            time.Time
	unconfirmedEnd int64
}

// DeliveryService is the timer half of ScheduleMessageService. One
// goroutine (a service ticking every 100 ms, Java's re-run granularity)
// serves every level; only it touches the level cursors.
type DeliveryService struct {
	st      Store
	table   *OffsetTable
	levels  []time.Duration
	persist time.Duration
	now     func() time.Time
	lg      *zap.Logger
	svc     *service.Service

	// Owned by the service goroutine.
	state       []levelState
	lastPersist time.Time
}

// NewDeliveryService returns a stopped service delivering from st and
// recording progress in table (already loaded).
func NewDeliveryService(st Store, table *OffsetTable, o DeliveryOptions) *DeliveryService {
	d := &DeliveryService{st: st, table: table, levels: o.Levels, persist: o.PersistInterval, now: o.Now, lg: o.Logger}
	if d.persist <= 0 {
		d.persist = 10 * time.Second
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.lg == nil {
		d.lg = zap.NewNop()
	}
	d.svc = service.New("ScheduleMessageService", delayForAWhile, d.tick)
	return d
}

// Service is the goroutine, for an owner that starts and stops services
// itself; Stop on it does not persist (call Persist afterwards).
func (d *DeliveryService) Service() *service.Service { return d.svc }

// Start starts delivering.
func (d *DeliveryService) Start() { d.svc.Start() }

// Stop stops delivering and persists the offsets.
func (d *DeliveryService) Stop(ctx context.Context) error {
	err := d.svc.Stop(ctx)
	if perr := d.table.Persist(); perr != nil && err == nil {
		err = perr
	}
	return err
}

// tick looks at every level that is due and persists the offsets every
// PersistInterval.
func (d *DeliveryService) tick(ctx context.Context) {
	now := d.now()
	if d.state == nil {
		d.state = make([]levelState, len(d.levels))
		for i := range d.state {
			off, _ := d.table.Offset(int32(i + 1))
			d.state[i] = levelState{offset: off, due: now.Add(firstDelay)}
		}
		d.lastPersist = now
	}
	for i := range d.state {
		if ctx.Err() != nil {
			return
		}
		if now.Before(d.state[i].due) {
			continue
		}
		d.deliverLevel(ctx, int32(i+1), &d.state[i])
		d.state[i].due = d.now().Add(delayForAWhile)
	}
	if now.Sub(d.lastPersist) >= d.persist {
		d.lastPersist = now
		if err := d.table.Persist(); err != nil {
			d.lg.Error("persist delay offsets", zap.Error(err))
		}
	}
}

// deliverLevel is executeOnTimeup for one level: it delivers the due units
// from st.offset on and leaves st at the first unit still to deliver or
// confirm.
func (d *DeliveryService) deliverLevel(ctx context.Context, level int32, st *levelState) {
	if st.unconfirmedEnd > 0 && !d.confirm(level, st) {
		return
	}
	cq := d.st.ConsumeQueue(ScheduleTopic, DelayLevelToQueueID(level))
	if cq == nil {
		return
	}
	u := cq.Units(st.offset)
	if u == nil {
		st.offset = d.resetOffset(cq, level, st.offset)
		return
	}
	defer u.Release()
	base := st.offset
	for i := 0; i < u.Len(); i++ {
		if ctx.Err() != nil {
			return
		}
		phy, _, deliverAt := u.At(i)
		now := d.now().UnixMilli()
		if d.countdown(level, now, deliverAt) > 0 {
			return
		}
		st.offset = base + int64(i)
		switch end, done := d.deliverOne(level, phy, st.offset); {
		case done:
			st.offset++
		case end > 0:
			st.unconfirmedEnd = end
			return
		default:
			return
		}
	}
}

// confirm waits once more for the flush/replication of the copy already
// delivered from st.offset; true (and the offset moved past it) once
// confirmed.
func (d *DeliveryService) confirm(level int32, st *levelState) bool {
	if s := d.st.AwaitConfirmed(st.unconfirmedEnd); s != commitlog.PutOK {
		if ce := d.lg.Check(zap.DebugLevel, "delivered delay message still unconfirmed"); ce != nil {
			ce.Write(zap.Int32("delayLevel", level), zap.Int64("queueOffset", st.offset), zap.Stringer("status", s))
		}
		return false
	}
	st.unconfirmedEnd = 0
	st.offset++
	d.table.UpdateOffset(level, st.offset)
	return true
}

// countdown is how long until a unit is due; a delivery time more than one
// level delay ahead (clock moved back) counts as due now.
func (d *DeliveryService) countdown(level int32, now, deliverAt int64) int64 {
	if deliverAt > now+d.levels[level-1].Milliseconds() {
		return 0
	}
	return deliverAt - now
}

// deliverOne re-puts the message at phy. done means the unit is settled
// (delivered and confirmed, or undeliverable) and the level's offset moved
// past it; otherwise end > 0 means the copy is in the CommitLog up to end
// but not confirmed yet, and end == 0 that nothing was written (try again
// later).
func (d *DeliveryService) deliverOne(level int32, phy, cqOffset int64) (end int64, done bool) {
	m, err := d.st.LookMessageByOffset(phy)
	if err != nil || m == nil {
		d.lg.Warn("delay message not readable, skipped", zap.Int32("delayLevel", level),
			zap.Int64("commitLogOffset", phy), zap.Error(err))
		d.table.UpdateOffset(level, cqOffset+1)
		return 0, true
	}
	inner, ok := timeup(m)
	if !ok || inner.Topic == transHalfTopic {
		d.lg.Error("bad real topic of delay message, discarded", zap.String("topic", inner.Topic),
			zap.String("msgId", m.MsgID))
		d.table.UpdateOffset(level, cqOffset+1)
		return 0, true
	}
	r := d.st.PutMessage(inner)
	if !appended(r.Status) {
		d.lg.Error("deliver delay message failed", zap.String("topic", inner.Topic),
			zap.String("msgId", m.MsgID), zap.String("status", r.Status.String()))
		return 0, false
	}
	end = r.Append.WroteOffset + int64(r.Append.WroteBytes)
	st := r.Status
	if st == commitlog.PutOK && message.PropertyValue(inner.PropertiesString, message.PropertyWaitStoreMsgOK) == "false" {
		st = d.st.AwaitConfirmed(end) // the put did not wait: PUT_OK says nothing yet
	}
	if st != commitlog.PutOK {
		d.lg.Warn("delivered delay message not confirmed, waiting for it", zap.Int32("delayLevel", level),
			zap.Int64("queueOffset", cqOffset), zap.String("msgId", m.MsgID), zap.Stringer("status", st))
		return end, false
	}
	d.table.UpdateOffset(level, cqOffset+1)
	return end, true
}

// timeup is messageTimeup: the stored message back to its real topic and
// queue. The stored properties string is kept whole, DELAY, REAL_TOPIC and
// REAL_QID included, as Java renders it before clearing DELAY (consumers
// read the level from it; Apache's e2e tests check it). The map the
// CommitLog consults lacks DELAY, so the copy is not delayed again.
func timeup(m *message.MessageExt) (*message.MessageExt, bool) {
	props := message.UnmarshalProperties(m.PropertiesString)
	delete(props, message.PropertyDelayTimeLevel)
	realTopic := props[message.PropertyRealTopic]
	qid, err := strconv.Atoi(props[message.PropertyRealQueueID])
	out := &message.MessageExt{
		Message:          message.Message{Topic: realTopic, Flag: m.Flag, Body: m.Body, Properties: props},
		PropertiesString: m.PropertiesString,
		QueueID:          int32(qid),
		SysFlag:          m.SysFlag,
		BornTimestamp:    m.BornTimestamp,
		BornHost:         m.BornHost,
		StoreHost:        m.StoreHost,
		ReconsumeTimes:   m.ReconsumeTimes,
	}
	return out, err == nil && realTopic != ""
}

// resetOffset handles an offset with no unit: clamp it into the queue's
// range (Java logs the invalid offset and restarts from the bound).
func (d *DeliveryService) resetOffset(cq *consumequeue.ConsumeQueue, level int32, offset int64) int64 {
	if lo := cq.MinOffsetInQueue(); lo > offset {
		d.lg.Error("schedule consume queue offset invalid", zap.Int64("offset", offset), zap.Int64("minOffset", lo),
			zap.Int32("delayLevel", level))
		return lo
	}
	if hi := cq.MaxOffsetInQueue(); hi < offset {
		d.lg.Error("schedule consume queue offset invalid", zap.Int64("offset", offset), zap.Int64("maxOffset", hi),
			zap.Int32("delayLevel", level))
		return hi
	}
	return offset
}

// appended reports whether a put wrote the message: PUT_OK, or a flush or
// slave confirmation that is still missing. Java's syncDeliver re-puts on
// anything but PUT_OK (a second copy when only the confirmation failed) and
// its async deliver re-sends, then skips the unit for good; here an
// appended copy is never written again: its confirmation is awaited.
func appended(s commitlog.PutMessageStatus) bool {
	switch s {
	case commitlog.PutOK, commitlog.FlushDiskTimeout, commitlog.FlushSlaveTimeout, commitlog.SlaveNotAvailable:
		return true
	}
	return false
}
