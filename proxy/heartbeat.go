package proxy

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// brokerHeartbeatInterval is how often the proxy re-registers its clients'
// groups with every broker (the remoting clients' 30 s heartbeat, shorter
// so that a new group is visible soon even without a change signal).
const brokerHeartbeatInterval = 20 * time.Second

// brokerCallTimeout bounds one heartbeat or unregister call.
const brokerCallTimeout = 3 * time.Second

// brokerHeartbeat registers the gRPC clients' producer groups (their
// topics, as 5.x uses the topic as producer group) and consumer groups with
// the brokers under one remoting client id, like 5.x's proxy: admin tools
// see the groups online and CHECK_TRANSACTION_STATE reaches the proxy.
type brokerHeartbeat struct {
	svc      *service
	clientID string

	// loop goroutine only: the groups of the last shared beat and the
	// account each was registered as (nil: unsigned)
	lastProducers map[string]*credentials
	lastConsumers map[string]*credentials
	clientChans   map[string]string // client id → its own channel (per-client mode)
}

func newBrokerHeartbeat(svc *service) *brokerHeartbeat {
	host, _ := os.Hostname()
	return &brokerHeartbeat{svc: svc, clientID: fmt.Sprintf("%s@proxy-%d-%s", host, os.Getpid(), svc.cfg.ProxyName)}
}

func (h *brokerHeartbeat) run() {
	t := time.NewTicker(brokerHeartbeatInterval)
	defer t.Stop()
	idle := time.Duration(h.svc.cfg.GRPCClientIdleTimeMills) * time.Millisecond
	for {
		select {
		case <-h.svc.srv.stopCh:
			return
		case <-h.svc.clients.changed:
		case <-t.C:
			h.svc.clients.expire(time.Now(), idle)
			h.svc.txns.expire(time.Now())
		}
		h.beat()
	}
}

// data builds the heartbeat of clients under clientID.
func (h *brokerHeartbeat) data(clientID string, clients []*clientSession) *body.HeartbeatData {
	hd := &body.HeartbeatData{ClientID: clientID}
	producers := map[string]bool{}
	consumers := map[string]*body.ConsumerData{}
	for _, c := range clients {
		st := c.Settings()
		switch st.GetClientType() {
		case apiv2.ClientType_PRODUCER:
			for _, t := range st.GetPublishing().GetTopics() {
				producers[t.GetName()] = true
			}
		case apiv2.ClientType_PUSH_CONSUMER, apiv2.ClientType_SIMPLE_CONSUMER:
			g := st.GetSubscription().GetGroup().GetName()
			if g == "" {
				continue
			}
			cd := consumers[g]
			if cd == nil {
				cd = &body.ConsumerData{GroupName: g, ConsumeType: consumeTypeOf(st.GetClientType()),
					MessageModel: body.Clustering, ConsumeFromWhere: body.ConsumeFromLastOffset}
				consumers[g] = cd
			}
			for _, e := range st.GetSubscription().GetSubscriptions() {
				if sd, err := buildSubscription(e.GetTopic().GetName(), e.GetExpression()); err == nil {
					cd.SubscriptionDataSet = append(cd.SubscriptionDataSet, sd)
				}
			}
		}
	}
	for _, g := range sortedKeys(producers) {
		hd.ProducerDataSet = append(hd.ProducerDataSet, body.ProducerData{GroupName: g})
	}
	for _, g := range sortedKeys(consumers) {
		hd.ConsumerDataSet = append(hd.ConsumerDataSet, *consumers[g])
	}
	return hd
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func consumeTypeOf(t apiv2.ClientType) string {
	if t == apiv2.ClientType_PUSH_CONSUMER {
		return body.ConsumePassively
	}
	return body.ConsumeActively
}

// beat registers the clients with the brokers: each client over its own
// channel under its own id where the backend offers that (local mode, as
// 5.x's local proxy registers each gRPC client), otherwise all of them
// under the proxy's id.
func (h *brokerHeartbeat) beat() {
	if pc, ok := h.svc.be.(perClientBackend); ok && h.beatPerClient(pc) {
		return
	}
	h.beatShared()
}

// beatPerClient heartbeats every client with settings over its own channel
// and closes the channels of clients that are gone (the broker then drops
// their registrations); false when the backend has no per-client channels.
func (h *brokerHeartbeat) beatPerClient(pc perClientBackend) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*brokerCallTimeout)
	defer cancel()
	masters, err := h.svc.be.MasterBrokers(ctx)
	if err != nil || len(masters) != 1 {
		return false
	}
	var name, addr string
	for n, a := range masters {
		name, addr = n, a
	}
	if pc.ClientChannelAddr(addr, "probe") == "" {
		return false
	}
	seen := map[string]string{}
	for _, c := range h.svc.clients.snapshot() {
		if c.Settings() == nil {
			continue
		}
		hd := h.data(c.id, []*clientSession{c})
		if len(hd.ProducerDataSet)+len(hd.ConsumerDataSet) == 0 {
			continue
		}
		chAddr := pc.ClientChannelAddr(addr, c.id)
		seen[c.id] = chAddr
		req := codec.NewRequest(code.HeartBeat, nil, hd.Encode())
		if lc, ok := code.ParseLanguage(c.info.remotingLanguage()); ok {
			req.Language = lc
		}
		h.send(h.svc.asClient(context.Background(), c.id), chAddr, name, req)
	}
	for id, chAddr := range h.clientChans {
		if _, ok := seen[id]; !ok {
			pc.CloseClientChannel(chAddr)
		}
	}
	h.clientChans = seen
	return true
}

