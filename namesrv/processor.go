package namesrv

// This file mirrors Java's org.apache.rocketmq.namesrv.processor.DefaultRequestProcessor
// (4.9.8) and the 5.x codes develop's processor adds. Codes served:
// PUT_KV_CONFIG(100) GET_KV_CONFIG(101) DELETE_KV_CONFIG(102) REGISTER_BROKER(103)
// UNREGISTER_BROKER(104) GET_ROUTEINFO_BY_TOPIC(105) GET_BROKER_CLUSTER_INFO(106)
// WIPE_WRITE_PERM_OF_BROKER(205) GET_ALL_TOPIC_LIST_FROM_NAMESERVER(206)
// DELETE_TOPIC_IN_NAMESRV(216) REGISTER_TOPIC_IN_NAMESRV(217, 5.x)
// GET_KVLIST_BY_NAMESPACE(219) GET_TOPICS_BY_CLUSTER(224)
// GET_SYSTEM_TOPIC_LIST_FROM_NS(304) GET_UNIT_TOPIC_LIST(311)
// GET_HAS_UNIT_SUB_TOPIC_LIST(312) GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST(313)
// UPDATE_NAMESRV_CONFIG(318) GET_NAMESRV_CONFIG(319) QUERY_DATA_VERSION(322)
// ADD_WRITE_PERM_OF_BROKER(327) GET_BROKER_MEMBER_GROUP(901, 5.x) BROKER_HEARTBEAT(904, 5.x).

