package broker

// POP_MESSAGE (200050): mirrors 5.x PopMessageProcessor (the revive-log
// path, popConsumerKVServiceEnable=false, without PopBufferMergeService):
// up to maxMsgNums messages from one queue or from every queue of the topic
// (queueId -1), mixed with the group's pop retry topic; each batch read from
// a queue is recorded as a checkpoint in the revive log before the group's
// offset moves past it, and the messages stay invisible until acked or
// until their invisible time ends (then the revive service re-puts them to
// the retry topic, see pop_revive.go). FIFO pops (order=true) write no
// checkpoint: the queue stays blocked for the group instead (pop_order.go).
// An empty pop with pollTime > 0 waits in pop.Hold and is re-run on the
// pull pool when a message arrives or the poll time ends.

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/filter"
	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// consumeInitModeMin is ConsumeInitMode.MIN.
const consumeInitModeMin = 0

// maxPopMsgNums is the largest maxMsgNums a pop may ask for.
const maxPopMsgNums = 32

func init() { processorFamilies = append(processorFamilies, registerPopProcessors) }

// popProcessors maps a *Broker to its *popProcessor (read by the ack,
// revive and assignment parts and by tests).
var popProcessors sync.Map

// popProcessor is PopMessageProcessor with its long-polling table and
// queue locks.
type popProcessor struct {
	b           *Broker
	lg          *zap.Logger
	hold        *pop.Hold
	notifyHold  *pop.Hold // NOTIFICATION's own long polling
	reviveTopic string
	orders      *pop.OrderInfo
	// locks are the per topic@group@queue try-locks (QueueLockManager): a
	// pop that finds its queue locked skips it. Held across the
	// checkpoint append, never waited on.
	locks sync.Map // string → *atomic.Bool
	ckSeq atomic.Uint64
	// revive is the current master term's revive service.
	revive atomic.Pointer[reviveService]
}

func (b *Broker) popProc() *popProcessor {
	if v, ok := popProcessors.Load(b); ok {
		return v.(*popProcessor)
	}
	return nil
}

func registerPopProcessors(b *Broker) {
	cfg := b.Config()
	p := &popProcessor{
		b:           b,
		lg:          b.lg.Named("pop"),
		hold:        pop.NewHold(cfg.PopPollingSize, cfg.MaxPopPollingSize),
		notifyHold:  pop.NewHold(cfg.PopPollingSize, cfg.MaxPopPollingSize),
		reviveTopic: pop.ReviveTopic(cfg.BrokerClusterName),
		orders:      pop.NewOrderInfo(),
	}
	popProcessors.Store(b, p)
	p.ensureReviveTopic()
	p.wireOrderPersist()
	b.OnArriving(func(t string, queueID int32, _, _, _ int64, _ []byte, _ map[string]string) {
		p.hold.Arriving(t, queueID)
		p.notifyHold.Arriving(t, queueID)
	})
	b.onShutdown(func(context.Context) { p.hold.Stop(); p.notifyHold.Stop(); popProcessors.Delete(b) })
	// Java registers POP_MESSAGE on the pull executor and not on the fast
	// (VIP) port; ACK and CHANGE_INVISIBLE on the ack executor, both ports.
	b.registerProcessor(code.PopMessage, remoting.ProcessorFunc(func(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		return p.process(ctx, req, true)
	}), b.Pools.Pull, false)
	b.registerProcessor(code.PeekMessage, remoting.ProcessorFunc(p.processPeek), b.Pools.Pull, false)
	b.registerProcessor(code.Notification, remoting.ProcessorFunc(p.processNotification), b.Pools.Pull, false)
	b.registerProcessor(code.PollingInfo, remoting.ProcessorFunc(p.processPollingInfo), b.Pools.Pull, false)
	b.registerProcessor(code.AckMessage, remoting.ProcessorFunc(p.processAck), b.Pools.ConsumerManage, true)
	b.registerProcessor(code.BatchAckMessage, remoting.ProcessorFunc(p.processBatchAck), b.Pools.ConsumerManage, true)
	b.registerProcessor(code.ChangeMessageInvisibletime, remoting.ProcessorFunc(p.processChangeInvisible), b.Pools.ConsumerManage, true)
	p.registerRevive()
}

