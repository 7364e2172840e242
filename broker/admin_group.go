package broker

// AdminBrokerProcessor (4.9.8) subscription-group and offset codes:
// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200), GET_ALL_SUBSCRIPTIONGROUP_CONFIG
// (201), DELETE_SUBSCRIPTIONGROUP (207), GET_CONSUME_STATS (208),
// QUERY_TOPIC_CONSUME_BY_WHO (300), QUERY_CONSUME_TIME_SPAN (303),
// QUERY_CORRECTION_OFFSET (308), CLONE_GROUP_OFFSET (314),
// GET_ALL_CONSUMER_OFFSET (43), GET_ALL_DELAY_OFFSET (45), and the 5.x
// look-ups QUERY_TOPICS_BY_CONSUMER (343), QUERY_SUBSCRIPTION_BY_CONSUMER
// (345) and GET_SUBSCRIPTIONGROUP_CONFIG (352).

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func (p *adminProcessor) addGroupHandlers(h map[int32]remoting.ProcessorFunc) {
	h[code.UpdateAndCreateSubscriptiongroup] = p.updateAndCreateSubscriptionGroup
	h[code.GetAllSubscriptiongroupConfig] = p.getAllSubscriptionGroup
	h[code.DeleteSubscriptiongroup] = p.deleteSubscriptionGroup
	h[code.GetConsumeStats] = p.getConsumeStats
	h[code.QueryTopicConsumeByWho] = p.queryTopicConsumeByWho
	h[code.QueryConsumeTimeSpan] = p.queryConsumeTimeSpan
	h[code.QueryCorrectionOffset] = p.queryCorrectionOffset
	h[code.CloneGroupOffset] = p.cloneGroupOffset
	h[code.GetAllConsumerOffset] = p.getAllConsumerOffset
	h[code.GetAllDelayOffset] = p.getAllDelayOffset
	h[code.QueryTopicsByConsumer] = p.queryTopicsByConsumer
	h[code.QuerySubscriptionByConsumer] = p.querySubscriptionByConsumer
	h[code.GetSubscriptiongroupConfig] = p.getSubscriptionGroupConfig
}

