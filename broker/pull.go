package broker

// PULL_MESSAGE (11) and LITE_PULL_MESSAGE (361): mirrors PullMessageProcessor
// (broker/processor, 4.9.8) with PullRequestHoldService (broker/longpoll).
// LITE_PULL_MESSAGE is a 5.x code; it is served exactly like PULL_MESSAGE.
//
// A pull that finds nothing (PULL_NOT_FOUND) with FLAG_SUSPEND is held in the
// hold service and the pool worker returns at once; the wake-up re-runs the
// whole processor without suspension on the pull pool and answers through
// ctx.Respond in the broker's own serialize type (as Java's
// executeRequestWhenWakeup writes a fresh response).

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/filter"
	"github.com/rocketmq-go/rmq/broker/longpoll"
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

// headerResponse is a response Java creates with a custom header class
// (createResponseCommand(XxxResponseHeader.class)): its extFields is an
// empty map even when no field is set, so the JSON header carries
// "extFields":{}.
func headerResponse(c int32, remark string) *codec.RemotingCommand {
	resp := codec.NewResponse(c, remark)
	resp.ExtFields = map[string]string{}
	return resp
}

// PullSysFlag bits (wire.md §6.2).
const (
	pullFlagCommitOffset int32 = 0x1
	pullFlagSuspend      int32 = 0x2
	pullFlagSubscription int32 = 0x4
)

// masterID is MixAll.MASTER_ID.
const masterID int64 = 0

func init() { processorFamilies = append(processorFamilies, registerPullProcessors) }

// pullProcessor is PullMessageProcessor plus its hold service.
type pullProcessor struct {
	b    *Broker
	hold *longpoll.Service
	lg   *zap.Logger
}

func registerPullProcessors(b *Broker) {
	cfg := b.Config()
	interval := 5 * time.Second
	if !cfg.LongPollingEnable {
		interval = time.Duration(cfg.ShortPollingTimeMills) * time.Millisecond
	}
	p := &pullProcessor{b: b, lg: b.lg.Named("pull")}
	p.hold = longpoll.New(longpoll.Options{
		MaxOffset: b.store.MaxOffsetInQueue,
		Now:       b.store.Now,
		Interval:  interval,
		Logger:    b.lg.Named("longpoll"),
	})
	b.OnArriving(p.hold.Arriving)
	b.onArrivingProperties(p.hold.WantsArrivingProperties)
	b.addService(p.hold.Periodic())
	b.onShutdown(func(ctx context.Context) { _ = p.hold.Stop(ctx) })
	// Java registers neither pull code on the fast (VIP) port.
	b.registerProcessor(code.PullMessage, p, b.Pools.Pull, false)
	b.registerProcessor(code.LitePullMessage, p, b.Pools.Pull, false)
}

// ProcessRequest implements remoting.Processor (first pass: may suspend).
func (p *pullProcessor) ProcessRequest(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	return p.process(ctx, req, true)
}

// pullPlan is what the checks before the store read decided.
type pullPlan struct {
	h      header.PullMessageRequestHeader
	sg     body.SubscriptionGroupConfig
	sub    *body.SubscriptionData
	filter store.MessageFilter
	begin  int64 // store clock (ms) when this pass began: GROUP_GET_LATENCY
}

func (p *pullProcessor) process(ctx *remoting.Context, req *codec.RemotingCommand, allowSuspend bool) (*codec.RemotingCommand, error) {
	pl := &pullPlan{begin: p.b.store.Now()}
	if err := header.DecodePullRequestInto(&pl.h, req); err != nil { // no map: remoting decodes pulls lazily
		return nil, err
	}
	if resp := p.check(ctx, pl); resp != nil {
		return resp, nil
	}
	if resp := p.subscription(pl); resp != nil {
		return resp, nil
	}
	h := &pl.h
	r := p.b.store.GetMessage(h.ConsumerGroup, h.Topic, h.QueueID, h.QueueOffset, h.MaxMsgNums, pl.filter)
	var resp *codec.RemotingCommand
	if r == nil {
		resp = headerResponse(code.SystemError, "store getMessage return null")
	} else {
		resp = p.answer(ctx, req, pl, r, allowSuspend)
	}
	if allowSuspend && h.SysFlag&pullFlagCommitOffset != 0 && !p.b.IsSlave() {
		p.b.offsets.CommitOffset(ctx.Channel.RemoteAddr(), h.ConsumerGroup, h.Topic, h.QueueID, h.CommitOffset)
	}
	return resp, nil
}