// ensureReviveTopic creates rmq_sys_REVIVE_LOG_<cluster> with reviveQueueNum
// queues, as 5.x's TopicConfigManager does at start.
func (p *popProcessor) ensureReviveTopic() {
	if p.b.topics.SelectTopicConfig(p.reviveTopic) != nil {
		return
	}
	n := int32(max(p.b.Config().ReviveQueueNum, 1))
	p.b.topics.UpdateTopicConfig(body.TopicConfig{
		TopicName: p.reviveTopic, ReadQueueNums: n, WriteQueueNums: n,
		Perm: topic.PermRead | topic.PermWrite, TopicFilterType: "SINGLE_TAG",
	})
}

// popResponse is an answer with the PopMessageResponseHeader's primitives
// (Java writes them on every answer, zero on errors).
func popResponse(c int32, remark string, rh *header.PopMessageResponseHeader) *codec.RemotingCommand {
	resp := codec.NewResponse(c, remark)
	if rh == nil {
		rh = &header.PopMessageResponseHeader{}
	}
	resp.ExtFields = rh.ToExtFields()
	return resp
}

func remoteAddr(ctx *remoting.Context) string {
	if ctx == nil || ctx.Channel == nil {
		return ""
	}
	return ctx.Channel.RemoteAddr()
}

// popRun is one pass of a pop request.
type popRun struct {
	h          header.PopMessageRequestHeader
	filter     store.MessageFilter
	reviveQid  int32
	popTime    int64
	clientHost string
	start      pop.OffsetInfo
	msgOffsets pop.OffsetInfo
	orderCount pop.OffsetInfo
	msgs       [][]byte
}

func (p *popProcessor) process(ctx *remoting.Context, req *codec.RemotingCommand, allowSuspend bool) (*codec.RemotingCommand, error) {
	if req.ExtFields == nil {
		req.ExtFields = map[string]string{}
	}
	if v := req.ExtFields["bornTime"]; v == "" || v == "0" {
		req.ExtFields["bornTime"] = strconv.FormatInt(time.Now().UnixMilli(), 10)
	}
	r := &popRun{clientHost: remoteAddr(ctx)}
	if err := r.h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	if r.h.QueueID < 0 {
		r.h.QueueID = -1
	}
	tc, resp := p.check(ctx, &r.h)
	if resp != nil {
		return resp, nil
	}
	if resp := p.buildFilter(r); resp != nil {
		return resp, nil
	}
	rest := p.popAll(r, tc)
	if len(r.msgs) > 0 {
		if rest > 0 {
			p.hold.Arriving(r.h.Topic, max(r.h.QueueID, 0))
		}
		return p.found(r, rest), nil
	}
	c := int32(code.PollingTimeout)
	if allowSuspend {
		switch p.poll(ctx, req, r) {
		case pop.PollingSuc:
			return nil, nil
		case pop.PollingFull:
			c = code.PollingFull
		}
	}
	return popResponse(c, store.NoMessageInQueue.String(), p.responseHeader(r, rest)), nil
}

func (p *popProcessor) responseHeader(r *popRun, rest int64) *header.PopMessageResponseHeader {
	start, offs := r.start.String(), r.msgOffsets.String()
	rh := &header.PopMessageResponseHeader{
		PopTime: r.popTime, InvisibleTime: r.h.InvisibleTime, ReviveQid: r.reviveQid, RestNum: rest,
		StartOffsetInfo: &start, MsgOffsetInfo: &offs,
	}
	if r.h.Order {
		oc := r.orderCount.String()
		rh.OrderCountInfo = &oc
	}
	return rh
}