import (
	"hash/crc32"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// applyTopicFAQ is FAQUrl.suggestTodo(APPLY_TOPIC_URL).
const applyTopicFAQ = "\nSee http://rocketmq.apache.org/docs/faq/ for further details."

type handler func(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error)

// DefaultRequestProcessor answers every name-server request code.
type DefaultRequestProcessor struct {
	ns       *Namesrv
	lg       *zap.Logger
	handlers map[int32]handler
	now      func() time.Time
}

func newDefaultRequestProcessor(ns *Namesrv) *DefaultRequestProcessor {
	p := &DefaultRequestProcessor{ns: ns, lg: ns.lg.Named("processor"), now: time.Now}
	p.handlers = map[int32]handler{
		code.PutKvConfig:                   p.putKVConfig,
		code.GetKvConfig:                   p.getKVConfig,
		code.DeleteKvConfig:                p.deleteKVConfig,
		code.QueryDataVersion:              p.queryDataVersion,
		code.RegisterBroker:                p.registerBroker,
		code.UnregisterBroker:              p.unregisterBroker,
		code.BrokerHeartbeat:               p.brokerHeartbeat,
		code.GetBrokerMemberGroup:          p.getBrokerMemberGroup,
		code.GetRouteinfoByTopic:           p.getRouteInfoByTopic,
		code.GetBrokerClusterInfo:          p.getBrokerClusterInfo,
		code.WipeWritePermOfBroker:         p.wipeWritePermOfBroker,
		code.AddWritePermOfBroker:          p.addWritePermOfBroker,
		code.GetAllTopicListFromNameserver: p.topicList(func(r *RouteInfoManager) *body.TopicList { return r.GetAllTopicList() }),
		code.DeleteTopicInNamesrv:          p.deleteTopicInNamesrv,
		code.RegisterTopicInNamesrv:        p.registerTopicInNamesrv,
		code.GetKvlistByNamespace:          p.getKVListByNamespace,
		code.GetTopicsByCluster:            p.getTopicsByCluster,
		code.GetSystemTopicListFromNs:      p.topicList(func(r *RouteInfoManager) *body.TopicList { return r.GetSystemTopicList() }),
		code.GetUnitTopicList:              p.topicList(func(r *RouteInfoManager) *body.TopicList { return r.GetUnitTopics() }),
		code.GetHasUnitSubTopicList:        p.topicList(func(r *RouteInfoManager) *body.TopicList { return r.GetHasUnitSubTopicList() }),
		code.GetHasUnitSubUnunitTopicList:  p.topicList(func(r *RouteInfoManager) *body.TopicList { return r.GetHasUnitSubUnUnitTopicList() }),
		code.UpdateNamesrvConfig:           p.updateConfig,
		code.GetNamesrvConfig:              p.getConfig,
	}
	return p
}

// Codes lists the request codes the processor serves.
func (p *DefaultRequestProcessor) Codes() []int32 {
	out := make([]int32, 0, len(p.handlers))
	for c := range p.handlers {
		out = append(out, c)
	}
	return out
}

// Inline implements remoting.InlineProcessor: lookups and liveness updates
// that only touch the in-memory tables (their locks are never held across
// I/O) run on the event loop. Route lookups in clusterTest mode may ask other
// name servers over the network, so they stay on the pool then.
func (p *DefaultRequestProcessor) Inline(c int32) bool {
	switch c {
	case code.GetRouteinfoByTopic:
		return !p.ns.Config().ClusterTest
	case code.QueryDataVersion, code.BrokerHeartbeat, code.GetKvConfig:
		return true
	}
	return false
}

// ProcessRequest dispatches by code. Unknown codes get develop's
// REQUEST_CODE_NOT_SUPPORTED " request type N not supported" (4.9.8 stays silent).
func (p *DefaultRequestProcessor) ProcessRequest(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	h, ok := p.handlers[req.Code]
	if !ok {
		return nil, remoting.NewError(code.RequestCodeNotSupported, " request type "+strconv.Itoa(int(req.Code))+" not supported")
	}
	return h(ctx, req)
}

// success returns an empty SUCCESS answer; withHeader gives it an empty
// extFields object, as Java does when the response has a custom header class.
func success(withHeader bool) *codec.RemotingCommand {
	r := codec.NewResponse(code.Success, "")
	if withHeader {
		r.ExtFields = map[string]string{}
	}
	return r
}

// decodeHeader fills h from the request; a missing or bad field becomes the
// SYSTEM_ERROR Java's RemotingCommandException produces.
func decodeHeader(req *codec.RemotingCommand, h header.CommandCustomHeader) error {
	if err := h.FromExtFields(req.ExtFields); err != nil {
		return remoting.NewError(code.SystemError, err.Error())
	}
	return nil
}

func (p *DefaultRequestProcessor) putKVConfig(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.PutKVConfigRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	p.ns.kv.Put(h.Namespace, h.Key, h.Value)
	return success(false), nil
}

func (p *DefaultRequestProcessor) getKVConfig(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetKVConfigRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	if v, ok := p.ns.kv.Get(h.Namespace, h.Key); ok {
		r := success(true)
		r.ExtFields = (&header.GetKVConfigResponseHeader{Value: &v}).ToExtFields()
		return r, nil
	}
	r := codec.NewResponse(code.QueryNotFound, "No config item, Namespace: "+h.Namespace+" Key: "+h.Key)
	r.ExtFields = map[string]string{}
	return r, nil
}

func (p *DefaultRequestProcessor) deleteKVConfig(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.DeleteKVConfigRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	p.ns.kv.Delete(h.Namespace, h.Key)
	return success(false), nil
}

func (p *DefaultRequestProcessor) getKVListByNamespace(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetKVListByNamespaceRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	if b := p.ns.kv.ListByNamespace(h.Namespace); b != nil {
		r := success(false)
		r.Body = b
		return r, nil
	}
	return codec.NewResponse(code.QueryNotFound, "No config item, Namespace: "+h.Namespace), nil
}

func (p *DefaultRequestProcessor) nowMillis() int64 { return p.now().UnixMilli() }

// registerBroker serves REGISTER_BROKER (registerBrokerWithFilterServer; all
// current brokers are newer than V3_0_11).
func (p *DefaultRequestProcessor) registerBroker(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.RegisterBrokerRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	if h.BodyCrc32 != 0 && int32(crc32.ChecksumIEEE(req.Body)&0x7FFFFFFF) != h.BodyCrc32 {
		p.lg.Warn("register broker crc32 not match", zap.String("remoteAddr", ctx.Channel.RemoteAddr()))
		return nil, remoting.NewError(code.SystemError, "crc32 not match")
	}
	rb := &body.RegisterBrokerBody{}
	if req.Body != nil {
		var err error
		if rb, err = body.DecodeRegisterBrokerBody(req.Body, h.Compressed); err != nil {
			p.lg.Warn("register broker bad body", zap.String("remoteAddr", ctx.Channel.RemoteAddr()), zap.Error(err))
			return nil, remoting.NewError(code.SystemError, "Failed to decode RegisterBrokerBody: "+err.Error())
		}
	}
	fs := rb.FilterServerList
	if fs == nil {
		fs = []string{}
	}
	var hbTimeout int64
	if h.HeartbeatTimeoutMillis != nil {
		hbTimeout = *h.HeartbeatTimeoutMillis
	}
	res := p.ns.route.RegisterBroker(RegisterBrokerArgs{
		ClusterName: h.ClusterName, BrokerAddr: h.BrokerAddr, BrokerName: h.BrokerName,
		HAServerAddr: h.HAServerAddr, BrokerID: h.BrokerID, Wrapper: &rb.TopicConfigSerializeWrapper,
		FilterServerList: fs, Channel: channelOf(ctx), NowMillis: p.nowMillis(), HeartbeatTimeoutMillis: hbTimeout,
	})
	r := success(true)
	r.ExtFields = (&header.RegisterBrokerResponseHeader{HAServerAddr: res.HaServerAddr, MasterAddr: res.MasterAddr}).ToExtFields()
	r.Body = p.ns.kv.ListByNamespace(NamespaceOrderTopicConfig)
	return r, nil
}

// channelOf returns the request's channel as a BrokerChannel (nil-safe).
func channelOf(ctx *remoting.Context) BrokerChannel {
	if ctx == nil || ctx.Channel == nil {
		return nil
	}
	return ctx.Channel
}

func (p *DefaultRequestProcessor) queryDataVersion(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.QueryDataVersionRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	dv, err := body.DecodeDataVersion(req.Body)
	if err != nil {
		return nil, remoting.NewError(code.SystemError, "bad DataVersion body: "+err.Error())
	}
	changed, nsDV := p.ns.route.QueryDataVersion(h.BrokerAddr, *dv, p.nowMillis())
	r := success(true)
	r.ExtFields = (&header.QueryDataVersionResponseHeader{Changed: changed}).ToExtFields()
	if nsDV != nil {
		r.Body = nsDV.Encode()
	}
	return r, nil
}

func (p *DefaultRequestProcessor) unregisterBroker(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.UnRegisterBrokerRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	p.ns.route.UnregisterBroker(h.ClusterName, h.BrokerAddr, h.BrokerName, h.BrokerID)
	return success(false), nil
}

func (p *DefaultRequestProcessor) brokerHeartbeat(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.BrokerHeartbeatRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	p.ns.route.UpdateBrokerInfoUpdateTimestamp(h.BrokerAddr, p.nowMillis())
	return success(false), nil
}

func (p *DefaultRequestProcessor) getBrokerMemberGroup(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetBrokerMemberGroupRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	g := p.ns.route.GetBrokerMemberGroup(h.ClusterName, h.BrokerName)
	r := success(false)
	r.Body = body.EncodeBrokerMemberGroupBody(&g)
	return r, nil
}

func (p *DefaultRequestProcessor) getRouteInfoByTopic(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetRouteInfoRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	if p.ns.Config().ClusterTest {
		return p.getRouteInfoClusterTest(&h)
	}
	standard := req.Version >= code.VersionV494 || (h.AcceptStandardJSONOnly != nil && *h.AcceptStandardJSONOnly)
	var b []byte
	if conf, ok := p.orderTopicConf(h.Topic); ok {
		if rd := p.ns.route.PickupTopicRouteData(h.Topic); rd != nil {
			rd.OrderTopicConf = conf
			b = rd.Encode(standard)
		}
	} else {
		b = p.ns.route.TopicRouteBody(h.Topic, standard)
	}
	if b == nil {
		return codec.NewResponse(code.TopicNotExist,
			"No topic route info in name server for the topic: "+h.Topic+applyTopicFAQ), nil
	}
	r := success(false)
	r.Body = b
	return r, nil
}

// orderTopicConf returns the KV ORDER_TOPIC_CONFIG entry of topic when
// orderMessageEnable is on.
func (p *DefaultRequestProcessor) orderTopicConf(topic string) (string, bool) {
	if !p.ns.Config().OrderMessageEnable {
		return "", false
	}
	return p.ns.kv.Get(NamespaceOrderTopicConfig, topic)
}

func (p *DefaultRequestProcessor) getBrokerClusterInfo(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	r := success(false)
	r.Body = p.ns.route.GetAllClusterInfo().Encode()
	return r, nil
}

func (p *DefaultRequestProcessor) wipeWritePermOfBroker(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.WipeWritePermOfBrokerRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	n := p.ns.route.WipeWritePermOfBroker(h.BrokerName)
	p.lg.Info("wipe write perm of broker", zap.String("brokerName", h.BrokerName),
		zap.String("remoteAddr", ctx.Channel.RemoteAddr()), zap.Int("topicCount", n))
	r := success(true)
	r.ExtFields = (&header.WipeWritePermOfBrokerResponseHeader{WipeTopicCount: int32(n)}).ToExtFields()
	return r, nil
}

func (p *DefaultRequestProcessor) addWritePermOfBroker(ctx *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.AddWritePermOfBrokerRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	n := p.ns.route.AddWritePermOfBroker(h.BrokerName)
	p.lg.Info("add write perm of broker", zap.String("brokerName", h.BrokerName),
		zap.String("remoteAddr", ctx.Channel.RemoteAddr()), zap.Int("topicCount", n))
	r := success(true)
	r.ExtFields = (&header.AddWritePermOfBrokerResponseHeader{AddTopicCount: int32(n)}).ToExtFields()
	return r, nil
}

func (p *DefaultRequestProcessor) topicList(get func(*RouteInfoManager) *body.TopicList) handler {
	return func(_ *remoting.Context, _ *codec.RemotingCommand) (*codec.RemotingCommand, error) {
		r := success(false)
		r.Body = get(p.ns.route).Encode()
		return r, nil
	}
}

func (p *DefaultRequestProcessor) deleteTopicInNamesrv(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.DeleteTopicFromNamesrvRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	p.ns.route.DeleteTopic(h.Topic, h.ClusterName)
	return success(false), nil
}

func (p *DefaultRequestProcessor) registerTopicInNamesrv(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.RegisterTopicRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	rd, err := body.DecodeTopicRouteData(req.Body)
	if err != nil {
		return nil, remoting.NewError(code.SystemError, "bad TopicRouteData body: "+err.Error())
	}
	p.ns.route.RegisterTopic(h.Topic, rd.QueueDatas)
	return success(false), nil
}

func (p *DefaultRequestProcessor) getTopicsByCluster(_ *remoting.Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	var h header.GetTopicsByClusterRequestHeader
	if err := decodeHeader(req, &h); err != nil {
		return nil, err
	}
	r := success(false)
	r.Body = p.ns.route.GetTopicsByCluster(h.Cluster).Encode()
	return r, nil
}