// beatShared sends every master the clients' groups under the proxy's id,
// one heartbeat per account the clients were last admitted as (signed as
// it, so an ACL broker takes them), then unregisters the groups that are
// gone since the last beat, as the account that last registered them.
func (h *brokerHeartbeat) beatShared() {
	beats, producers, consumers := h.sharedBeats()
	if len(producers)+len(consumers)+len(h.lastProducers)+len(h.lastConsumers) == 0 {
		return // no gRPC client, nothing to register or withdraw
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*brokerCallTimeout)
	defer cancel()
	masters, err := h.svc.be.MasterBrokers(ctx)
	if err != nil {
		h.svc.lg.Warn("heartbeat: no broker list", zap.Error(err))
		return
	}
	for name, addr := range masters {
		for _, b := range beats {
			h.send(b.as, addr, name, codec.NewRequest(code.HeartBeat, nil, b.payload))
		}
		for _, g := range goneGroups(h.lastProducers, producers) {
			h.send(asCreds(h.lastProducers[g]), addr, name, codec.NewRequest(code.UnregisterClient, (&header.UnregisterClientRequestHeader{ClientID: h.clientID, ProducerGroup: g}).ToExtFields(), nil))
		}
		for _, g := range goneGroups(h.lastConsumers, consumers) {
			h.send(asCreds(h.lastConsumers[g]), addr, name, codec.NewRequest(code.UnregisterClient, (&header.UnregisterClientRequestHeader{ClientID: h.clientID, ConsumerGroup: g}).ToExtFields(), nil))
		}
	}
	h.lastProducers, h.lastConsumers = producers, consumers
}

// sharedBeat is one heartbeat of the shared registration and the account
// it is signed as.
type sharedBeat struct {
	as      context.Context
	payload []byte
}

// sharedBeats splits the clients by the account they were last admitted as
// (none: one unsigned heartbeat) and returns a heartbeat per account, plus
// each group registered with the account that carries it.
func (h *brokerHeartbeat) sharedBeats() ([]sharedBeat, map[string]*credentials, map[string]*credentials) {
	byAccount := map[credentials][]*clientSession{} // zero value: unsigned
	creds := map[credentials]*credentials{}
	for _, c := range h.svc.clients.snapshot() {
		var a credentials
		if cr := c.creds.Load(); cr != nil {
			a = *cr
			creds[a] = cr
		}
		byAccount[a] = append(byAccount[a], c)
	}
	accounts := make([]credentials, 0, len(byAccount))
	for a := range byAccount {
		accounts = append(accounts, a)
	}
	slices.SortFunc(accounts, func(x, y credentials) int { return strings.Compare(x.accessKey, y.accessKey) })
	var beats []sharedBeat
	producers, consumers := map[string]*credentials{}, map[string]*credentials{}
	for _, a := range accounts {
		hd := h.data(h.clientID, byAccount[a])
		if len(hd.ProducerDataSet)+len(hd.ConsumerDataSet) == 0 {
			continue
		}
		for _, p := range hd.ProducerDataSet {
			producers[p.GroupName] = creds[a]
		}
		for _, c := range hd.ConsumerDataSet {
			consumers[c.GroupName] = creds[a]
		}
		beats = append(beats, sharedBeat{as: asCreds(creds[a]), payload: hd.Encode()})
	}
	return beats, producers, consumers
}

// asCreds is a context signing as c (unsigned for nil).
func asCreds(c *credentials) context.Context {
	if c == nil {
		return context.Background()
	}
	return withCredentials(context.Background(), c)
}

// send calls the broker; base carries the account to sign as, if any.
func (h *brokerHeartbeat) send(base context.Context, addr, name string, req *codec.RemotingCommand) {
	ctx, cancel := context.WithTimeout(base, brokerCallTimeout)
	defer cancel()
	if _, err := h.svc.be.Invoke(ctx, addr, req); err != nil {
		h.svc.lg.Warn("heartbeat to broker failed", zap.String("brokerName", name), zap.String("brokerAddr", addr), zap.Int32("code", req.Code), zap.Error(err))
	}
}

// goneGroups returns the groups of before missing from after, sorted.
func goneGroups(before, after map[string]*credentials) []string {
	var out []string
	for _, g := range sortedKeys(before) {
		if _, ok := after[g]; !ok {
			out = append(out, g)
		}
	}
	return out
}

// buildSubscription is FilterAPI.build for a gRPC filter expression.
func buildSubscription(topic string, f *apiv2.FilterExpression) (body.SubscriptionData, error) {
	sd := body.SubscriptionData{Topic: topic, SubVersion: time.Now().UnixMilli(), ExpressionType: "TAG"}
	expr := strings.TrimSpace(f.GetExpression())
	if f.GetType() == apiv2.FilterType_SQL {
		if expr == "" {
			return sd, errorf(apiv2.Code_ILLEGAL_FILTER_EXPRESSION, "expression format is not correct")
		}
		sd.ExpressionType = "SQL92"
		sd.SubString = expr
		return sd, nil
	}
	if expr == "" || expr == "*" {
		sd.SubString = "*"
		return sd, nil
	}
	sd.SubString = expr
	for _, tag := range strings.Split(expr, "||") {
		if tag = strings.TrimSpace(tag); tag != "" {
			sd.TagsSet = append(sd.TagsSet, tag)
			sd.CodeSet = append(sd.CodeSet, int32(message.TagsCode(tag)))
		}
	}
	return sd, nil
}