func (p *popProcessor) found(r *popRun, rest int64) *codec.RemotingCommand {
	resp := popResponse(code.Success, store.Found.String(), p.responseHeader(r, rest))
	n := 0
	for _, m := range r.msgs {
		n += len(m)
	}
	buf := make([]byte, 0, n)
	for _, m := range r.msgs {
		buf = append(buf, m...)
	}
	resp.Body = buf
	p.b.stats.IncGroupGet(r.h.ConsumerGroup, r.h.Topic, max(r.h.QueueID, 0), int64(len(r.msgs)), int64(n))
	return resp
}

// check is the request validation of processRequest, in Java's order.
func (p *popProcessor) check(ctx *remoting.Context, h *header.PopMessageRequestHeader) (*body.TopicConfig, *codec.RemotingCommand) {
	ip := p.b.Config().BrokerIP1
	if time.Now().UnixMilli()-h.BornTime-h.PollTime > 500 {
		return nil, popResponse(code.PollingTimeout, "the broker["+ip+"] pop message is timeout too much", nil)
	}
	if !p.b.brokerReadable() {
		return nil, popResponse(code.NoPermission, "the broker["+ip+"] pop message is forbidden", nil)
	}
	if h.MaxMsgNums > maxPopMsgNums {
		return nil, popResponse(code.InvalidParameter, "the broker["+ip+"] pop message's num is greater than 32", nil)
	}
	tc := p.b.topics.SelectTopicConfig(h.Topic)
	if tc == nil {
		p.lg.Error("the topic not exist", zap.String("topic", h.Topic), zap.String("remoteAddr", remoteAddr(ctx)))
		return nil, popResponse(code.TopicNotExist, "topic["+h.Topic+"] not exist, apply first please! "+faqSuffix, nil)
	}
	if !topic.IsReadable(tc.Perm) {
		return nil, popResponse(code.NoPermission, "the topic["+h.Topic+"] peeking message is forbidden", nil)
	}
	if h.QueueID >= tc.ReadQueueNums {
		remark := "queueId[" + strconv.Itoa(int(h.QueueID)) + "] is illegal, topic:[" + h.Topic +
			"] topicConfig.readQueueNums:[" + strconv.Itoa(int(tc.ReadQueueNums)) + "] consumer:[/" + remoteAddr(ctx) + "]"
		return nil, popResponse(code.InvalidParameter, remark, nil)
	}
	sg, ok := p.b.subs.FindSubscriptionGroupConfig(h.ConsumerGroup)
	if !ok {
		return nil, popResponse(code.SubscriptionGroupNotExist,
			"subscription group ["+h.ConsumerGroup+"] does not exist, "+faqSuffix, nil)
	}
	if !sg.ConsumeEnable {
		return nil, popResponse(code.NoPermission, "subscription group no permission, "+h.ConsumerGroup, nil)
	}
	return tc, nil
}

// buildFilter is the subscription part: the request's expression (tag or
// SQL92) filters the topic and, as in Java, the retry topic too.
func (p *popProcessor) buildFilter(r *popRun) *codec.RemotingCommand {
	h := &r.h
	if h.Exp == "" {
		return nil
	}
	sub, err := filter.BuildSubscription(h.Topic, h.Exp, h.ExpType, time.Now())
	var fd *filter.ConsumerFilterData
	if err == nil && !isTagType(sub.ExpressionType) {
		fd, err = filter.Build(h.Topic, h.ConsumerGroup, h.Exp, h.ExpType, time.Now().UnixMilli(), time.Now())
	}
	if err != nil || (fd == nil && !isTagType(sub.ExpressionType)) {
		p.lg.Warn("parse the consumer's subscription failed", zap.String("exp", h.Exp), zap.String("consumerGroup", h.ConsumerGroup))
		return popResponse(code.SubscriptionParseFailed, "parse the consumer's subscription failed", nil)
	}
	r.filter = filter.NewExpressionMessageFilter(sub, fd, p.b.Filters(), p.lg)
	return nil
}

