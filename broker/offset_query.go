package broker

// GET_MAX_OFFSET (30), GET_MIN_OFFSET (31), GET_EARLIEST_MSG_STORETIME (32)
// and SEARCH_OFFSET_BY_TIMESTAMP (29): the queue-offset lookups of
// AdminBrokerProcessor (broker/processor, 4.9.8). Java serves them from the
// admin processor, so they run on the admin pool on both ports.

import (
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func init() { processorFamilies = append(processorFamilies, registerOffsetQueryProcessors) }

func registerOffsetQueryProcessors(b *Broker) {
	reg := func(c int32, f remoting.ProcessorFunc) { b.registerProcessor(c, f, b.Pools.Admin, true) }
	reg(code.GetMaxOffset, b.getMaxOffset)
	reg(code.GetMinOffset, b.getMinOffset)
	reg(code.GetEarliestMsgStoretime, b.getEarliestMsgStoretime)
	reg(code.SearchOffsetByTimestamp, b.searchOffsetByTimestamp)
}

// offsetAnswer is a SUCCESS response with one header.
func offsetAnswer(h header.CommandCustomHeader) *codec.RemotingCommand {
	resp := codec.NewResponse(code.Success, "")
	resp.ExtFields = h.ToExtFields()
	return resp
}

func (b *Broker) getMaxOffset(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetMaxOffsetRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	return offsetAnswer(&header.GetMaxOffsetResponseHeader{Offset: b.store.MaxOffsetInQueue(h.Topic, h.QueueID)}), nil
}

func (b *Broker) getMinOffset(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetMinOffsetRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	return offsetAnswer(&header.GetMinOffsetResponseHeader{Offset: b.store.MinOffsetInQueue(h.Topic, h.QueueID)}), nil
}

func (b *Broker) getEarliestMsgStoretime(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetEarliestMsgStoretimeRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	ts := b.store.EarliestMessageTime(h.Topic, h.QueueID)
	return offsetAnswer(&header.GetEarliestMsgStoretimeResponseHeader{Timestamp: ts}), nil
}

func (b *Broker) searchOffsetByTimestamp(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.SearchOffsetRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	off := b.store.OffsetInQueueByTime(h.Topic, h.QueueID, h.Timestamp)
	return offsetAnswer(&header.SearchOffsetResponseHeader{Offset: off}), nil
}
