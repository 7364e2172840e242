package broker

// QUERY_ASSIGNMENT (400), SET_MESSAGE_REQUEST_MODE (401) and
// GET_ALL_MESSAGE_REQUEST_MODE (402): mirror 5.x QueryAssignmentProcessor
// and AdminBrokerProcessor.getAllMessageRequestMode.
// SET_MESSAGE_REQUEST_MODE records, per topic and group, whether clients
// pull or pop (config/messageRequestMode.json); QUERY_ASSIGNMENT answers a client's share of the topic's queues, found
// through the name server's route as 5.x's TopicRouteInfoManager does (a
// broker without a name server uses its own topic config): for a POP group
// every broker's queues as queue id -1 (popShareQueueNum <= 0), for PULL the
// named allocation strategy over the group's client ids.

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/internal/configfile"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// routeQueryTimeout bounds one GET_ROUTEINFO_BY_TOPIC to a name server.
const routeQueryTimeout = 3 * time.Second

func init() { processorFamilies = append(processorFamilies, registerQueryAssignment) }

// assignmentProcessor is QueryAssignmentProcessor.
type assignmentProcessor struct {
	b     *Broker
	lg    *zap.Logger
	modes *pop.RequestModes
	// persistMu orders the messageRequestMode.json rewrites (held across
	// the write; the request path takes it only after the table changed).
	persistMu sync.Mutex
}

func registerQueryAssignment(b *Broker) {
	a := &assignmentProcessor{b: b, lg: b.lg.Named("assignment"), modes: pop.NewRequestModes()}
	if err := configfile.LoadLogged(a.lg, "message request mode", a.path(), a.modes.Decode); err != nil {
		a.lg.Warn("message request modes not loaded", zap.Error(err))
	}
	b.registerProcessor(code.QueryAssignment, remoting.ProcessorFunc(a.queryAssignment), b.Pools.ConsumerManage, true)
	b.registerProcessor(code.SetMessageRequestMode, remoting.ProcessorFunc(a.setMessageRequestMode), b.Pools.ConsumerManage, true)
	b.registerProcessor(code.GetAllMessageRequestMode, remoting.ProcessorFunc(a.getAllMessageRequestMode), b.Pools.Admin, true)
}

// getAllMessageRequestMode is GET_ALL_MESSAGE_REQUEST_MODE (402, 5.x
// AdminBrokerProcessor): the messageRequestMode.json content, which 5.x
// slaves fetch from their master.
func (a *assignmentProcessor) getAllMessageRequestMode(*remoting.Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	resp := codec.NewResponse(code.Success, "")
	resp.Body = a.modes.Encode()
	return resp, nil
}

func (a *assignmentProcessor) path() string {
	return filepath.Join(a.b.storeCfg.ConfigDir(), "messageRequestMode.json")
}

// queryAssignmentRequest is QueryAssignmentRequestBody.
type queryAssignmentRequest struct {
	ClientID      string `json:"clientId"`
	ConsumerGroup string `json:"consumerGroup"`
	MessageModel  string `json:"messageModel"`
	StrategyName  string `json:"strategyName"`
	Topic         string `json:"topic"`
}

// messageQueueAssignment is MessageQueueAssignment (attachments is null).
type messageQueueAssignment struct {
	MessageQueue pop.Queue `json:"messageQueue"`
	Mode         string    `json:"mode"`
}

type queryAssignmentResponse struct {
	MessageQueueAssignments []messageQueueAssignment `json:"messageQueueAssignments,omitempty"`
}

func (a *assignmentProcessor) queryAssignment(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var rb queryAssignmentRequest
	if err := json.Unmarshal(req.Body, &rb); err != nil {
		return nil, wireError(code.SystemError, "decode QueryAssignmentRequestBody: "+err.Error())
	}
	mode, ok := a.modes.Get(rb.Topic, rb.ConsumerGroup)
	if !ok {
		mode = pop.RequestMode{Topic: rb.Topic, ConsumerGroup: rb.ConsumerGroup, Mode: a.b.Config().DefaultMessageRequestMode}
		if topic.IsRetryTopic(rb.Topic) {
			mode.Mode = pop.ModePull // retry topics are always pulled
		}
		if mode.Mode == pop.ModePop {
			mode.PopShareQueueNum = a.b.Config().DefaultPopShareQueueNum
		}
	}
	var out queryAssignmentResponse
	if qs := a.loadBalance(ctx, &rb, &mode); qs != nil {
		out.MessageQueueAssignments = []messageQueueAssignment{}
		for _, q := range qs {
			out.MessageQueueAssignments = append(out.MessageQueueAssignments, messageQueueAssignment{MessageQueue: q, Mode: mode.Mode})
		}
	}
	resp := codec.NewResponse(code.Success, "")
	resp.Body, _ = json.Marshal(out) // plain structs always encode
	return resp, nil
}