// popAll reads the retry topic first with popFromRetryProbability, then the
// topic's queue(s), then the retry topic if the batch is not full (Java's
// order). It returns restNum.
func (p *popProcessor) popAll(r *popRun, tc *body.TopicConfig) int64 {
	cfg := p.b.Config()
	h := &r.h
	if h.Order {
		r.reviveQid = pop.OrderReviveQueue
	} else {
		r.reviveQid = reviveQueueOf(p.ckSeq.Add(1)-1, cfg.ReviveQueueNum)
	}
	randomQ := rand.IntN(100)
	needRetry := randomQ < cfg.PopFromRetryProbability
	retryTopic := pop.RetryTopic(h.Topic, h.ConsumerGroup, cfg.EnableRetryTopicV2)
	if cfg.EnableRetryTopicV2 && cfg.RetrieveMessageFromPopRetryTopicV1 && randomQ%2 == 0 {
		retryTopic = pop.RetryTopicV1(h.Topic, h.ConsumerGroup)
	}
	r.popTime = time.Now().UnixMilli()
	var rest int64
	if needRetry && !h.Order {
		rest = p.popTopic(r, p.b.topics.SelectTopicConfig(retryTopic), true, randomQ, rest)
	}
	if h.QueueID < 0 {
		rest = p.popTopic(r, tc, false, randomQ, rest)
	} else {
		rest = p.popQueue(r, tc.TopicName, h.QueueID, false, rest)
	}
	if !needRetry && !h.Order && len(r.msgs) < int(h.MaxMsgNums) {
		rest = p.popTopic(r, p.b.topics.SelectTopicConfig(retryTopic), true, randomQ, rest)
	}
	return rest
}

func (p *popProcessor) popTopic(r *popRun, tc *body.TopicConfig, isRetry bool, randomQ int, rest int64) int64 {
	if tc == nil || tc.ReadQueueNums <= 0 {
		return rest
	}
	n := int(tc.ReadQueueNums)
	for i := range n {
		rest = p.popQueue(r, tc.TopicName, int32((randomQ+i)%n), isRetry, rest)
	}
	return rest
}

func lockKey(t, group string, queueID int32) string {
	return t + "@" + group + "@" + strconv.Itoa(int(queueID))
}

func (p *popProcessor) tryLock(key string) (unlock func(), ok bool) {
	v, _ := p.locks.LoadOrStore(key, new(atomic.Bool))
	l := v.(*atomic.Bool)
	if !l.CompareAndSwap(false, true) {
		return nil, false
	}
	return func() { l.Store(false) }, true
}

// lockWait takes the queue lock, spinning as Java's ack path does (the
// holder never blocks on anything but a store append).
func (p *popProcessor) lockWait(key string) func() {
	for {
		if unlock, ok := p.tryLock(key); ok {
			return unlock
		}
		time.Sleep(time.Millisecond)
	}
}

