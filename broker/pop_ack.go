package broker

// ACK_MESSAGE (200051), BATCH_ACK_MESSAGE (200151) and
// CHANGE_MESSAGE_INVISIBLETIME (200053): mirror 5.x
// AckMessageProcessor.appendAck / ackOrderly and
// ChangeInvisibleTimeProcessor (the revive-log path). An ack is a record in
// the revive queue named by the receipt handle; changing the invisible time
// writes a new one-message checkpoint due at now+invisibleTime, then acks
// the original. Orderly (reviveQid 999) receipts act on the FIFO table
// instead.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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

// checkReviveQid rejects a receipt handle whose revive queue does not
// exist: its ack or checkpoint would land in a queue the revive service
// never reads (an ack lost, a change of invisible time never revived).
// 5.x does not check it; the code and remark are its ack processor's for
// an illegal queue id. The FIFO mark (999) is valid.
func (p *popProcessor) checkReviveQid(ctx *remoting.Context, qid int32) *codec.RemotingCommand {
	n := p.b.Config().ReviveQueueNum
	if qid == pop.OrderReviveQueue || qid >= 0 && int(qid) < max(n, 1) {
		return nil
	}
	return codec.NewResponse(code.MessageIllegal, fmt.Sprintf("reviveQid[%d] is illegal, topic:[%s] reviveQueueNum:[%d] consumer:[/%s]",
		qid, p.reviveTopic, n, remoteAddr(ctx)))
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
	if resp := p.checkReviveQid(ctx, ei.ReviveQid); resp != nil {
		return resp, nil
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
	if resp := p.checkReviveQid(ctx, ei.ReviveQid); resp != nil {
		resp.ExtFields = rh.ToExtFields()
		return resp, nil
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

// batchAck is BatchAck (5.x remoting body): one pop batch's acked offsets
// as a java.util.BitSet over startOffset, fastjson-written as the base64 of
// BitSet.toByteArray.
type batchAck struct {
	ConsumerGroup string `json:"c"`
	Topic         string `json:"t"`
	Retry         string `json:"r"`
	StartOffset   int64  `json:"so"`
	QueueID       int32  `json:"q"`
	ReviveQueueID int32  `json:"rq"`
	PopTime       int64  `json:"pt"`
	InvisibleTime int64  `json:"it"`
	BitSet        []byte `json:"b"`
}

// batchAckBody is BatchAckMessageRequestBody.
type batchAckBody struct {
	BrokerName string     `json:"brokerName"`
	Acks       []batchAck `json:"acks"`
}

// bits lists the set bit indexes of a BitSet.toByteArray (little endian).
func bits(b []byte) []int {
	var out []int
	for i, x := range b {
		for j := range 8 {
			if x&(1<<j) != 0 {
				out = append(out, i*8+j)
			}
		}
	}
	return out
}

// processBatchAck is BATCH_ACK_MESSAGE (200151): AckMessageProcessor's
// batch branch, one bAck record per batch.
func (p *popProcessor) processBatchAck(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var rb batchAckBody
	if len(req.Body) > 0 {
		if err := json.Unmarshal(req.Body, &rb); err != nil {
			return nil, wireError(code.SystemError, "decode BatchAckMessageRequestBody: "+err.Error())
		}
	}
	if len(rb.Acks) == 0 {
		return codec.NewResponse(code.NoMessage, ""), nil
	}
	resp := codec.NewResponse(code.Success, "")
	for i := range rb.Acks {
		p.appendBatchAck(ctx, &rb.Acks[i], rb.BrokerName, resp)
	}
	return resp, nil
}

func (p *popProcessor) appendBatchAck(ctx *remoting.Context, ba *batchAck, brokerName string, resp *codec.RemotingCommand) {
	t, err := pop.RealTopic(ba.Topic, ba.ConsumerGroup, ba.Retry)
	if err != nil {
		p.lg.Warn("batch ack: bad retry mark", zap.String("retry", ba.Retry))
		return
	}
	if bad := p.checkReviveQid(ctx, ba.ReviveQueueID); bad != nil {
		// The batch's other acks still go in; the answer says one did not.
		resp.Code, resp.Remark = bad.Code, bad.Remark
		return
	}
	minOff, maxOff := p.b.store.MinOffsetInQueue(t, ba.QueueID), p.b.store.MaxOffsetInQueue(t, ba.QueueID)
	if minOff == -1 || p.b.topics.SelectTopicConfig(t) == nil {
		p.lg.Error("illegal topic or queue found when batch ack", zap.String("topic", t), zap.Int32("queueId", ba.QueueID))
		return
	}
	a := pop.AckMsg{AckOffset: -1, StartOffset: ba.StartOffset, ConsumerGroup: ba.ConsumerGroup, Topic: t,
		QueueID: ba.QueueID, PopTime: ba.PopTime, BrokerName: brokerName}
	ei := pop.ExtraInfo{PopTime: ba.PopTime, InvisibleTime: ba.InvisibleTime, ReviveQid: ba.ReviveQueueID}
	for _, i := range bits(ba.BitSet) {
		off := ba.StartOffset + int64(i)
		if off < minOff || off > maxOff {
			continue
		}
		if ei.IsOrder() {
			p.ackOrderly(ctx, t, ba.ConsumerGroup, ba.QueueID, off, ei, resp)
		} else {
			a.AckOffsetList = append(a.AckOffsetList, off)
		}
	}
	if ei.IsOrder() || len(a.AckOffsetList) == 0 {
		return
	}
	p.putRevive(ba.ReviveQueueID, pop.BatchAckTag, batchAckUniqueID(&a), &a)
}

// batchAckUniqueID is PopMessageProcessor.genBatchAckUniqueId (the list in
// java.util.List.toString form).
func batchAckUniqueID(a *pop.AckMsg) string {
	l := make([]string, len(a.AckOffsetList))
	for i, o := range a.AckOffsetList {
		l[i] = strconv.FormatInt(o, 10)
	}
	return a.Topic + "@" + strconv.Itoa(int(a.QueueID)) + "@[" + strings.Join(l, ", ") + "]@" + a.ConsumerGroup +
		"@" + strconv.FormatInt(a.PopTime, 10) + "@" + pop.BatchAckTag
}
