package broker

// QUERY_MESSAGE (12) and VIEW_MESSAGE_BY_ID (33): mirrors
// QueryMessageProcessor (broker/processor, 4.9.8). Java writes a successful
// answer straight to the channel as a fresh command, so it goes out in the
// broker's own serialize type; error answers take the usual path and copy
// the request's.

import (
	"bytes"
	"strconv"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// uniqueMsgQueryFlag is MixAll.UNIQUE_MSG_QUERY_FLAG: the query is by
// UNIQ_KEY and returns up to defaultQueryMaxNum messages.
const uniqueMsgQueryFlag = "_UNIQUE_KEY_QUERY"

func init() { processorFamilies = append(processorFamilies, registerQueryProcessors) }

func registerQueryProcessors(b *Broker) {
	b.registerProcessor(code.QueryMessage, remoting.ProcessorFunc(b.queryMessage), b.Pools.Query, true)
	b.registerProcessor(code.ViewMessageById, remoting.ProcessorFunc(b.viewMessageByID), b.Pools.Query, true)
}

func (b *Broker) queryMessage(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.QueryMessageRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	if req.Ext(uniqueMsgQueryFlag) == "true" {
		h.MaxNum = int32(b.storeCfg.DefaultQueryMaxNum)
	}
	r := b.store.QueryMessage(h.Topic, h.Key, int(h.MaxNum), h.BeginTimestamp, h.EndTimestamp)
	rh := header.QueryMessageResponseHeader{}
	if r != nil {
		rh.IndexLastUpdateTimestamp = r.IndexLastUpdateTimestamp
		rh.IndexLastUpdatePhyoffset = r.IndexLastUpdatePhyoffset
	}
	if r == nil || r.BufferTotalSize() == 0 {
		resp := codec.NewResponse(code.QueryNotFound, "can not find message, maybe time range not correct")
		resp.ExtFields = rh.ToExtFields()
		return resp, nil
	}
	resp := codec.NewResponse(code.Success, "")
	resp.ExtFields = rh.ToExtFields()
	resp.Body = bytes.Join(r.Messages, nil)
	ctx.ForceSerializeType(b.serializeType)
	return resp, nil
}

func (b *Broker) viewMessageByID(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.ViewMessageRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	rec := b.store.SelectOneMessageByOffset(h.Offset)
	if rec == nil {
		return codec.NewResponse(code.SystemError, "can not find message by the offset, "+strconv.FormatInt(h.Offset, 10)), nil
	}
	resp := codec.NewResponse(code.Success, "")
	resp.Body = rec
	ctx.ForceSerializeType(b.serializeType)
	return resp, nil
}