func (p *adminProcessor) updateAndCreateSubscriptionGroup(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	if err := p.checkSlave(); err != nil {
		return nil, err
	}
	if len(req.Body) > 0 {
		cfg, err := decodeSubscriptionGroupConfig(req.Body)
		if err != nil {
			return nil, err
		}
		p.b.subs.UpdateSubscriptionGroupConfig(cfg)
		p.lg.Info("update or create subscription group", zap.String("consumerGroup", cfg.GroupName),
			zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
	}
	// Answered once journaled: as durable as Java's synchronous rewrite.
	return success(), nil
}

// decodeSubscriptionGroupConfig reads one SubscriptionGroupConfig body
// (fastjson bean; absent fields keep Java's defaults).
func decodeSubscriptionGroupConfig(data []byte) (body.SubscriptionGroupConfig, error) {
	var c body.SubscriptionGroupConfig
	norm, err := body.Normalize(data)
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(norm, &c)
}

func (p *adminProcessor) getAllSubscriptionGroup(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	content := p.b.subs.Encode()
	if len(content) == 0 {
		return nil, wireError(code.SystemError, "No subscription group in this broker")
	}
	resp := success()
	resp.Body = content
	return resp, nil
}

func (p *adminProcessor) deleteSubscriptionGroup(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	if err := p.checkSlave(); err != nil {
		return nil, err
	}
	var h header.DeleteSubscriptionGroupRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	p.b.subs.DeleteSubscriptionGroupConfig(h.GroupName)
	if h.RemoveOffset {
		p.b.offsets.RemoveOffset(h.GroupName)
	}
	if p.b.Config().AutoDeleteUnusedStats {
		p.b.stats.OnGroupDeleted(h.GroupName)
	}
	p.b.metrics.OnGroupDeleted(h.GroupName) // no-op unless metrics are on
	p.lg.Info("delete subscription group", zap.String("consumerGroup", h.GroupName),
		zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
	return success(), nil
}

func (p *adminProcessor) getConsumeStats(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetConsumeStatsRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	topics := []string{h.Topic}
	if strings.TrimSpace(h.Topic) == "" {
		topics = p.b.offsets.WhichTopicByConsumer(h.ConsumerGroup)
	}
	cs := body.ConsumeStats{OffsetTable: map[body.MessageQueue]body.OffsetWrapper{}}
	for _, t := range topics {
		if tc := p.b.topics.SelectTopicConfig(t); tc != nil {
			if p.addConsumeStats(&cs, h.ConsumerGroup, t, tc.ReadQueueNums) {
				cs.ConsumeTps += p.b.stats.TpsGroupGetNums(h.ConsumerGroup, t) // the group's pulls, last minute
			}
		}
	}
	resp := success()
	resp.Body = cs.Encode()
	return resp, nil
}

// addConsumeStats adds topic's first queues queues to cs unless the
// online group does not subscribe topic; it reports whether it did.
func (p *adminProcessor) addConsumeStats(cs *body.ConsumeStats, group, topic string, queues int32) bool {
	if p.b.consumers.FindSubscriptionData(group, topic) == nil && p.b.consumers.FindSubscriptionDataCount(group) > 0 {
		return false
	}
	s := p.b.store
	for i := int32(0); i < queues; i++ {
		ow := body.OffsetWrapper{
			BrokerOffset:   max(s.MaxOffsetInQueue(topic, i), 0),
			ConsumerOffset: max(p.b.offsets.QueryOffset(group, topic, i), 0),
		}
		if ow.ConsumerOffset-1 >= 0 {
			if ts := s.MessageStoreTimeStamp(topic, i, ow.ConsumerOffset-1); ts > 0 {
				ow.LastTimestamp = ts
			}
		}
		cs.OffsetTable[body.MessageQueue{Topic: topic, BrokerName: p.b.Config().BrokerName, QueueID: i}] = ow
	}
	return true
}

func (p *adminProcessor) queryTopicConsumeByWho(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.QueryTopicConsumeByWhoRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	groups := uniq(p.b.consumers.QueryTopicConsumeByWho(h.Topic), p.b.offsets.WhichGroupByTopic(h.Topic))
	gl := body.GroupList{GroupList: groups}
	resp := success()
	resp.Body = gl.Encode()
	return resp, nil
}

// uniq merges string lists, dropping duplicates, keeping first-seen order.
func uniq(lists ...[]string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, l := range lists {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

func (p *adminProcessor) queryConsumeTimeSpan(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.QueryConsumeTimeSpanRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	tc := p.b.topics.SelectTopicConfig(h.Topic)
	if tc == nil {
		return nil, wireError(code.TopicNotExist, "topic["+h.Topic+"] not exist")
	}
	s := p.b.store
	spans := make([]body.QueueTimeSpan, 0, tc.WriteQueueNums)
	for i := int32(0); i < tc.WriteQueueNums; i++ {
		ts := body.QueueTimeSpan{MessageQueue: body.MessageQueue{Topic: h.Topic, BrokerName: p.b.Config().BrokerName, QueueID: i}}
		ts.MinTimeStamp = s.EarliestMessageTime(h.Topic, i)
		maxOff := s.MaxOffsetInQueue(h.Topic, i)
		ts.MaxTimeStamp = s.MessageStoreTimeStamp(h.Topic, i, maxOff-1)
		consumed := p.b.offsets.QueryOffset(h.Group, h.Topic, i)
		ts.ConsumeTimeStamp = ts.MinTimeStamp
		if consumed > 0 {
			ts.ConsumeTimeStamp = s.MessageStoreTimeStamp(h.Topic, i, consumed-1)
		}
		if consumed < maxOff {
			ts.DelayTime = time.Now().UnixMilli() - s.MessageStoreTimeStamp(h.Topic, i, consumed)
		}
		spans = append(spans, ts)
	}
	b := body.QueryConsumeTimeSpanBody{ConsumeTimeSpanSet: spans}
	resp := success()
	resp.Body = b.Encode()
	return resp, nil
}

func (p *adminProcessor) queryCorrectionOffset(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.QueryCorrectionOffsetHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	corr := p.b.offsets.QueryMinOffsetInAllGroup(h.Topic, h.FilterGroups, p.b.store.MinOffsetInQueue)
	if corr == nil {
		corr = map[int32]int64{}
	}
	for qid, off := range p.b.offsets.QueryOffsets(h.CompareGroup, h.Topic) {
		if c, ok := corr[qid]; ok && c > off {
			corr[qid] = 1<<63 - 1
		} else if !ok {
			// Java unboxes a missing entry: NullPointerException → SYSTEM_ERROR.
			return nil, wireError(code.SystemError, "java.lang.NullPointerException")
		}
	}
	resp := success()
	resp.Body = encodeCorrectionOffsets(corr)
	return resp, nil
}

// encodeCorrectionOffsets writes QueryCorrectionOffsetBody
// ({"correctionOffsets":{0:5,...}}, HashMap order of small int keys).
func encodeCorrectionOffsets(m map[int32]int64) []byte {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, int64(k))
	}
	body.SortJavaLongKeys(keys, body.JavaHashMapCapacity(len(keys), 16))
	b := []byte(`{"correctionOffsets":{`)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = body.AppendIntKey(b, k, false)
		b = strconv.AppendInt(b, m[int32(k)], 10)
	}
	return append(b, "}}"...)
}

func (p *adminProcessor) cloneGroupOffset(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.CloneGroupOffsetRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	topics := []string{h.Topic}
	if strings.TrimSpace(h.Topic) == "" {
		topics = p.b.offsets.WhichTopicByConsumer(h.SrcGroup)
	}
	for _, t := range topics {
		if p.b.topics.SelectTopicConfig(t) == nil {
			continue
		}
		if !h.Offline && p.b.consumers.FindSubscriptionDataCount(h.SrcGroup) > 0 &&
			p.b.consumers.FindSubscriptionData(h.SrcGroup, t) == nil {
			continue
		}
		// Java passes the header's topic here (empty when cloning all).
		p.b.offsets.CloneOffset(h.SrcGroup, h.DestGroup, h.Topic)
	}
	return success(), nil
}

func (p *adminProcessor) getAllConsumerOffset(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	content := p.b.offsets.Encode()
	if len(content) == 0 {
		return nil, wireError(code.SystemError, "No consumer offset in this broker")
	}
	resp := success()
	resp.Body = content
	return resp, nil
}

func (p *adminProcessor) getAllDelayOffset(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	t := p.b.DelayOffsets()
	if t == nil {
		return nil, wireError(code.SystemError, "Delay offset not supported in this messagetore")
	}
	content := t.Encode()
	if len(content) == 0 {
		return nil, wireError(code.SystemError, "No delay offset in this broker")
	}
	resp := success()
	resp.Body = content
	return resp, nil
}

// queryTopicsByConsumer is 5.x QUERY_TOPICS_BY_CONSUMER: the topics the
// group has offsets for, as a TopicList with this broker's address.
func (p *adminProcessor) queryTopicsByConsumer(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.QueryTopicsByConsumerRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	topics := p.b.offsets.WhichTopicByConsumer(h.Group)
	body.SortJavaHashOrder(topics)
	tl := body.TopicList{TopicList: topics, BrokerAddr: p.b.BrokerAddr()}
	resp := success()
	resp.Body = tl.Encode()
	return resp, nil
}

// querySubscriptionByConsumer is 5.x QUERY_SUBSCRIPTION_BY_CONSUMER:
// {"group","topic","subscriptionData"} for the online group's topic.
func (p *adminProcessor) querySubscriptionByConsumer(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.QuerySubscriptionByConsumerRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	b := []byte(`{"group":`)
	b = body.AppendString(b, h.Group, false)
	if sd := p.b.consumers.FindSubscriptionData(h.Group, h.Topic); sd != nil {
		b = append(b, `,"subscriptionData":`...)
		b = append(b, sd.Encode()...)
	}
	b = append(b, `,"topic":`...)
	b = body.AppendString(b, h.Topic, false)
	resp := success()
	resp.Body = append(b, '}')
	return resp, nil
}

// getSubscriptionGroupConfig is 5.x GET_SUBSCRIPTIONGROUP_CONFIG.
func (p *adminProcessor) getSubscriptionGroupConfig(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetSubscriptionGroupConfigRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	cfg, ok := p.b.subs.Get(h.Group)
	if !ok {
		return nil, wireError(code.SubscriptionGroupNotExist, "No group in this broker. group: "+h.Group)
	}
	resp := success()
	resp.Body = cfg.AppendJSON(nil)
	return resp, nil
}