// popQueue is popMsgFromQueue; it returns restNum plus this queue's rest.
func (p *popProcessor) popQueue(r *popRun, t string, queueID int32, isRetry bool, rest int64) int64 {
	h := &r.h
	st := p.b.store
	offset := p.popOffset(t, h.ConsumerGroup, queueID, h.InitMode, false)
	unlock, ok := p.tryLock(lockKey(t, h.ConsumerGroup, queueID))
	if !ok {
		if !h.Order {
			rest += st.MaxOffsetInQueue(t, queueID) - offset
		}
		return rest
	}
	defer unlock()
	offset = p.popOffset(t, h.ConsumerGroup, queueID, h.InitMode, true)
	if h.Order {
		if p.orders.CheckBlock(h.AttemptID, t, h.ConsumerGroup, queueID, h.InvisibleTime, time.Now().UnixMilli()) {
			return rest
		}
	}
	if len(r.msgs) >= int(h.MaxMsgNums) {
		return rest + st.MaxOffsetInQueue(t, queueID) - offset
	}
	res := st.GetMessage(h.ConsumerGroup, t, queueID, offset, h.MaxMsgNums-int32(len(r.msgs)), r.filter)
	if res == nil {
		return rest + st.MaxOffsetInQueue(t, queueID) - offset
	}
	switch res.Status {
	case store.OffsetTooSmall, store.OffsetOverflowBadly, store.OffsetFoundNull:
		p.lg.Warn("pop initial offset, because store is no correct", zap.String("topic", t), zap.Int32("queueId", queueID),
			zap.Int64("offset", offset), zap.Int64("nextBeginOffset", res.NextBeginOffset))
		p.b.offsets.CommitOffset(r.clientHost, h.ConsumerGroup, t, queueID, res.NextBeginOffset)
		offset = res.NextBeginOffset
		if res = st.GetMessage(h.ConsumerGroup, t, queueID, offset, h.MaxMsgNums-int32(len(r.msgs)), r.filter); res == nil {
			return rest + st.MaxOffsetInQueue(t, queueID) - offset
		}
	}
	if len(res.Messages) > 0 {
		if !p.takeBatch(r, t, queueID, offset, isRetry, res) {
			return rest + int64(len(res.Messages))
		}
	} else if (res.Status == store.NoMatchedMessage || res.Status == store.OffsetFoundNull ||
		res.Status == store.MessageWasRemoving || res.Status == store.NoMatchedLogicQueue) && res.NextBeginOffset > offset {
		p.b.offsets.CommitOffset(r.clientHost, h.ConsumerGroup, t, queueID, res.NextBeginOffset)
	}
	return rest + res.MaxOffset - res.NextBeginOffset
}

// takeBatch records a found batch (checkpoint, or the FIFO block), moves
// the group's offset past it and adds its messages to the answer.
func (p *popProcessor) takeBatch(r *popRun, t string, queueID int32, offset int64, isRetry bool,
	res *store.GetMessageResult) bool {
	h := &r.h
	offs := make([]int64, 0, len(res.Messages))
	for _, m := range res.Messages {
		off, ok := recordQueueOffset(m)
		if !ok {
			return false
		}
		offs = append(offs, off)
	}
	if h.Order {
		p.orders.Update(h.AttemptID, isRetry, t, h.ConsumerGroup, queueID, r.popTime, h.InvisibleTime, offs, &r.orderCount)
		// Java commits the batch's start: the queue stays blocked, and
		// the acks move the offset.
		p.b.offsets.CommitOffset(r.clientHost, h.ConsumerGroup, t, queueID, offset)
	} else {
		if !p.appendCheckpoint(r, t, queueID, offset, offs) {
			return false
		}
		p.b.offsets.CommitOffset(r.clientHost, h.ConsumerGroup, t, queueID, res.NextBeginOffset)
	}
	r.start.AddStart(t, queueID, offset)
	r.msgOffsets.AddMsgOffsets(t, queueID, offs)
	for i, m := range res.Messages {
		if isRetry && !p.b.Config().PopResponseReturnActualRetryTopic {
			m = p.recodeRetry(r, m, offset, offs[i])
			if m == nil {
				continue
			}
		}
		r.msgs = append(r.msgs, m)
	}
	return true
}

// recordQueueOffset reads the queue offset stored in a CommitLog record.
func recordQueueOffset(rec []byte) (int64, bool) {
	m, err := message.DecodeRecord(rec, false)
	if err != nil {
		return 0, false
	}
	return m.QueueOffset, true
}

