package broker

// QUERY_ASSIGNMENT (400), SET_MESSAGE_REQUEST_MODE (401) and
// GET_ALL_MESSAGE_REQUEST_MODE (402): mirror 5.x QueryAssignmentProcessor
// and AdminBrokerProcessor.getAllMessageRequestMode.
// SET_MESSAGE_REQUEST_MODE records, per topic and group, whether clients
// pull or pop (config/messageRequestMode.json); QUERY_ASSIGNMENT answers a
// client's share of the topic's queues, found through the name server's
// route as 5.x's TopicRouteInfoManager does (a broker without a name server
// uses its own topic config): for a POP group every broker's queues as
// queue id -1 (popShareQueueNum <= 0), for PULL the named allocation
// strategy over the group's client ids.
//
// Both run on their own pool (5.x's loadBalanceExecutor), and the routes are
// cached (routeCache, refreshed every loadBalancePollNameServerInterval): a
// slow name server holds up assignments only, never the acks and
// invisible-time changes of the consumer-manage pool.

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
	"github.com/rocketmq-go/rmq/internal/service"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// routeQueryTimeout bounds one GET_ROUTEINFO_BY_TOPIC to a name server.
const routeQueryTimeout = 3 * time.Second

// The load-balance executor and route refresh, with 5.x BrokerConfig's
// defaults (loadBalanceProcessorThreadPoolNums,
// loadBalanceThreadPoolQueueCapacity, loadBalancePollNameServerInterval);
// not configurable here.
const (
	loadBalanceThreads       = 32
	loadBalanceQueueCapacity = 100000
	routeRefreshInterval     = 30 * time.Second
)

func init() { processorFamilies = append(processorFamilies, registerQueryAssignment) }

// assignmentProcessors maps a *Broker to its *assignmentProcessor (tests).
var assignmentProcessors sync.Map

// assignmentProcessor is QueryAssignmentProcessor.
type assignmentProcessor struct {
	b     *Broker
	lg    *zap.Logger
	modes *pop.RequestModes
	// routes caches the topics' subscribable queues from the name server.
	routes routeCache
	// persistMu orders the messageRequestMode.json rewrites (held across
	// the write; the request path takes it only after the table changed).
	persistMu sync.Mutex
}

func registerQueryAssignment(b *Broker) {
	a := &assignmentProcessor{b: b, lg: b.lg.Named("assignment"), modes: pop.NewRequestModes()}
	a.routes.table = make(map[string][]pop.Queue)
	if err := configfile.LoadLogged(a.lg, "message request mode", a.path(), a.modes.Decode); err != nil {
		a.lg.Warn("message request modes not loaded", zap.Error(err))
	}
	assignmentProcessors.Store(b, a)
	// 5.x's loadBalanceExecutor: the servers stop it when they shut down;
	// the hook covers a broker whose servers never started.
	pool := remoting.NewPool("LoadBalanceThread", loadBalanceThreads, loadBalanceQueueCapacity)
	b.onShutdown(func(ctx context.Context) { _ = pool.Stop(ctx); assignmentProcessors.Delete(b) })
	b.addService(service.New("TopicRouteInfoManager", routeRefreshInterval, func(ctx context.Context) { a.refreshRoutes(ctx) }))
	b.registerProcessor(code.QueryAssignment, remoting.ProcessorFunc(a.queryAssignment), pool, true)
	b.registerProcessor(code.SetMessageRequestMode, remoting.ProcessorFunc(a.setMessageRequestMode), pool, true)
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
// readable queues of the topic's route; nil when the topic is unknown. A
// topic seen before with a readable queue is answered from the cache; a new
// one, or one cached without a readable queue, asks the name server on the
// caller's (load-balance) worker, as 5.x does.
func (a *assignmentProcessor) subscribeInfo(t string) []pop.Queue {
	if len(a.b.Config().NamesrvAddrList()) == 0 {
		tc := a.b.topics.SelectTopicConfig(t)
		if tc == nil {
			return nil
		}
		return readableQueues(t, []body.QueueData{{BrokerName: a.b.Config().BrokerName, ReadQueueNums: tc.ReadQueueNums, Perm: tc.Perm}})
	}
	if qs, ok := a.routes.get(t); ok && len(qs) > 0 {
		return qs
	}
	qs, found, _ := a.fetchRoute(context.Background(), t)
	if found {
		a.routes.put(t, qs) // stores a copy: qs is the caller's to sort
	}
	return qs
}

// fetchRoute asks the name servers in turn for the topic's route. found
// reports a route; gone, that a name server answered TOPIC_NOT_EXIST (any
// other refusal asks the next name server).
func (a *assignmentProcessor) fetchRoute(ctx context.Context, t string) (qs []pop.Queue, found, gone bool) {
	h := &header.GetRouteInfoRequestHeader{Topic: t}
	for _, ns := range a.b.Config().NamesrvAddrList() {
		cctx, cancel := context.WithTimeout(ctx, routeQueryTimeout)
		resp, err := a.b.outAPI.Client().InvokeSync(cctx, ns, codec.NewRequest(code.GetRouteinfoByTopic, h.ToExtFields(), nil))
		cancel()
		if err != nil {
			a.lg.Warn("query assignment: route query failed", zap.String("namesrvAddr", ns), zap.Error(err))
			continue
		}
		if resp.Code == code.TopicNotExist {
			return nil, false, true
		}
		if resp.Code != code.Success {
			// Any other refusal says nothing about the topic: keep the last route, as Java does.
			a.lg.Warn("query assignment: route query refused", zap.String("namesrvAddr", ns), zap.Int32("code", resp.Code), zap.String("remark", resp.Remark))
			continue
		}
		rd, err := body.DecodeTopicRouteData(resp.Body)
		if err != nil {
			a.lg.Warn("query assignment: bad route body", zap.String("namesrvAddr", ns), zap.Error(err))
			return nil, false, false
		}
		return readableQueues(t, rd.QueueDatas), true, false
	}
	return nil, false, false
}

// refreshRoutes is TopicRouteInfoManager's periodic update: every cached
// topic is asked again; one the name server no longer knows is dropped
// (a retry topic excepted, as in 5.x), one it could not be asked about
// keeps its last route.
func (a *assignmentProcessor) refreshRoutes(ctx context.Context) {
	for _, t := range a.routes.topics() {
		if ctx.Err() != nil {
			return
		}
		qs, found, gone := a.fetchRoute(ctx, t)
		switch {
		case found:
			a.routes.put(t, qs)
		case gone && !topic.IsRetryTopic(t):
			a.routes.drop(t)
		}
	}
}

// routeCache is TopicRouteInfoManager.topicSubscribeInfoTable: topic →
// its readable queues, as last read from a name server.
type routeCache struct {
	mu    sync.Mutex
	table map[string][]pop.Queue // guarded by mu
}

// get returns a copy of the topic's cached queues (the caller sorts them).
func (c *routeCache) get(t string) ([]pop.Queue, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	qs, ok := c.table[t]
	return slices.Clone(qs), ok
}

func (c *routeCache) put(t string, qs []pop.Queue) {
	c.mu.Lock()
	c.table[t] = slices.Clone(qs)
	c.mu.Unlock()
}

func (c *routeCache) drop(t string) {
	c.mu.Lock()
	delete(c.table, t)
	c.mu.Unlock()
}

func (c *routeCache) topics() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.table))
	for t := range c.table {
		out = append(out, t)
	}
	return out
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
