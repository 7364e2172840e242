package broker

// PEEK_MESSAGE (200052), NOTIFICATION (200054) and POLLING_INFO (200055):
// mirror 5.x PeekMessageProcessor, NotificationProcessor and
// PollingInfoProcessor. Peek reads from the group's pop offset without
// taking anything; notification answers whether a pop would find a message
// (held up to pollTime in its own long-polling table); polling info counts
// the pops held for topic@group@queueId.

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// checkPeek is the validation the three processors share; answer builds
// the error response with the processor's header.
func (p *popProcessor) checkPeek(ctx *remoting.Context, t, group string, queueID int32,
	answer func(c int32, remark string) *codec.RemotingCommand) (*body.TopicConfig, *codec.RemotingCommand) {
	if !p.b.brokerReadable() {
		return nil, answer(code.NoPermission, "the broker["+p.b.Config().BrokerIP1+"] peeking message is forbidden")
	}
	tc := p.b.topics.SelectTopicConfig(t)
	if tc == nil {
		return nil, answer(code.TopicNotExist, "topic["+t+"] not exist, apply first please! "+faqSuffix)
	}
	if !topic.IsReadable(tc.Perm) {
		return nil, answer(code.NoPermission, "the topic["+t+"] peeking message is forbidden")
	}
	if queueID >= tc.ReadQueueNums {
		return nil, answer(code.InvalidParameter, "queueId["+strconv.Itoa(int(queueID))+"] is illegal, topic:["+t+
			"] topicConfig.readQueueNums:["+strconv.Itoa(int(tc.ReadQueueNums))+"] consumer:[/"+remoteAddr(ctx)+"]")
	}
	sg, ok := p.b.subs.FindSubscriptionGroupConfig(group)
	if !ok {
		return nil, answer(code.SubscriptionGroupNotExist, "subscription group ["+group+"] does not exist, "+faqSuffix)
	}
	if !sg.ConsumeEnable {
		return nil, answer(code.NoPermission, "subscription group no permission, "+group)
	}
	return tc, nil
}

// peekOffset is the processors' getPopOffset: the group's offset, or the
// queue's first one.
func (p *popProcessor) peekOffset(t, group string, queueID int32) int64 {
	if off := p.b.offsets.QueryOffset(group, t, queueID); off >= 0 {
		return off
	}
	return max(p.b.store.MinOffsetInQueue(t, queueID), 0)
}

func (p *popProcessor) processPeek(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.PeekMessageRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	answer := func(c int32, remark string) *codec.RemotingCommand { return popResponse(c, remark, nil) }
	tc, resp := p.checkPeek(ctx, h.Topic, h.ConsumerGroup, h.QueueID, answer)
	if resp != nil {
		return resp, nil
	}
	randomQ := rand.IntN(100)
	needRetry := randomQ%5 == 0
	retry := p.b.topics.SelectTopicConfig(pop.RetryTopic(h.Topic, h.ConsumerGroup, p.b.Config().EnableRetryTopicV2))
	var msgs [][]byte
	var rest int64
	peekTopic := func(tc *body.TopicConfig) {
		if tc == nil || tc.ReadQueueNums <= 0 {
			return
		}
		for i := range tc.ReadQueueNums {
			msgs, rest = p.peekQueue(&h, tc.TopicName, (int32(randomQ)+i)%tc.ReadQueueNums, msgs, rest)
		}
	}
	if needRetry {
		peekTopic(retry)
	}
	if h.QueueID < 0 {
		peekTopic(tc)
	} else {
		msgs, rest = p.peekQueue(&h, tc.TopicName, h.QueueID, msgs, rest)
	}
	if !needRetry && len(msgs) < int(h.MaxMsgNums) {
		peekTopic(retry)
	}
	rh := &header.PopMessageResponseHeader{RestNum: rest}
	if len(msgs) == 0 {
		return popResponse(code.PullNotFound, store.NoMessageInQueue.String(), rh), nil
	}
	resp = popResponse(code.Success, store.Found.String(), rh)
	for _, m := range msgs {
		resp.Body = append(resp.Body, m...)
	}
	return resp, nil
}

// peekQueue is peekMsgFromQueue.
func (p *popProcessor) peekQueue(h *header.PeekMessageRequestHeader, t string, queueID int32, msgs [][]byte,
	rest int64) ([][]byte, int64) {
	off := p.peekOffset(t, h.ConsumerGroup, queueID)
	rest += p.b.store.MaxOffsetInQueue(t, queueID) - off
	if len(msgs) >= int(h.MaxMsgNums) {
		return msgs, rest
	}
	res := p.b.store.GetMessage(h.ConsumerGroup, t, queueID, off, h.MaxMsgNums-int32(len(msgs)), nil)
	if res != nil && (res.Status == store.OffsetTooSmall || res.Status == store.OffsetOverflowBadly) {
		res = p.b.store.GetMessage(h.ConsumerGroup, t, queueID, res.NextBeginOffset, h.MaxMsgNums-int32(len(msgs)), nil)
	}
	if res != nil {
		msgs = append(msgs, res.Messages...)
	}
	return msgs, rest
}

