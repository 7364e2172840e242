package broker

// CONSUMER_SEND_MSG_BACK (36): SendMessageProcessor.asyncConsumerSendMsgBack
// (4.9.8). A consumer hands back a message it failed to consume; it is
// re-stored to %RETRY%group with a delay level, or to %DLQ%group once it
// has been reconsumed too often.

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/schedule"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func (b *Broker) consumerSendMsgBack(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.ConsumerSendMsgBackRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	sg, ok := b.subs.FindSubscriptionGroupConfig(h.Group)
	if !ok {
		return codec.NewResponse(code.SubscriptionGroupNotExist, "subscription group not exist, "+h.Group+" "+faqSuffix), nil
	}
	if !b.brokerWritable() {
		return nil, b.errSendForbidden()
	}
	if sg.RetryQueueNums <= 0 {
		return codec.NewResponse(code.Success, ""), nil
	}
	newTopic := topic.RetryTopic(h.Group)
	queueID := rand.Int32N(99999999) % sg.RetryQueueNums
	var sysFlag int32
	if h.UnitMode {
		sysFlag = topic.FlagUnitSub
	}
	tc, _ := b.topics.CreateTopicInSendMessageBackMethod(newTopic, sg.RetryQueueNums, topic.PermWrite|topic.PermRead, sysFlag)
	if tc == nil {
		return codec.NewResponse(code.SystemError, "topic["+newTopic+"] not exist"), nil
	}
	if !topic.IsWriteable(tc.Perm) {
		return codec.NewResponse(code.NoPermission, "the topic["+newTopic+"] sending message is forbidden"), nil
	}
	orig, err := b.store.LookMessageByOffset(h.Offset)
	if err != nil || orig == nil {
		return codec.NewResponse(code.SystemError, "look message by offset failed, "+strconv.FormatInt(h.Offset, 10)), nil
	}
	m, resp := b.buildSendBack(req, &h, orig, newTopic, queueID, sg.RetryMaxTimes)
	if resp != nil {
		return resp, nil
	}
	backTopic := orig.Topic // the consumed topic, or the original one for a retry message
	if rt := message.PropertyValue(orig.PropertiesString, message.PropertyRetryTopic); rt != "" {
		backTopic = rt
	}
	b.store.PutMessageAsync(m, func(r commitlog.PutMessageResult) {
		if r.Status == commitlog.PutOK {
			if m.Topic == schedule.ScheduleTopic { // delayed retry: stored under the schedule topic
				b.stats.IncTopicPut(m.Topic, m.QueueID, 1, int64(r.Append.WroteBytes))
			}
			b.stats.IncSendBack(h.Group, backTopic)
			ctx.Respond(codec.NewResponse(code.Success, ""))
			return
		}
		ctx.Respond(codec.NewResponse(code.SystemError, r.Status.String()))
	})
	return nil, nil
}

// buildSendBack builds the message to re-store: retry topic with a delay
// level (3 + reconsumeTimes unless the consumer chose one), or the DLQ.
func (b *Broker) buildSendBack(req *codec.RemotingCommand, h *header.ConsumerSendMsgBackRequestHeader,
	orig *message.MessageExt, newTopic string, queueID, retryMax int32) (*message.MessageExt, *codec.RemotingCommand) {
	props := message.ParseHashMapProperties(orig.PropertiesString)
	if props.Value(message.PropertyRetryTopic) == "" {
		props.Put(message.PropertyRetryTopic, orig.Topic)
	}
	props.Put(message.PropertyWaitStoreMsgOK, "false")
	maxTimes := retryMax
	if req.Version >= code.VersionV349 && h.MaxReconsumeTimes != nil {
		maxTimes = *h.MaxReconsumeTimes
	}
	delay := h.DelayLevel
	if orig.ReconsumeTimes >= maxTimes || delay < 0 {
		newTopic = topic.DLQTopic(h.Group)
		queueID = rand.Int32N(99999999) % dlqNumsPerGroup
		tc, _ := b.topics.CreateTopicInSendMessageBackMethod(newTopic, dlqNumsPerGroup, topic.PermWrite|topic.PermRead, 0)
		if tc == nil {
			return nil, codec.NewResponse(code.SystemError, "topic["+newTopic+"] not exist")
		}
		delay = 0
	} else if delay == 0 {
		delay = 3 + orig.ReconsumeTimes
	}
	props.Put(message.PropertyDelayTimeLevel, strconv.Itoa(int(delay)))
	if strings.TrimSpace(props.Value(message.PropertyOriginMessageID)) == "" {
		props.Put(message.PropertyOriginMessageID, orig.MsgID)
	}
	return &message.MessageExt{
		Message:          message.Message{Topic: newTopic, Flag: orig.Flag, Body: orig.Body},
		PropertiesString: props.String(),
		QueueID:          queueID,
		SysFlag:          orig.SysFlag,
		BornTimestamp:    orig.BornTimestamp,
		BornHost:         orig.BornHost,
		StoreHost:        orig.StoreHost,
		ReconsumeTimes:   orig.ReconsumeTimes + 1,
	}, nil
}

