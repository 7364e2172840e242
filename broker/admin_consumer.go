package broker

// AdminBrokerProcessor (4.9.8) codes about live clients:
// GET_CONSUMER_CONNECTION_LIST (203), GET_PRODUCER_CONNECTION_LIST (204),
// INVOKE_BROKER_TO_RESET_OFFSET (222), INVOKE_BROKER_TO_GET_CONSUMER_STATUS
// (223), GET_CONSUMER_RUNNING_INFO (307) and CONSUME_MESSAGE_DIRECTLY (309);
// the calls toward clients are in broker2client.go.

import (
	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func (p *adminProcessor) addConsumerHandlers(h map[int32]remoting.ProcessorFunc) {
	h[code.GetConsumerConnectionList] = p.getConsumerConnectionList
	h[code.GetProducerConnectionList] = p.getProducerConnectionList
	h[code.InvokeBrokerToResetOffset] = p.resetOffset
	h[code.InvokeBrokerToGetConsumerStatus] = p.getConsumerStatus
	h[code.GetConsumerRunningInfo] = p.getConsumerRunningInfo
	h[code.ConsumeMessageDirectly] = p.consumeMessageDirectly
}

func (p *adminProcessor) getConsumerConnectionList(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetConsumerConnectionListRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	g := p.b.consumers.GetConsumerGroupInfo(h.ConsumerGroup)
	if g == nil {
		return nil, wireError(code.ConsumerNotOnline, "the consumer group["+h.ConsumerGroup+"] not online")
	}
	resp := success()
	resp.Body = g.ConsumerConnection().Encode()
	return resp, nil
}

func (p *adminProcessor) getProducerConnectionList(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetProducerConnectionListRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	pc := p.b.producers.ProducerConnection(h.ProducerGroup)
	if pc == nil {
		return nil, wireError(code.SystemError, "the producer group["+h.ProducerGroup+"] not exist")
	}
	resp := success()
	resp.Body = pc.Encode()
	return resp, nil
}

func (p *adminProcessor) resetOffset(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.ResetOffsetRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	p.lg.Info("invoke reset offset", zap.String("remoteAddr", ctx.Channel.RemoteAddr()), zap.String("topic", h.Topic),
		zap.String("consumerGroup", h.Group), zap.Int64("timestamp", h.Timestamp), zap.Bool("isForce", h.IsForce))
	return p.b.resetOffset(h.Topic, h.Group, h.Timestamp, h.IsForce, req.Language == code.CPP)
}

func (p *adminProcessor) getConsumerStatus(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetConsumerStatusRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	return p.b.getConsumeStatus(h.Topic, h.Group, h.ClientAddr)
}

func (p *adminProcessor) getConsumerRunningInfo(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetConsumerRunningInfoRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	return p.b.callConsumer(code.GetConsumerRunningInfo, req, h.ConsumerGroup, h.ClientID)
}

// consumeMessageDirectly forwards the message named by msgId (an offset
// message id) to the client, with this broker's name added to the header.
func (p *adminProcessor) consumeMessageDirectly(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.ConsumeMessageDirectlyResultRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	ext := make(map[string]string, len(req.ExtFields)+1)
	for k, v := range req.ExtFields {
		ext[k] = v
	}
	ext["brokerName"] = p.b.Config().BrokerName
	fwd := *req
	fwd.ExtFields = ext
	if _, off, err := message.DecodeOffsetMsgID(h.MsgID); err == nil {
		if rec := p.b.store.SelectOneMessageByOffset(off); rec != nil {
			fwd.Body = rec
		}
	}
	return p.b.callConsumer(code.ConsumeMessageDirectly, &fwd, h.ConsumerGroup, h.ClientID)
}
