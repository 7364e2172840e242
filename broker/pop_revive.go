package broker

// PopReviveService (5.x) over our revive log: a master-only service that
// reads every queue of rmq_sys_REVIVE_LOG_<cluster> from its committed
// progress (consumer offsets of CID_RMQ_SYS_REVIVE_GROUP), pairs acks with
// checkpoints (pop.ReviveQueue) and, once a checkpoint's invisible time has
// passed, re-puts each unacknowledged message to the group's pop retry
// topic with reconsumeTimes+1 — or to %DLQ%<group> once the group's
// retryMaxTimes is used up. Each master term builds its own service and
// starts from the persisted progress, so popped-but-unacked messages come
// back after a restart and acked ones do not.

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// reviveLocalHost is PopAckConstants.LOCAL_HOST, the client host of the
// revive progress commits.
const reviveLocalHost = "127.0.0.1"

// reviveBatch is how many revive-log records one read takes.
const reviveBatch = 32

type reviveService struct {
	p      *popProcessor
	queues []*pop.ReviveQueue // built on the first pass of the term
	// read is the sum of the queues' read positions after the last pass
	// (PopReviveCaughtUp).
	read atomic.Int64
	// passes counts the passes completed (PopRevivePasses).
	passes atomic.Int64
	// horizonAt (ms) and horizonPhy are a snapshot of the clock and the
	// commit-log end taken by an earlier pass: an ack answered before
	// horizonAt lies below horizonPhy. Checkpoints due by horizonAt are
	// revived only once the dispatcher has passed horizonPhy, so that every
	// such ack is in the revive queue and read first; the wall clock alone
	// would revive acked messages whenever dispatch lags (Java 5.x bounds
	// revival by the revive log's own records likewise). 0: none taken.
	horizonAt, horizonPhy int64
}

func (p *popProcessor) registerRevive() {
	interval := time.Duration(max(p.b.Config().ReviveInterval, 10)) * time.Millisecond
	p.b.addMasterService(func() *service.Service {
		rs := &reviveService{p: p}
		p.revive.Store(rs)
		return service.New("PopReviveService", interval, rs.run)
	})
}

func (rs *reviveService) run(ctx context.Context) {
	p := rs.p
	if rs.queues == nil {
		n := max(p.b.Config().ReviveQueueNum, 1)
		for i := range n {
			from := p.b.offsets.QueryOffset(pop.ReviveGroup, p.reviveTopic, int32(i))
			rs.queues = append(rs.queues, pop.NewReviveQueue(int32(i), from))
		}
	}
	horizon := rs.horizon()
	var read int64
	for _, q := range rs.queues {
		if ctx.Err() != nil {
			return
		}
		rs.readQueue(ctx, q)
		rs.revive(q, horizon)
		p.b.offsets.CommitOffset(reviveLocalHost, pop.ReviveGroup, p.reviveTopic, q.QueueID, q.Commit())
		read += q.Next()
	}
	rs.read.Store(read)
	rs.passes.Add(1)
}

// horizon is the time up to which this pass may revive (0: nothing yet):
// the last snapshot once the dispatcher has passed its commit-log end.
// It then takes the next snapshot.
func (rs *reviveService) horizon() int64 {
	st := rs.p.b.store
	var h int64
	if rs.horizonAt != 0 {
		// Read the end before the lag: the difference then never
		// overstates how far the dispatcher got.
		end := st.MaxPhyOffset()
		if end-st.DispatchBehindBytes() >= rs.horizonPhy {
			h, rs.horizonAt = rs.horizonAt, 0
		}
	}
	if rs.horizonAt == 0 {
		// The clock before the end: an ack answered before horizonAt was
		// written below horizonPhy.
		rs.horizonAt = time.Now().UnixMilli()
		rs.horizonPhy = st.MaxPhyOffset()
	}
	return h
}