// recodeRetry rewrites a pop retry topic message as the original topic's,
// with its receipt handle in POP_CK (Java does this so the client need not
// know the retry topic).
func (p *popProcessor) recodeRetry(r *popRun, rec []byte, ckOffset int64, msgOffset int64) []byte {
	m, err := message.DecodeRecord(rec, true)
	if err != nil {
		p.lg.Error("decode retry message", zap.Error(err))
		return nil
	}
	if message.PropertyValue(m.PropertiesString, pop.PropertyPopCk) == "" {
		ck := pop.BuildExtraInfo(ckOffset, r.popTime, r.h.InvisibleTime, r.reviveQid, m.Topic,
			p.b.Config().BrokerName, m.QueueID, msgOffset)
		m.PropertiesString = message.AppendProperty(m.PropertiesString, pop.PropertyPopCk, ck)
	}
	m.Topic = r.h.Topic
	out, err := message.EncodeRecord(nil, m)
	if err != nil {
		p.lg.Error("recode retry message", zap.Error(err))
		return nil
	}
	return out
}

// popOffset is getPopOffset: the group's committed offset, or the initial
// one (committed when init).
func (p *popProcessor) popOffset(t, group string, queueID int32, initMode int32, init bool) int64 {
	off := p.b.offsets.QueryOffset(group, t, queueID)
	if off >= 0 {
		return off
	}
	st := p.b.store
	switch {
	case initMode == consumeInitModeMin || len(t) > len(pop.RetryGroupTopicPrefix) && t[:len(pop.RetryGroupTopicPrefix)] == pop.RetryGroupTopicPrefix:
		off = max(st.MinOffsetInQueue(t, queueID), 0)
	case p.b.Config().InitPopOffsetByCheckMsgInMem && st.MinOffsetInQueue(t, queueID) <= 0 &&
		st.MaxOffsetInQueue(t, queueID) > 0 && !st.CheckInDiskByConsumeOffset(t, queueID, 0):
		off = 0
	default:
		off = max(st.MaxOffsetInQueue(t, queueID)-1, 0)
	}
	if init {
		p.b.offsets.CommitOffset("getPopOffset", group, t, queueID, off)
	}
	return off
}

// resetOffsetOf moves the group's offset in the queue on an admin offset
// reset and, as 5.x's resetPopOffset / ConsumerOrderInfoManager.clearBlock,
// forgets the queue's FIFO batch: an orderly group blocked by unacked
// messages pops from the reset offset at once. It runs under the queue lock
// so that a pop in progress cannot record its batch after the clear.
func (b *Broker) resetOffsetOf(group, t string, queueID int32, offset int64) {
	p := b.popProc()
	if p == nil {
		b.offsets.ResetOffset(group, t, queueID, offset)
		return
	}
	unlock := p.lockWait(lockKey(t, group, queueID))
	b.offsets.ResetOffset(group, t, queueID, offset)
	p.orders.Clear(t, group, queueID)
	unlock()
	p.hold.WakeGroup(t, group)
}

// appendCheckpoint writes the batch's checkpoint to the revive log
// (appendCheckPoint + the store part of PopBufferMergeService).
func (p *popProcessor) appendCheckpoint(r *popRun, t string, queueID int32, offset int64, offs []int64) bool {
	ck := pop.Checkpoint{
		Num: int8(len(offs)), PopTime: r.popTime, InvisibleTime: r.h.InvisibleTime, StartOffset: offset,
		CID: r.h.ConsumerGroup, Topic: t, QueueID: queueID, BrokerName: p.b.Config().BrokerName,
	}
	for _, o := range offs {
		ck.QueueOffsetDiff = append(ck.QueueOffsetDiff, int32(o-offset))
	}
	ck.ReviveTime = ck.Due()
	return p.putRevive(r.reviveQid, pop.CkTag, ck.UniqueID(), ck)
}

