package broker

// HEART_BEAT (34), UNREGISTER_CLIENT (35) and CHECK_CLIENT_CONFIG (46):
// mirrors ClientManageProcessor (broker/processor, 4.9.8). HEART_BEAT runs on
// the heartbeat pool, the other two on the client-manage pool; all three are
// served on the fast port too.
//
// SQL92 subscriptions reach the consumer filter manager (b.Filters()) through
// the REGISTER event the consumer manager raises for every heartbeat (the
// broker core's DefaultConsumerIdsChangeListener).

import (
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/client"
	"github.com/rocketmq-go/rmq/broker/filter"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func init() { processorFamilies = append(processorFamilies, registerClientManageProcessors) }

// clientManageProcessor is ClientManageProcessor.
type clientManageProcessor struct {
	b  *Broker
	lg *zap.Logger
}

func registerClientManageProcessors(b *Broker) {
	p := &clientManageProcessor{b: b, lg: b.lg.Named("clientManage")}
	b.registerProcessor(code.HeartBeat, remoting.ProcessorFunc(p.heartBeat), b.Pools.Heartbeat, true)
	b.registerProcessor(code.UnregisterClient, remoting.ProcessorFunc(p.unregisterClient), b.Pools.Client, true)
	b.registerProcessor(code.CheckClientConfig, remoting.ProcessorFunc(p.checkClientConfig), b.Pools.Client, true)
}

// heartBeat registers the connection's consumer groups (creating each
// group's retry topic when the group is known or may be auto-created) and
// producer groups. The response carries the broker's version (409), which
// clients record and use to gate SQL92 subscriptions.
func (p *clientManageProcessor) heartBeat(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	hb, err := body.DecodeHeartbeatData(req.Body)
	if err != nil {
		return nil, err
	}
	info := client.NewClientChannelInfo(ctx.Channel, hb.ClientID, req.Language, req.Version, time.Now())
	for i := range hb.ConsumerDataSet {
		p.registerConsumer(ctx, info, &hb.ConsumerDataSet[i])
	}
	for _, pd := range hb.ProducerDataSet {
		p.b.producers.RegisterProducer(pd.GroupName, info)
	}
	return codec.NewResponse(code.Success, ""), nil
}

func (p *clientManageProcessor) registerConsumer(ctx *remoting.Context, info *client.ClientChannelInfo, data *body.ConsumerData) {
	notify := true
	if sgc, ok := p.b.subs.FindSubscriptionGroupConfig(data.GroupName); ok {
		notify = sgc.NotifyConsumerIdsChangedEnable
		var sysFlag int32
		if data.UnitMode {
			sysFlag = topic.FlagUnitSub
		}
		p.b.topics.CreateTopicInSendMessageBackMethod(topic.RetryTopic(data.GroupName), sgc.RetryQueueNums,
			topic.PermWrite|topic.PermRead, sysFlag)
	}
	changed := p.b.consumers.RegisterConsumer(data.GroupName, info, data.ConsumeType, data.MessageModel,
		data.ConsumeFromWhere, data.SubscriptionDataSet, notify)
	if changed {
		p.lg.Info("register consumer info changed", zap.String("consumerGroup", data.GroupName),
			zap.String("clientId", info.ClientID), zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
	}
}

// unregisterClient removes the connection from the producer and/or
// consumer group named in the header.
func (p *clientManageProcessor) unregisterClient(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.UnregisterClientRequestHeader
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return nil, err
	}
	info := client.NewClientChannelInfo(ctx.Channel, h.ClientID, req.Language, req.Version, time.Now())
	if _, ok := req.ExtFields["producerGroup"]; ok {
		p.b.producers.UnregisterProducer(h.ProducerGroup, info)
	}
	if _, ok := req.ExtFields["consumerGroup"]; ok {
		notify := true
		if sgc, ok := p.b.subs.FindSubscriptionGroupConfig(h.ConsumerGroup); ok {
			notify = sgc.NotifyConsumerIdsChangedEnable
		}
		p.b.consumers.UnregisterConsumer(h.ConsumerGroup, info, notify)
	}
	return emptyHeaderResponse(), nil
}

// emptyHeaderResponse is a SUCCESS built from a custom header class
// without fields (UnregisterClientResponseHeader…): Java writes
// "extFields":{}.
func emptyHeaderResponse() *codec.RemotingCommand {
	resp := codec.NewResponse(code.Success, "")
	resp.ExtFields = map[string]string{}
	return resp
}

// checkClientConfig validates a consumer's subscription expression.
func (p *clientManageProcessor) checkClientConfig(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var sd *body.SubscriptionData
	if len(req.Body) > 0 {
		rb, err := body.DecodeCheckClientRequestBody(req.Body)
		if err != nil {
			return nil, err
		}
		sd = rb.SubscriptionData
	}
	c, remark := filter.CheckClientConfig(sd, p.b.Config().EnablePropertyFilter)
	return codec.NewResponse(c, remark), nil
}