// The retry path needs delayed delivery: a sent-back message waits in
// SCHEDULE_TOPIC_XXXX until its level's delay passed. The broker core has
// no slot for the ScheduleMessageService, so it is wired here: the delay
// offset table (config/delayOffset.json) is loaded on every role, delivery
// runs on a master only (as DefaultMessageStore.handleScheduleMessageService).
func init() { processorFamilies = append(processorFamilies, registerScheduleDelivery) }

// delayOffsetTables maps a *Broker to its delay offset table (see
// DelayOffsets); entries are removed at shutdown.
var delayOffsetTables sync.Map

func registerScheduleDelivery(b *Broker) {
	lg := b.lg.Named("schedule")
	table := schedule.NewOffsetTable(filepath.Join(b.storeCfg.ConfigDir(), "delayOffset.json"), lg)
	if err := table.Load(); err != nil {
		lg.Error("load delay offsets", zap.Error(err))
	}
	levels, err := schedule.ParseDelayLevel(b.storeCfg.MessageDelayLevel)
	if err != nil {
		lg.Error("parse messageDelayLevel", zap.Error(err))
	}
	table.CorrectDelayOffset(len(levels), func(qid int32) (int64, int64, bool) {
		if b.store.MaxOffsetInQueue(schedule.ScheduleTopic, qid) == 0 {
			return 0, 0, false
		}
		return b.store.MinOffsetInQueue(schedule.ScheduleTopic, qid), b.store.MaxOffsetInQueue(schedule.ScheduleTopic, qid), true
	})
	delayOffsetTables.Store(b, table)
	b.onShutdown(func(context.Context) {
		if err := table.Persist(); err != nil {
			lg.Error("persist delay offsets", zap.Error(err))
		}
		delayOffsetTables.Delete(b)
	})
	st, ok := b.store.(schedule.Store)
	if len(levels) == 0 || !ok {
		return
	}
	if b.storeCfg.EnableScheduleMessageStats {
		st = statsScheduleStore{Store: st, b: b}
	}
	b.addMasterService(func() *service.Service {
		return schedule.NewDeliveryService(st, table, schedule.DeliveryOptions{
			Levels:          levels,
			PersistInterval: time.Duration(b.storeCfg.FlushDelayOffsetInterval) * time.Millisecond,
			Logger:          lg,
		}).Service()
	})
}

// DelayOffsets is the delay offset table (GET_ALL_DELAY_OFFSET, slave sync);
// nil after Shutdown.
func (b *Broker) DelayOffsets() *schedule.OffsetTable {
	if t, ok := delayOffsetTables.Load(b); ok {
		return t.(*schedule.OffsetTable)
	}
	return nil
}

// statsScheduleStore counts the delivery service's successful puts in the
// BrokerStatsManager (enableScheduleMessageStats).
type statsScheduleStore struct {
	schedule.Store
	b *Broker
}

func (s statsScheduleStore) PutMessage(m *message.MessageExt) commitlog.PutMessageResult {
	r := s.Store.PutMessage(m)
	if r.Status == commitlog.PutOK {
		s.b.stats.IncScheduleDelivered(m.Topic, int64(r.Append.MsgNum), int64(r.Append.WroteBytes))
	}
	return r
}