// loadBalance is doLoadBalance; nil means "no valid answer" (the client
// keeps its previous assignment).
func (a *assignmentProcessor) loadBalance(ctx *remoting.Context, rb *queryAssignmentRequest, mode *pop.RequestMode) []pop.Queue {
	mqs := a.subscribeInfo(rb.Topic)
	switch rb.MessageModel {
	case "BROADCASTING":
		return mqs
	case "CLUSTERING":
	default:
		return nil
	}
	if mqs == nil {
		if !topic.IsRetryTopic(rb.Topic) {
			a.lg.Warn("query assignment: topic does not exist", zap.String("consumerGroup", rb.ConsumerGroup), zap.String("topic", rb.Topic))
		}
		return nil
	}
	if !a.b.Config().ServerLoadBalancerEnable {
		return mqs
	}
	gi := a.b.consumers.GetConsumerGroupInfo(rb.ConsumerGroup)
	if gi == nil {
		a.lg.Warn("query assignment: no consumer ids", zap.String("consumerGroup", rb.ConsumerGroup), zap.String("topic", rb.Topic))
		return nil
	}
	cids := gi.AllClientIDs()
	pop.SortQueues(mqs)
	slices.Sort(cids)
	var res []pop.Queue
	var ok bool
	if mode.Mode == pop.ModePop {
		res, ok = pop.AllocateForPop(rb.StrategyName, rb.ClientID, mqs, cids, mode.PopShareQueueNum)
	} else {
		res, ok = pop.Allocate(rb.StrategyName, rb.ClientID, mqs, cids)
	}
	if !ok {
		a.lg.Warn("query assignment: unsupported strategy", zap.String("strategy", rb.StrategyName), zap.String("remoteAddr", remoteAddr(ctx)))
		return nil
	}
	// Java collects the result in a HashSet: one entry per queue.
	out := []pop.Queue{}
	for _, q := range res {
		if !slices.Contains(out, q) {
			out = append(out, q)
		}
	}
	return out
}

// subscribeInfo is TopicRouteInfoManager.getTopicSubscribeInfo: the
// readable queues of the topic's route; nil when the topic is unknown.
func (a *assignmentProcessor) subscribeInfo(t string) []pop.Queue {
	nss := a.b.Config().NamesrvAddrList()
	if len(nss) == 0 {
		tc := a.b.topics.SelectTopicConfig(t)
		if tc == nil {
			return nil
		}
		return readableQueues(t, []body.QueueData{{BrokerName: a.b.Config().BrokerName, ReadQueueNums: tc.ReadQueueNums, Perm: tc.Perm}})
	}
	h := &header.GetRouteInfoRequestHeader{Topic: t}
	for _, ns := range nss {
		ctx, cancel := context.WithTimeout(context.Background(), routeQueryTimeout)
		resp, err := a.b.outAPI.Client().InvokeSync(ctx, ns, codec.NewRequest(code.GetRouteinfoByTopic, h.ToExtFields(), nil))
		cancel()
		if err != nil {
			a.lg.Warn("query assignment: route query failed", zap.String("namesrvAddr", ns), zap.Error(err))
			continue
		}
		if resp.Code != code.Success {
			return nil
		}
		rd, err := body.DecodeTopicRouteData(resp.Body)
		if err != nil {
			return nil
		}
		return readableQueues(t, rd.QueueDatas)
	}
	return nil
}

func readableQueues(t string, qds []body.QueueData) []pop.Queue {
	out := []pop.Queue{}
	for _, qd := range qds {
		if !topic.IsReadable(qd.Perm) {
			continue
		}
		for i := range qd.ReadQueueNums {
			out = append(out, pop.Queue{BrokerName: qd.BrokerName, QueueID: i, Topic: t})
		}
	}
	return out
}

func (a *assignmentProcessor) setMessageRequestMode(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var rb pop.RequestMode
	if err := json.Unmarshal(req.Body, &rb); err != nil {
		return nil, wireError(code.SystemError, "decode SetMessageRequestModeRequestBody: "+err.Error())
	}
	if topic.IsRetryTopic(rb.Topic) {
		return codec.NewResponse(code.NoPermission, "retry topic is not allowed to set mode"), nil
	}
	if a.b.topics.SelectTopicConfig(rb.Topic) == nil {
		return codec.NewResponse(code.TopicNotExist, "topic["+rb.Topic+"] not exist"), nil
	}
	if _, ok := a.b.subs.FindSubscriptionGroupConfig(rb.ConsumerGroup); !ok {
		return codec.NewResponse(code.SubscriptionGroupNotExist, "subscription group does not exist"), nil
	}
	a.modes.Set(rb)
	a.persistMu.Lock()
	err := configfile.PersistPretty(a.path(), a.modes.Encode())
	a.persistMu.Unlock()
	if err != nil {
		a.lg.Error("persist message request modes", zap.Error(err))
	}
	return codec.NewResponse(code.Success, ""), nil
}