func (p *popProcessor) processNotification(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	return p.notification(ctx, req, true)
}

func (p *popProcessor) notification(ctx *remoting.Context, req *codec.RemotingCommand, allowSuspend bool) (*codec.RemotingCommand, error) {
	if req.ExtFields == nil {
		req.ExtFields = map[string]string{}
	}
	if v := req.ExtFields["bornTime"]; v == "" || v == "0" {
		req.ExtFields["bornTime"] = strconv.FormatInt(time.Now().UnixMilli(), 10)
	}
	var h header.NotificationRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	rh := header.NotificationResponseHeader{}
	answer := func(c int32, remark string) *codec.RemotingCommand {
		resp := codec.NewResponse(c, remark)
		resp.ExtFields = rh.ToExtFields()
		return resp
	}
	tc, resp := p.checkPeek(ctx, h.Topic, h.ConsumerGroup, h.QueueID, answer)
	if resp != nil {
		return resp, nil
	}
	cfg := p.b.Config()
	randomQ := rand.IntN(100)
	needRetry := randomQ%5 == 0
	retryTopics := []string{pop.RetryTopic(h.Topic, h.ConsumerGroup, cfg.EnableRetryTopicV2)}
	if cfg.EnableRetryTopicV2 && cfg.RetrieveMessageFromPopRetryTopicV1 {
		retryTopics = append(retryTopics, pop.RetryTopicV1(h.Topic, h.ConsumerGroup))
	}
	inRetry := func() bool {
		for _, rt := range retryTopics {
			if p.hasMsgInTopic(&h, p.b.topics.SelectTopicConfig(rt), randomQ) {
				return true
			}
		}
		return false
	}
	has := needRetry && inRetry()
	if !has {
		if h.QueueID < 0 {
			has = p.hasMsgInTopic(&h, tc, randomQ)
		} else {
			has = p.hasMsgInQueue(&h, tc.TopicName, h.QueueID)
		}
		if !has && !needRetry {
			has = inRetry()
		}
	}
	if !has && allowSuspend && h.PollTime > 0 {
		w := &pop.Waiter{Topic: h.Topic, Group: h.ConsumerGroup, QueueID: max(h.QueueID, -1), Expire: h.BornTime + h.PollTime}
		w.Wakeup = func() { p.rerun(ctx, req, p.notification) }
		switch p.notifyHold.Poll(w, time.Now().UnixMilli()) {
		case pop.PollingSuc:
			ctx.MarkSuspended()
			return nil, nil
		case pop.PollingFull:
			rh.PollingFull = true
		}
	}
	rh.HasMsg = has
	return answer(code.Success, ""), nil
}

func (p *popProcessor) hasMsgInTopic(h *header.NotificationRequestHeader, tc *body.TopicConfig, randomQ int) bool {
	if tc == nil || tc.ReadQueueNums <= 0 {
		return false
	}
	for i := range tc.ReadQueueNums {
		if p.hasMsgInQueue(h, tc.TopicName, (int32(randomQ)+i)%tc.ReadQueueNums) {
			return true
		}
	}
	return false
}

func (p *popProcessor) hasMsgInQueue(h *header.NotificationRequestHeader, t string, queueID int32) bool {
	if h.Order && p.orders.CheckBlock(h.AttemptID, h.Topic, h.ConsumerGroup, queueID, 0, time.Now().UnixMilli()) {
		return false
	}
	return p.b.store.MaxOffsetInQueue(t, queueID)-p.peekOffset(t, h.ConsumerGroup, queueID) > 0
}

func (p *popProcessor) processPollingInfo(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.PollingInfoRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	rh := header.PollingInfoResponseHeader{}
	answer := func(c int32, remark string) *codec.RemotingCommand {
		resp := codec.NewResponse(c, remark)
		resp.ExtFields = rh.ToExtFields()
		return resp
	}
	if _, resp := p.checkPeek(ctx, h.Topic, h.ConsumerGroup, h.QueueID, answer); resp != nil {
		return resp, nil
	}
	rh.PollingNum = int32(p.hold.Count(h.Topic, h.ConsumerGroup, max(h.QueueID, -1)))
	return answer(code.Success, ""), nil
}
