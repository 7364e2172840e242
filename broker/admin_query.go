package broker

// AdminBrokerProcessor (4.9.8) store diagnostics and transaction repair:
// QUERY_CONSUME_QUEUE (321, mqadmin queryCq) and RESUME_CHECK_HALF_MESSAGE
// (323, mqadmin resumeCheckHalfMessage).

import (
	"fmt"
	"strconv"

	"github.com/rocketmq-go/rmq/broker/filter"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/consumequeue"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func (p *adminProcessor) addQueryHandlers(h map[int32]remoting.ProcessorFunc) {
	h[code.QueryConsumeQueue] = p.queryConsumeQueue
	h[code.ResumeCheckHalfMessage] = p.resumeCheckHalfMessage
}

// consumeQueueStore is the part of DefaultMessageStore QUERY_CONSUME_QUEUE
// reads (not in the MessageStore interface).
type consumeQueueStore interface {
	ConsumeQueue(topic string, queueID int32) *consumequeue.ConsumeQueue
}

// queryConsumeQueue answers QueryConsumeQueueResponseBody: count units of
// a consume queue from index, with the group's subscription and filter.
func (p *adminProcessor) queryConsumeQueue(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.QueryConsumeQueueRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	var cq *consumequeue.ConsumeQueue
	if s, ok := p.b.store.(consumeQueueStore); ok {
		cq = s.ConsumeQueue(h.Topic, h.QueueID)
	}
	if cq == nil {
		return nil, wireError(code.SystemError, fmt.Sprintf("%d@%s is not exist!", h.QueueID, h.Topic))
	}
	resp := codec.NewResponse(code.Success, remarkNotSet)
	u := cq.Units(h.Index)
	if u == nil {
		resp.Remark = fmt.Sprintf("Index %d of %d@%s is not exist!", h.Index, h.QueueID, h.Topic)
		return resp, nil
	}
	defer u.Release()
	out := []byte{'{'}
	var sd *body.SubscriptionData
	if _, ok := req.ExtFields["consumerGroup"]; ok {
		sd = p.b.consumers.FindSubscriptionData(h.ConsumerGroup, h.Topic)
		filterData := fmt.Sprintf("%s@%s is not online!", h.ConsumerGroup, h.Topic)
		if sd != nil {
			filterData = consumerFilterJSON(p.b.Filters().Get(h.Topic, h.ConsumerGroup))
		}
		out = append(out, `"filterData":`...)
		out = append(body.AppendString(out, filterData, false), ',')
	}
	out = append(out, `"maxQueueIndex":`...)
	out = strconv.AppendInt(out, cq.MaxOffsetInQueue(), 10)
	out = append(out, `,"minQueueIndex":`...)
	out = strconv.AppendInt(out, cq.MinOffsetInQueue(), 10)
	out = appendQueueData(out, u, int(h.Count))
	if sd != nil {
		out = append(out, `,"subscriptionData":`...)
		out = append(out, sd.Encode()...)
	}
	resp.Body = append(out, '}')
	return resp, nil
}

// consumerFilterJSON approximates JSON.toJSONString(filterData, true): the
// pretty (tab-indented) bean, "null" for a TAG subscription.
func consumerFilterJSON(d *filter.ConsumerFilterData) string {
	if d == nil {
		return "null"
	}
	b := []byte("{\n\t\"bornTime\":")
	b = strconv.AppendInt(b, d.BornTime, 10)
	b = append(b, ",\n\t\"clientVersion\":"...)
	b = strconv.AppendInt(b, d.ClientVersion, 10)
	b = append(b, ",\n\t\"consumerGroup\":"...)
	b = body.AppendString(b, d.ConsumerGroup, false)
	b = append(b, ",\n\t\"dead\":"...)
	b = strconv.AppendBool(b, d.IsDead())
	b = append(b, ",\n\t\"deadTime\":"...)
	b = strconv.AppendInt(b, d.DeadTime, 10)
	b = append(b, ",\n\t\"expression\":"...)
	b = body.AppendString(b, d.Expression, false)
	b = append(b, ",\n\t\"expressionType\":"...)
	b = body.AppendString(b, d.ExpressionType, false)
	b = append(b, ",\n\t\"topic\":"...)
	b = body.AppendString(b, d.Topic, false)
	return string(append(b, "\n}"...))
}

// appendQueueData writes "queueData":[{eval,physicOffset,physicSize,tagsCode}…]
// (no consume-queue ext here, so the ext fields stay null and are omitted).
func appendQueueData(out []byte, u *consumequeue.Units, count int) []byte {
	out = append(out, `,"queueData":[`...)
	for i := 0; i < u.Len() && i < count; i++ {
		phy, size, tags := u.At(i)
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"eval":false,"physicOffset":`...)
		out = strconv.AppendInt(out, phy, 10)
		out = append(out, `,"physicSize":`...)
		out = strconv.AppendInt(out, int64(size), 10)
		out = append(out, `,"tagsCode":`...)
		out = strconv.AppendInt(out, tags, 10)
		out = append(out, '}')
	}
	return append(out, ']')
}

// resumeCheckHalfMessage puts the half message named by an offset msgId back
// into RMQ_SYS_TRANS_HALF_TOPIC with its check count reset, so the
// transaction check service asks the producer again.
func (p *adminProcessor) resumeCheckHalfMessage(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	const failed = "Exception was thrown when putting message back to RMQ_SYS_TRANS_HALF_TOPIC."
	var h header.ResumeCheckHalfMessageRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	_, off, err := message.DecodeOffsetMsgID(h.MsgID)
	if err != nil {
		return nil, wireError(code.SystemError, failed)
	}
	msg, err := p.b.store.LookMessageByOffset(off)
	if err != nil || msg == nil {
		return nil, wireError(code.SystemError, failed)
	}
	props := message.UnmarshalProperties(msg.PropertiesString)
	props[message.PropertyTransactionCheckTimes] = "0"
	inner := &message.MessageExt{
		Message:          message.Message{Topic: topic.TransHalfTopic, Flag: msg.Flag, Body: msg.Body},
		PropertiesString: message.MarshalProperties(props),
		SysFlag:          msg.SysFlag,
		BornTimestamp:    msg.BornTimestamp,
		BornHost:         msg.BornHost,
		StoreHost:        msg.StoreHost,
		ReconsumeTimes:   msg.ReconsumeTimes,
	}
	if r := p.b.store.PutMessage(inner); r.Status != commitlog.PutOK {
		return nil, wireError(code.SystemError, "Put message back to RMQ_SYS_TRANS_HALF_TOPIC failed.")
	}
	return success(), nil
}
