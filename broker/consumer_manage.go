package broker

// GET_CONSUMER_LIST_BY_GROUP (38), UPDATE_CONSUMER_OFFSET (15, also oneway)
// and QUERY_CONSUMER_OFFSET (14): mirrors ConsumerManageProcessor
// (broker/processor, 4.9.8).

import (
	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// remarkQueryOffsetNotFound is Java's QUERY_NOT_FOUND remark.
const remarkQueryOffsetNotFound = "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first"

func init() { processorFamilies = append(processorFamilies, registerConsumerManageProcessors) }

func registerConsumerManageProcessors(b *Broker) {
	reg := func(c int32, f remoting.ProcessorFunc) { b.registerProcessor(c, f, b.Pools.ConsumerManage, true) }
	reg(code.GetConsumerListByGroup, b.getConsumerListByGroup)
	reg(code.UpdateConsumerOffset, b.updateConsumerOffset)
	reg(code.QueryConsumerOffset, b.queryConsumerOffset)
}

func (b *Broker) getConsumerListByGroup(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetConsumerListByGroupRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	if gi := b.consumers.GetConsumerGroupInfo(h.ConsumerGroup); gi != nil {
		if list := gi.ConsumerList(); len(list.ConsumerIDList) > 0 {
			resp := headerResponse(code.Success, "")
			resp.Body = list.Encode()
			return resp, nil
		}
	}
	b.lg.Warn("get consumer list by group failed", zap.String("consumerGroup", h.ConsumerGroup),
		zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
	return headerResponse(code.SystemError, "no consumer for this group, "+h.ConsumerGroup), nil
}

func (b *Broker) updateConsumerOffset(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.UpdateConsumerOffsetRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	b.offsets.CommitOffset(ctx.Channel.RemoteAddr(), h.ConsumerGroup, h.Topic, h.QueueID, h.CommitOffset)
	return headerResponse(code.Success, ""), nil
}

// queryConsumerOffset answers the committed offset; for a queue the group
// never committed it answers 0 while the queue still starts at offset 0 and
// that message is in memory, else QUERY_NOT_FOUND (the client then applies
// its consume-from-where policy).
func (b *Broker) queryConsumerOffset(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.QueryConsumerOffsetRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	off := b.offsets.QueryOffset(h.ConsumerGroup, h.Topic, h.QueueID)
	if off < 0 {
		if b.store.MinOffsetInQueue(h.Topic, h.QueueID) > 0 || b.store.CheckInDiskByConsumeOffset(h.Topic, h.QueueID, 0) {
			return headerResponse(code.QueryNotFound, remarkQueryOffsetNotFound), nil
		}
		off = 0
	}
	resp := codec.NewResponse(code.Success, "")
	resp.ExtFields = (&header.QueryConsumerOffsetResponseHeader{Offset: off}).ToExtFields()
	return resp, nil
}