// putRevive appends one record to the revive log, synchronously (the pop's
// answer must not promise what the log does not hold).
func (p *popProcessor) putRevive(qid int32, tag, uniq string, v any) bool {
	bodyBytes, err := jsonMarshal(v)
	if err != nil {
		return false
	}
	props := message.AppendProperty("", message.PropertyTags, tag)
	props = message.AppendProperty(props, message.PropertyUniqClientMessageIDKeyidx, uniq)
	host := p.b.storeHost()
	m := &message.MessageExt{
		Message:          message.Message{Topic: p.reviveTopic, Body: bodyBytes},
		PropertiesString: props,
		QueueID:          qid,
		BornTimestamp:    time.Now().UnixMilli(),
		BornHost:         host,
		StoreHost:        host,
	}
	res := p.b.store.PutMessage(m)
	if !putOK(res.Status) {
		p.lg.Error("put revive log record failed", zap.String("tag", tag), zap.Int32("queueId", qid), zap.String("status", res.Status.String()))
		return false
	}
	return true
}

// poll parks an empty pop (PopLongPollingService.polling).
func (p *popProcessor) poll(ctx *remoting.Context, req *codec.RemotingCommand, r *popRun) pop.PollResult {
	if r.h.PollTime <= 0 {
		return pop.NotPolling
	}
	w := &pop.Waiter{
		Topic: r.h.Topic, Group: r.h.ConsumerGroup, QueueID: r.h.QueueID,
		Expire: r.h.BornTime + r.h.PollTime,
	}
	w.Wakeup = func() { p.rerun(ctx, req, p.process) }
	res := p.hold.Poll(w, time.Now().UnixMilli())
	if res == pop.PollingSuc && ctx != nil {
		ctx.MarkSuspended()
	}
	return res
}

// rerun re-runs a held pop or notification on the pull pool; it answers
// whatever it finds (messages, or the empty answer once the poll time is
// over).
func (p *popProcessor) rerun(ctx *remoting.Context, req *codec.RemotingCommand,
	process func(*remoting.Context, *codec.RemotingCommand, bool) (*codec.RemotingCommand, error)) {
	if ctx.Channel != nil && ctx.Channel.IsClosed() {
		return
	}
	ctx.ForceSerializeType(p.b.serializeType)
	run := func() {
		expired := false
		if v, err := strconv.ParseInt(req.ExtFields["bornTime"], 10, 64); err == nil {
			pt, _ := strconv.ParseInt(req.ExtFields["pollTime"], 10, 64)
			expired = time.Now().UnixMilli() >= v+pt
		}
		resp, err := process(ctx, req, !expired)
		if err != nil {
			resp = errorResponse(err)
		}
		if resp != nil {
			ctx.Respond(resp)
		}
	}
	if !p.b.Pools.Pull.Submit(run) {
		ctx.Respond(codec.NewResponse(code.SystemBusy, remarkOverload))
	}
}

// putOK is the set of put statuses Java's pop and ack paths accept.
func putOK(s commitlog.PutMessageStatus) bool {
	switch s {
	case commitlog.PutOK, commitlog.FlushDiskTimeout, commitlog.FlushSlaveTimeout, commitlog.SlaveNotAvailable:
		return true
	}
	return false
}

// jsonMarshal encodes v as fastjson does for these records (no HTML
// escaping, no trailing newline).
func jsonMarshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// PopHeld is the number of pops waiting in long polling.
func (b *Broker) PopHeld() int {
	if p := b.popProc(); p != nil {
		return p.hold.Len()
	}
	return 0
}

// PopNotificationsHeld is the number of NOTIFICATION requests waiting.
func (b *Broker) PopNotificationsHeld() int {
	if p := b.popProc(); p != nil {
		return p.notifyHold.Len()
	}
	return 0
}

// reviveQueueOf spreads checkpoints over the revive queues by sequence
// number. The modulus is taken before narrowing: an int32 conversion
// first turned sequence 2^31 and on into negative queue ids, which the
// revive service never reads (Java keeps it non-negative with Math.abs).
func reviveQueueOf(seq uint64, queues int) int32 {
	return int32(seq % uint64(max(queues, 1)))
}