// PopReviveCaughtUp reports whether this term's revive service has read
// every record of the revive log written so far (tests wait on it).
func (b *Broker) PopReviveCaughtUp() bool {
	p := b.popProc()
	if p == nil {
		return false
	}
	rs := p.revive.Load()
	if rs == nil {
		return false
	}
	var total int64
	for i := range max(b.Config().ReviveQueueNum, 1) {
		total += b.store.MaxOffsetInQueue(p.reviveTopic, int32(i))
	}
	return rs.read.Load() == total
}

// PopRevivePasses is the number of passes this term's revive service has
// completed (tests wait for one more pass before checking that nothing
// else came back).
func (b *Broker) PopRevivePasses() int64 {
	if p := b.popProc(); p != nil {
		if rs := p.revive.Load(); rs != nil {
			return rs.passes.Load()
		}
	}
	return 0
}

// read feeds the queue every record written since the last pass.
func (rs *reviveService) readQueue(ctx context.Context, q *pop.ReviveQueue) {
	st := rs.p.b.store
	for ctx.Err() == nil {
		res := st.GetMessage(pop.ReviveGroup, rs.p.reviveTopic, q.QueueID, q.Next(), reviveBatch, nil)
		if res == nil {
			return
		}
		if len(res.Messages) == 0 {
			if res.NextBeginOffset > q.Next() && res.Status != store.NoMessageInQueue {
				q.Skip(res.NextBeginOffset) // the log's head was cleaned up
				continue
			}
			return
		}
		for _, rec := range res.Messages {
			m, err := message.DecodeRecord(rec, true)
			if err != nil {
				rs.p.lg.Warn("skip undecodable revive record", zap.Int32("queueId", q.QueueID), zap.Error(err))
				continue
			}
			q.Feed(m.QueueOffset, message.PropertyValue(m.PropertiesString, message.PropertyTags), m.Body)
		}
		q.Skip(res.NextBeginOffset)
	}
}

// revive re-puts the unacknowledged messages of the checkpoints due by
// horizon (ms). Each message re-put is recorded at once (q.Revived). A
// message that cannot be re-put gets a checkpoint of its own written back
// to the revive log with a later due time (rePutCK), so its checkpoint
// settles and the revive progress moves past it; only when even that
// write fails does the message stay pending, alone, to be tried next pass.
// Either way its checkpoint's other messages are neither held back nor
// re-put twice.
func (rs *reviveService) revive(q *pop.ReviveQueue, horizon int64) {
	if horizon == 0 {
		return
	}
	for _, d := range q.Due(horizon) {
		ok := true
		for _, off := range d.Offsets {
			if rs.reviveOne(&d.Checkpoint, off) || rs.rewrite(q.QueueID, &d.Checkpoint, off) {
				q.Revived(&d.Checkpoint, off)
			} else {
				ok = false
			}
		}
		if ok {
			q.Settle(&d.Checkpoint)
		}
	}
}

// rewrite writes the checkpoint of the message at offset of ck, which could
// not be re-put, back to revive queue qid with a back-off (rePutCK), or
// gives the message up after pop.MaxRePutTimes rewrites when
// skipWhenCKRePutReachMaxTimes is set. It reports whether the message is
// taken care of.
func (rs *reviveService) rewrite(qid int32, ck *pop.Checkpoint, off int64) bool {
	p := rs.p
	nck, ok := pop.RewriteCheckpoint(ck, off, time.Now().UnixMilli(), p.b.Config().SkipWhenCKRePutReachMaxTimes)
	fields := []zap.Field{zap.String("topic", ck.Topic), zap.String("consumerGroup", ck.CID),
		zap.Int32("queueId", ck.QueueID), zap.Int64("queueOffset", off), zap.Int("rePutTimes", ck.RePutCount())}
	if !ok {
		p.lg.Warn("revive: re-put failed too often, message dropped", fields...)
		return true
	}
	if !p.putRevive(qid, pop.CkTag, nck.UniqueID(), nck) {
		return false
	}
	p.lg.Warn("revive: checkpoint rewritten for a message that could not be re-put",
		append(fields, zap.Int64("reviveTime", nck.ReviveTime))...)
	return true
}

