package broker

// ACK_MESSAGE (200051) and CHANGE_MESSAGE_INVISIBLETIME (200053): mirror 5.x
// AckMessageProcessor.appendAck / ackOrderly and
// ChangeInvisibleTimeProcessor (the revive-log path). An ack is a record in
// the revive queue named by the receipt handle; changing the invisible time
// writes a new one-message checkpoint due at now+invisibleTime, then acks
// the original. Orderly (reviveQid 999) receipts act on the FIFO table
// instead.

import (
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// checkAckQueue is the topic and queue validation ACK and
// CHANGE_INVISIBLE share.
func (p *popProcessor) checkAckQueue(ctx *remoting.Context, t string, queueID int32) *codec.RemotingCommand {
	tc := p.b.topics.SelectTopicConfig(t)
	if tc == nil {
		p.lg.Error("the topic not exist", zap.String("topic", t), zap.String("remoteAddr", remoteAddr(ctx)))
		return codec.NewResponse(code.TopicNotExist, "topic["+t+"] not exist, apply first please! "+faqSuffix)
	}
	if queueID >= tc.ReadQueueNums || queueID < 0 {
		return codec.NewResponse(code.MessageIllegal, fmt.Sprintf(
			"queueId[%d] is illegal, topic:[%s] topicConfig.readQueueNums:[%d] consumer:[/%s]",
			queueID, t, tc.ReadQueueNums, remoteAddr(ctx)))
	}
	return nil
}

func (p *popProcessor) processAck(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.AckMessageRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	if resp := p.checkAckQueue(ctx, h.Topic, h.QueueID); resp != nil {
		return resp, nil
	}
	minOff, maxOff := p.b.store.MinOffsetInQueue(h.Topic, h.QueueID), p.b.store.MaxOffsetInQueue(h.Topic, h.QueueID)
	if h.Offset < minOff || h.Offset > maxOff {
		return codec.NewResponse(code.NoMessage, fmt.Sprintf("offset is illegal, key:%s@%d, commit:%d, store:%d~%d",
			h.Topic, h.QueueID, h.Offset, minOff, maxOff)), nil
	}
	ei, err := pop.ParseExtraInfo(h.ExtraInfo)
	if err != nil {
		return nil, wireError(code.SystemError, err.Error())
	}
	resp := codec.NewResponse(code.Success, "")
	if ei.IsOrder() {
		p.ackOrderly(ctx, h.Topic, h.ConsumerGroup, h.QueueID, h.Offset, ei, resp)
		return resp, nil
	}
	a := pop.AckMsg{
		AckOffset: h.Offset, StartOffset: ei.CkQueueOffset, ConsumerGroup: h.ConsumerGroup, Topic: h.Topic,
		QueueID: h.QueueID, PopTime: ei.PopTime, BrokerName: ei.BrokerName,
	}
	// Java logs a failed ack put and still answers SUCCESS.
	p.putRevive(ei.ReviveQid, pop.AckTag, a.UniqueID(), &a)
	return resp, nil
}

// ackOrderly moves the group's offset to the first unacknowledged message
// of the FIFO batch, and wakes the group's held pops once the queue is no
// longer blocked.
func (p *popProcessor) ackOrderly(ctx *remoting.Context, t, group string, queueID int32, offset int64,
	ei pop.ExtraInfo, resp *codec.RemotingCommand) {
	if offset < p.b.offsets.QueryOffset(group, t, queueID) {
		return
	}
	unlock := p.lockWait(lockKey(t, group, queueID))
	old := p.b.offsets.QueryOffset(group, t, queueID)
	if offset < old {
		unlock()
		return
	}
	next := p.orders.CommitAndNext(t, group, queueID, offset, ei.PopTime)
	if next > -1 {
		p.b.offsets.CommitOffset(remoteAddr(ctx), group, t, queueID, next)
	}
	unlock()
	switch {
	case next > -1:
		if !p.orders.CheckBlock("", t, group, queueID, ei.InvisibleTime, time.Now().UnixMilli()) {
			p.hold.WakeGroup(t, group)
		}
	case next == -1:
		resp.Code = code.MessageIllegal
		resp.Remark = fmt.Sprintf("offset is illegal, key:%s, old:%d, commit:%d, next:%d, /%s",
			lockKey(t, group, queueID), old, offset, next, remoteAddr(ctx))
	}
}

func (p *popProcessor) processChangeInvisible(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.ChangeInvisibleTimeRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	rh := header.ChangeInvisibleTimeResponseHeader{}
	answer := func(c int32, remark string) *codec.RemotingCommand {
		resp := codec.NewResponse(c, remark)
		resp.ExtFields = rh.ToExtFields()
		return resp
	}
	if resp := p.checkAckQueue(ctx, h.Topic, h.QueueID); resp != nil {
		resp.ExtFields = rh.ToExtFields()
		return resp, nil
	}
	minOff, maxOff := p.b.store.MinOffsetInQueue(h.Topic, h.QueueID), p.b.store.MaxOffsetInQueue(h.Topic, h.QueueID)
	if h.Offset < minOff || h.Offset >= maxOff {
		return answer(code.NoMessage, ""), nil
	}
	ei, err := pop.ParseExtraInfo(h.ExtraInfo)
	if err != nil {
		return nil, wireError(code.SystemError, err.Error())
	}
	if ei.IsOrder() {
		p.changeInvisibleOrderly(&h, ei, &rh)
		return answer(code.Success, ""), nil
	}
	now := time.Now().UnixMilli()
	ck := pop.Checkpoint{
		Num: 1, PopTime: now, InvisibleTime: h.InvisibleTime, StartOffset: h.Offset, CID: h.ConsumerGroup,
		Topic: h.Topic, QueueID: h.QueueID, BrokerName: ei.BrokerName, QueueOffsetDiff: []int32{0},
	}
	ck.ReviveTime = ck.Due()
	if !p.putRevive(ei.ReviveQid, pop.CkTag, ck.UniqueID(), &ck) {
		return answer(code.SystemError, ""), nil
	}
	a := pop.AckMsg{
		AckOffset: h.Offset, StartOffset: ei.CkQueueOffset, ConsumerGroup: h.ConsumerGroup, Topic: h.Topic,
		QueueID: h.QueueID, PopTime: ei.PopTime, BrokerName: ei.BrokerName,
	}
	if !p.putRevive(ei.ReviveQid, pop.AckTag, a.UniqueID(), &a) {
		return answer(code.SystemError, ""), nil
	}
	rh = header.ChangeInvisibleTimeResponseHeader{PopTime: now, InvisibleTime: h.InvisibleTime, ReviveQid: ei.ReviveQid}
	return answer(code.Success, ""), nil
}

// changeInvisibleOrderly is processChangeInvisibleTimeForOrder.
func (p *popProcessor) changeInvisibleOrderly(h *header.ChangeInvisibleTimeRequestHeader, ei pop.ExtraInfo,
	rh *header.ChangeInvisibleTimeResponseHeader) {
	if h.Offset < p.b.offsets.QueryOffset(h.ConsumerGroup, h.Topic, h.QueueID) {
		return
	}
	unlock := p.lockWait(lockKey(h.Topic, h.ConsumerGroup, h.QueueID))
	defer unlock()
	if h.Offset < p.b.offsets.QueryOffset(h.ConsumerGroup, h.Topic, h.QueueID) {
		return
	}
	next := time.Now().UnixMilli() + h.InvisibleTime
	p.orders.UpdateNextVisibleTime(h.Topic, h.ConsumerGroup, h.QueueID, h.Offset, ei.PopTime, next)
	*rh = header.ChangeInvisibleTimeResponseHeader{PopTime: ei.PopTime, InvisibleTime: next - ei.PopTime, ReviveQid: ei.ReviveQid}
}