// check is the permission / group / topic / queue part of processRequest.
func (p *pullProcessor) check(ctx *remoting.Context, pl *pullPlan) *codec.RemotingCommand {
	h := &pl.h
	if !p.b.brokerReadable() {
		return headerResponse(code.NoPermission, "the broker["+p.b.Config().BrokerIP1+"] pulling message is forbidden")
	}
	sg, ok := p.b.subs.FindSubscriptionGroupConfig(h.ConsumerGroup)
	if !ok {
		return headerResponse(code.SubscriptionGroupNotExist,
			"subscription group ["+h.ConsumerGroup+"] does not exist, "+faqSuffix)
	}
	pl.sg = sg
	if !sg.ConsumeEnable {
		return headerResponse(code.NoPermission, "subscription group no permission, "+h.ConsumerGroup)
	}
	tc := p.b.topics.SelectTopicConfig(h.Topic)
	if tc == nil {
		p.lg.Error("the topic not exist", zap.String("topic", h.Topic), zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
		return headerResponse(code.TopicNotExist, "topic["+h.Topic+"] not exist, apply first please! "+faqSuffix)
	}
	if !topic.IsReadable(tc.Perm) {
		return headerResponse(code.NoPermission, "the topic["+h.Topic+"] pulling message is forbidden")
	}
	if h.QueueID < 0 || h.QueueID >= tc.ReadQueueNums {
		remark := "queueId[" + strconv.Itoa(int(h.QueueID)) + "] is illegal, topic:[" + h.Topic +
			"] topicConfig.readQueueNums:[" + strconv.Itoa(int(tc.ReadQueueNums)) + "] consumer:[/" + ctx.Channel.RemoteAddr() + "]"
		p.lg.Warn("pull queueId is illegal", zap.String("topic", h.Topic), zap.Int32("queueId", h.QueueID))
		return headerResponse(code.SystemError, remark)
	}
	return nil
}

// isTagType is ExpressionType.isTagType.
func isTagType(t string) bool { return t == "" || t == "TAG" }

// subscription resolves the subscription and builds the message filter:
// from the request with FLAG_SUBSCRIPTION, else the heartbeat-registered one.
func (p *pullProcessor) subscription(pl *pullPlan) *codec.RemotingCommand {
	h := &pl.h
	var fd *filter.ConsumerFilterData
	var resp *codec.RemotingCommand
	if h.SysFlag&pullFlagSubscription != 0 {
		pl.sub, fd, resp = p.subscriptionFromRequest(h)
	} else {
		pl.sub, fd, resp = p.registeredSubscription(h, &pl.sg)
	}
	if resp != nil {
		return resp
	}
	if !isTagType(pl.sub.ExpressionType) && !p.b.Config().EnablePropertyFilter {
		return headerResponse(code.SystemError, "The broker does not support consumer to filter message by "+pl.sub.ExpressionType)
	}
	if p.b.Config().FilterSupportRetry {
		pl.filter = filter.NewExpressionForRetryMessageFilter(pl.sub, fd, p.b.Filters(), p.lg)
	} else {
		pl.filter = filter.NewExpressionMessageFilter(pl.sub, fd, p.b.Filters(), p.lg)
	}
	return nil
}

func (p *pullProcessor) subscriptionFromRequest(h *header.PullMessageRequestHeader) (*body.SubscriptionData, *filter.ConsumerFilterData, *codec.RemotingCommand) {
	sub, err := filter.BuildSubscription(h.Topic, h.Subscription, h.ExpressionType, time.Now())
	var fd *filter.ConsumerFilterData
	if err == nil && !isTagType(sub.ExpressionType) {
		fd, err = filter.Build(h.Topic, h.ConsumerGroup, h.Subscription, h.ExpressionType, h.SubVersion, time.Now())
	}
	if err != nil {
		p.lg.Warn("parse the consumer's subscription failed", zap.String("subscription", h.Subscription),
			zap.String("consumerGroup", h.ConsumerGroup), zap.Error(err))
		return nil, nil, headerResponse(code.SubscriptionParseFailed, "parse the consumer's subscription failed")
	}
	return sub, fd, nil
}

func (p *pullProcessor) registeredSubscription(h *header.PullMessageRequestHeader, sg *body.SubscriptionGroupConfig) (*body.SubscriptionData, *filter.ConsumerFilterData, *codec.RemotingCommand) {
	gi := p.b.consumers.GetConsumerGroupInfo(h.ConsumerGroup)
	if gi == nil {
		p.lg.Warn("the consumer's group info not exist", zap.String("consumerGroup", h.ConsumerGroup))
		return nil, nil, headerResponse(code.SubscriptionNotExist, "the consumer's group info not exist"+faqSuffix)
	}
	if !sg.ConsumeBroadcastEnable && gi.MessageModel() == "BROADCASTING" {
		return nil, nil, headerResponse(code.NoPermission, "the consumer group["+h.ConsumerGroup+"] can not consume by broadcast way")
	}
	sub := gi.FindSubscriptionData(h.Topic)
	if sub == nil {
		p.lg.Warn("the consumer's subscription not exist", zap.String("consumerGroup", h.ConsumerGroup), zap.String("topic", h.Topic))
		return nil, nil, headerResponse(code.SubscriptionNotExist, "the consumer's subscription not exist"+faqSuffix)
	}
	if sub.SubVersion < h.SubVersion {
		p.lg.Warn("the broker's subscription is not latest", zap.String("consumerGroup", h.ConsumerGroup), zap.String("subString", sub.SubString))
		return nil, nil, headerResponse(code.SubscriptionNotLatest, "the consumer's subscription not latest")
	}
	if isTagType(sub.ExpressionType) {
		return sub, nil, nil
	}
	fd := p.b.Filters().Get(h.Topic, h.ConsumerGroup)
	if fd == nil {
		return nil, nil, headerResponse(code.FilterDataNotExist, "The broker's consumer filter data is not exist!Your expression may be wrong!")
	}
	if fd.ClientVersion < h.SubVersion {
		p.lg.Warn("the broker's consumer filter data is not latest", zap.String("consumerGroup", h.ConsumerGroup),
			zap.String("topic", h.Topic), zap.Int64("serverVersion", fd.ClientVersion), zap.Int64("clientVersion", h.SubVersion))
		return nil, nil, headerResponse(code.FilterDataNotLatest, "the consumer's consumer filter data not latest")
	}
	return sub, fd, nil
}

// answer maps the store result onto the response (status → code, the
// suggested broker id, long polling, offset-moved handling). It returns nil
// when the request was suspended.
func (p *pullProcessor) answer(ctx *remoting.Context, req *codec.RemotingCommand, pl *pullPlan,
	r *store.GetMessageResult, allowSuspend bool) *codec.RemotingCommand {
	h := &pl.h
	rh := header.PullMessageResponseHeader{
		SuggestWhichBrokerID: p.suggestBrokerID(&pl.sg, r.SuggestPullingFromSlave),
		NextBeginOffset:      r.NextBeginOffset,
		MinOffset:            r.MinOffset,
		MaxOffset:            r.MaxOffset,
	}
	if p.redirectToMaster() {
		// Hand the client back to its master without moving its offset:
		// a NO_MATCHED answer's nextBeginOffset becomes the client's next
		// offset, so pointing past the found messages would skip them.
		rh.SuggestWhichBrokerID = masterID
		rh.NextBeginOffset = h.QueueOffset
		return newPullAnswer(code.PullRetryImmediately, r.Status.String(), &rh)
	}
	c := pullCode(r.Status, h.QueueOffset)
	switch c {
	case code.Success:
		p.countGet(pl, r)
		resp := newPullAnswer(c, r.Status.String(), &rh)
		resp.Body = r.Body
		return resp
	case code.PullNotFound:
		if allowSuspend && h.SysFlag&pullFlagSuspend != 0 {
			p.suspend(ctx, req, pl)
			return nil
		}
	case code.PullOffsetMoved:
		if !p.b.IsSlave() || p.b.storeCfg.OffsetCheckInSlave {
			p.offsetMoved(h, r, rh.SuggestWhichBrokerID)
		} else {
			rh.SuggestWhichBrokerID = pl.sg.BrokerID
			c = code.PullRetryImmediately
			p.lg.Warn("pull offset moved: none correction", zap.String("topic", h.Topic),
				zap.String("consumerGroup", h.ConsumerGroup), zap.Int64("requestOffset", h.QueueOffset),
				zap.Int64("suggestBrokerId", rh.SuggestWhichBrokerID))
		}
	}
	return newPullAnswer(c, r.Status.String(), &rh)
}

// pullAnswer is a pull's answer: the command and its header in one
// allocation, the header written by the encoder straight from the fields
// (codec.ExtSource) instead of through a four-entry map and four number
// strings (issue #11). Its bytes are those of a response whose ExtFields is
// PullMessageResponseHeader.ToExtFields (TestBrokerPullAnswerMatchesMap);
// the broker never sets the header's optional fields, which 4.9.8 lacks.
type pullAnswer struct {
	cmd codec.RemotingCommand
	h   [4]int64 // by pullAnswerKeys
}

// pullAnswerFields are the answer's keys in the order newPullAnswer lists
// the header's values; pullAnswerKeys are the same keys in Java's HashMap
// order and pullAnswerSlot maps each to its value's place.
var (
	pullAnswerFields = []string{"suggestWhichBrokerId", "nextBeginOffset", "minOffset", "maxOffset"}
	pullAnswerKeys   = codec.HashMapOrder(pullAnswerFields...)
	pullAnswerSlot   = func() (slot [4]uint8) {
		for i, k := range pullAnswerKeys {
			slot[i] = uint8(slices.Index(pullAnswerFields, k))
		}
		return slot
	}()
)

func newPullAnswer(c int32, remark string, rh *header.PullMessageResponseHeader) *codec.RemotingCommand {
	a := &pullAnswer{cmd: *codec.NewResponse(c, remark)}
	v := [4]int64{rh.SuggestWhichBrokerID, rh.NextBeginOffset, rh.MinOffset, rh.MaxOffset}
	for i, f := range pullAnswerSlot {
		a.h[i] = v[f]
	}
	a.cmd.ExtSource = a
	return &a.cmd
}

// ExtEntry implements codec.ExtSource.
func (a *pullAnswer) ExtEntry(i int) (codec.ExtEntry, bool) {
	if i >= len(a.h) {
		return codec.ExtEntry{}, false
	}
	return codec.ExtEntry{Key: pullAnswerKeys[i], Num: a.h[i], IsNum: true}, true
}

// countGet is the statistics of a pull that hands out messages: the
// group's get nums/size and the broker's get total, the pull's latency,
// and how far (bytes, ms) the read was behind the newest message (Java
// records the latter two while copying the messages to the heap).
func (p *pullProcessor) countGet(pl *pullPlan, r *store.GetMessageResult) {
	h, st := &pl.h, p.b.stats
	st.IncGroupGet(h.ConsumerGroup, h.Topic, h.QueueID, int64(r.MessageCount()), int64(r.BufferTotalSize()))
	p.b.metrics.PullOffsets().Record(h.ConsumerGroup, h.Topic, h.QueueID, r.NextBeginOffset) // no-op unless metrics are on
	now := p.b.store.Now()
	st.IncGroupGetLatency(h.ConsumerGroup, h.Topic, h.QueueID, now-pl.begin)
	var storeTime int64
	if n := len(r.Messages); n > 0 {
		if ts, ok := message.StoreTimestampOf(r.Messages[n-1]); ok {
			storeTime = ts
		}
	}
	st.RecordFallBehind(h.ConsumerGroup, h.Topic, h.QueueID,
		max(p.b.store.MaxPhyOffset()-r.MaxPhyOffsetPulling, 0), now-storeTime)
}

// redirectToMaster reports whether a slave must send this pull back to its
// master: slaveReadEnable is off and the master is alive (the slave's HA
// connection is up). 4.9.8 means to answer PULL_RETRY_IMMEDIATELY here, but
// its status switch overwrites the code, so Java slaves serve the pull
// anyway; we redirect as intended while the master lives, and serve (as
// Java effectively does) once it is gone, so consumers can fail over.
func (p *pullProcessor) redirectToMaster() bool {
	if !p.b.IsSlave() || p.b.Config().SlaveReadEnable {
		return false
	}
	ha, ok := p.b.HA.(interface{ MasterConnected() bool })
	return ok && ha.MasterConnected()
}

// suggestBrokerID is the suggestWhichBrokerId decision of 4.9.8 (store.md
// §11). On a slave with slaveReadEnable=false Java first forces
// PULL_RETRY_IMMEDIATELY but the status switch that follows overwrites the
// code, so what a client sees is the status' code with suggestion 0 (the
// master): messages a slave serves while its master is down still reach
// the consumer.
func (p *pullProcessor) suggestBrokerID(sg *body.SubscriptionGroupConfig, slowly bool) int64 {
	if !p.b.Config().SlaveReadEnable {
		return masterID
	}
	if slowly {
		return sg.WhichBrokerWhenConsumeSlowly
	}
	return sg.BrokerID
}

// pullCode maps a GetMessageStatus to the response code.
func pullCode(s store.GetMessageStatus, requestOffset int64) int32 {
	switch s {
	case store.Found:
		return code.Success
	case store.MessageWasRemoving, store.NoMatchedMessage:
		return code.PullRetryImmediately
	case store.NoMatchedLogicQueue, store.NoMessageInQueue:
		if requestOffset != 0 {
			return code.PullOffsetMoved
		}
		return code.PullNotFound
	case store.OffsetFoundNull, store.OffsetOverflowOne:
		return code.PullNotFound
	default: // OffsetOverflowBadly, OffsetTooSmall
		return code.PullOffsetMoved
	}
}

// suspend parks the request in the hold service; its wake-up re-runs the
// processor on the pull pool without suspension.
func (p *pullProcessor) suspend(ctx *remoting.Context, req *codec.RemotingCommand, pl *pullPlan) {
	timeout := pl.h.SuspendTimeoutMillis
	if !p.b.Config().LongPollingEnable {
		timeout = p.b.Config().ShortPollingTimeMills
	}
	ctx.MarkSuspended() // metrics: is_long_polling
	p.hold.Suspend(&longpoll.Request{
		Topic:            pl.h.Topic,
		QueueID:          pl.h.QueueID,
		Offset:           pl.h.QueueOffset,
		SuspendTimestamp: p.b.store.Now(),
		TimeoutMillis:    timeout,
		Filter:           pl.filter,
		Wakeup:           func() { p.wakeup(ctx, req) },
		Abandoned:        ctx.Channel.IsClosed,
	})
}

// wakeup is executeRequestWhenWakeup.
func (p *pullProcessor) wakeup(ctx *remoting.Context, req *codec.RemotingCommand) {
	ctx.ForceSerializeType(p.b.serializeType)
	run := func() {
		resp, err := p.process(ctx, req, false)
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

// offsetMovedEvent is OffsetMovedEvent's fastjson form (fields alphabetical).
type offsetMovedEvent struct {
	ConsumerGroup string            `json:"consumerGroup"`
	MessageQueue  body.MessageQueue `json:"messageQueue"`
	OffsetNew     int64             `json:"offsetNew"`
	OffsetRequest int64             `json:"offsetRequest"`
}

// offsetMoved is the master's PULL_OFFSET_MOVED branch: write an
// OFFSET_MOVED_EVENT message (generateOffsetMovedEvent).
func (p *pullProcessor) offsetMoved(h *header.PullMessageRequestHeader, r *store.GetMessageResult, suggest int64) {
	ev := offsetMovedEvent{
		ConsumerGroup: h.ConsumerGroup,
		MessageQueue:  body.MessageQueue{BrokerName: p.b.Config().BrokerName, QueueID: h.QueueID, Topic: h.Topic},
		OffsetNew:     r.NextBeginOffset,
		OffsetRequest: h.QueueOffset,
	}
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(ev) // a struct of strings and ints always encodes
	// Java's HashMap order for these three names is KEYS, DELAY, TAGS.
	props := message.AppendProperty("", message.PropertyKeys, h.ConsumerGroup)
	props = message.AppendProperty(props, message.PropertyDelayTimeLevel, "0")
	props = message.AppendProperty(props, message.PropertyTags, h.ConsumerGroup)
	host := p.b.storeHost()
	m := &message.MessageExt{
		Message:          message.Message{Topic: topic.OffsetMovedEventTopic, Body: []byte(strings.TrimSuffix(sb.String(), "\n"))},
		PropertiesString: props,
		BornTimestamp:    time.Now().UnixMilli(),
		BornHost:         host,
		StoreHost:        host,
	}
	p.b.store.PutMessageAsync(m, func(commitlog.PutMessageResult) {})
	p.lg.Warn("pull offset moved: correction offset", zap.String("topic", h.Topic),
		zap.String("consumerGroup", h.ConsumerGroup), zap.Int64("requestOffset", h.QueueOffset),
		zap.Int64("newOffset", r.NextBeginOffset), zap.Int64("suggestBrokerId", suggest))
}

// ownSerializeType is the broker's own header serialization, used for
// answers Java writes with a fresh command (held pulls, query/view
// message): RemotingCommand's serializeTypeConfigInThisServer, from the
// environment variable ROCKETMQ_SERIALIZE_TYPE (Java also reads the system
// property rocketmq.serialize.type), JSON unless it says ROCKETMQ.
var ownSerializeType = sync.OnceValue(func() codec.SerializeType {
	if os.Getenv("ROCKETMQ_SERIALIZE_TYPE") == "ROCKETMQ" {
		return codec.RocketMQ
	}
	return codec.JSON
})