// reviveOne is reviveRetry for the message at queue offset off.
func (rs *reviveService) reviveOne(ck *pop.Checkpoint, off int64) bool {
	p := rs.p
	st := p.b.store
	res := st.GetMessage(pop.ReviveGroup, ck.Topic, ck.QueueID, off, 1, nil)
	if res == nil || len(res.Messages) == 0 {
		// Gone (cleaned up, or the queue was truncated): nothing to revive.
		p.lg.Warn("revive: message not found", zap.String("topic", ck.Topic), zap.Int32("queueId", ck.QueueID),
			zap.Int64("queueOffset", off))
		return res != nil
	}
	orig, err := message.DecodeRecord(res.Messages[0], true)
	if err != nil {
		return true
	}
	retryTopic := ck.Topic
	if len(ck.Topic) < len(pop.RetryGroupTopicPrefix) || ck.Topic[:len(pop.RetryGroupTopicPrefix)] != pop.RetryGroupTopicPrefix {
		retryTopic = pop.RetryTopic(ck.Topic, ck.CID, p.b.Config().EnableRetryTopicV2)
	}
	props := orig.PropertiesString
	if orig.ReconsumeTimes == 0 || message.PropertyValue(props, pop.PropertyFirstPopTime) == "" {
		props = message.AppendProperty(message.RemoveProperty(props, pop.PropertyFirstPopTime),
			pop.PropertyFirstPopTime, strconv.FormatInt(ck.PopTime, 10))
	}
	target := retryTopic
	if sg, ok := p.b.subs.FindSubscriptionGroupConfig(ck.CID); ok && orig.ReconsumeTimes >= sg.RetryMaxTimes {
		target = topic.DLQTopic(ck.CID)
		if message.PropertyValue(props, message.PropertyRetryTopic) == "" {
			props = message.AppendProperty(props, message.PropertyRetryTopic, pop.NormalTopic(ck.Topic, ck.CID))
		}
		p.b.topics.CreateTopicInSendMessageBackMethod(target, 1, topic.PermRead|topic.PermWrite, 0)
	} else {
		rs.ensureRetryTopic(retryTopic, ck.CID)
	}
	host := p.b.storeHost()
	m := &message.MessageExt{
		Message:          message.Message{Topic: target, Flag: orig.Flag, Body: orig.Body},
		PropertiesString: props,
		QueueID:          0,
		SysFlag:          orig.SysFlag,
		BornTimestamp:    orig.BornTimestamp,
		BornHost:         host,
		StoreHost:        host,
		ReconsumeTimes:   orig.ReconsumeTimes + 1,
	}
	r := st.PutMessage(m)
	if !putOK(r.Status) {
		p.lg.Error("revive: put retry message failed", zap.String("topic", target), zap.String("status", r.Status.String()))
		return false
	}
	if p.b.Config().EnablePopLog {
		p.lg.Info("revive: message back", zap.String("topic", target), zap.String("consumerGroup", ck.CID),
			zap.Int64("queueOffset", off), zap.Int32("reconsumeTimes", m.ReconsumeTimes))
	}
	return true
}

// ensureRetryTopic is addRetryTopicIfNotExist: one queue, perm 6, and the
// group's offset in it starts at 0.
func (rs *reviveService) ensureRetryTopic(t, group string) {
	p := rs.p
	if p.b.topics.SelectTopicConfig(t) != nil {
		return
	}
	p.b.topics.UpdateTopicConfig(body.TopicConfig{
		TopicName: t, ReadQueueNums: pop.RetryQueueNum, WriteQueueNums: pop.RetryQueueNum,
		Perm: topic.PermRead | topic.PermWrite, TopicFilterType: "SINGLE_TAG",
	})
	if p.b.offsets.QueryOffset(group, t, 0) < 0 {
		p.b.offsets.CommitOffset("initPopRetryOffset", group, t, 0, 0)
	}
}

// PopReviveBuilt reports whether a revive service was built for this
// broker: on a master (each master term in controller mode), never on a
// slave.
func (b *Broker) PopReviveBuilt() bool {
	p := b.popProc()
	return p != nil && p.revive.Load() != nil
}
