package proxy

import (
	"context"
	"net"
	"slices"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// Topic permission bits (PermName).
const (
	permWrite   = 1 << 1
	permRead    = 1 << 2
	permInherit = 1 << 0
)

func readable(perm int32) bool { return perm&permRead != 0 }
func writable(perm int32) bool { return perm&permWrite != 0 }

// acceptAllTypes is what a topic without a message.type attribute accepts
// here. 4.9.8 topic configs carry no attributes, so every topic is served
// as 5.x's MIXED type (NORMAL, FIFO, DELAY, TRANSACTION) rather than
// 5.x's NORMAL default, which would make 5.x SDKs refuse FIFO, delay and
// transactional messages on topics created by 4.x tools.
var acceptAllTypes = []apiv2.MessageType{apiv2.MessageType_NORMAL, apiv2.MessageType_FIFO, apiv2.MessageType_DELAY, apiv2.MessageType_TRANSACTION}

// QueryRoute answers the topic's queues, every broker's endpoints being
// this proxy (5.x's RouteActivity.queryRoute).
func (svc *service) QueryRoute(ctx context.Context, req *apiv2.QueryRouteRequest) (*apiv2.QueryRouteResponse, error) {
	if err := callInfoOf(ctx).requireClientID(); err != nil {
		return &apiv2.QueryRouteResponse{Status: StatusOf(err)}, nil
	}
	if err := validateTopic(req.GetTopic()); err != nil {
		return &apiv2.QueryRouteResponse{Status: StatusOf(err)}, nil
	}
	rd, err := svc.routes.get(ctx, req.GetTopic().GetName())
	if err != nil {
		return &apiv2.QueryRouteResponse{Status: StatusOf(err)}, nil
	}
	eps := svc.endpointsFor(req.GetEndpoints())
	brokers := map[string][]*apiv2.Broker{}
	for _, bd := range rd.BrokerDatas {
		ids := make([]int64, 0, len(bd.BrokerAddrs))
		for id := range bd.BrokerAddrs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			brokers[bd.BrokerName] = append(brokers[bd.BrokerName], &apiv2.Broker{Name: bd.BrokerName, Id: int32(id), Endpoints: eps})
		}
	}
	var mqs []*apiv2.MessageQueue
	for _, qd := range rd.QueueDatas {
		bs, ok := brokers[qd.BrokerName]
		if !ok {
			break // as 5.x: a queue entry without broker data ends the list
		}
		for _, b := range bs {
			mqs = append(mqs, queuesOf(qd, req.GetTopic(), b)...)
		}
	}
	return &apiv2.QueryRouteResponse{Status: okStatus(), MessageQueues: mqs}, nil
}

// endpointsFor is the proxy's address as the client should see it: the
// hosts the client used, with the proxy's port unless
// useEndpointPortFromRequest.
func (svc *service) endpointsFor(req *apiv2.Endpoints) *apiv2.Endpoints {
	port := int32(svc.cfg.GRPCServerPort)
	if a, ok := svc.srv.Addr().(*net.TCPAddr); ok {
		port = int32(a.Port)
	}
	out := &apiv2.Endpoints{Scheme: req.GetScheme()}
	if out.Scheme == apiv2.AddressScheme_ADDRESS_SCHEME_UNSPECIFIED {
		out.Scheme = apiv2.AddressScheme_IPv4
	}
	for _, a := range req.GetAddresses() {
		p := port
		if svc.cfg.UseEndpointPortFromRequest {
			p = a.GetPort()
		}
		out.Addresses = append(out.Addresses, &apiv2.Address{Host: a.GetHost(), Port: p})
	}
	return out
}

// queuesOf lists one broker's queues of qd as 5.x numbers them: read-only,
// then write-only, then read-write, then (no permission) inaccessible ones.
func queuesOf(qd body.QueueData, topic *apiv2.Resource, b *apiv2.Broker) []*apiv2.MessageQueue {
	var r, w, rw, n int32
	switch {
	case readable(qd.Perm) && writable(qd.Perm):
		rw = min(qd.WriteQueueNums, qd.ReadQueueNums)
		r = qd.ReadQueueNums - rw
		w = qd.WriteQueueNums - rw
	case writable(qd.Perm):
		w = qd.WriteQueueNums
	case readable(qd.Perm):
		r = qd.ReadQueueNums
	default:
		n = max(1, qd.WriteQueueNums, qd.ReadQueueNums)
	}
	var out []*apiv2.MessageQueue
	id := int32(0)
	add := func(count int32, p apiv2.Permission) {
		for range count {
			out = append(out, &apiv2.MessageQueue{Topic: topic, Id: id, Permission: p, Broker: b, AcceptMessageTypes: acceptAllTypes})
			id++
		}
	}
	add(r, apiv2.Permission_READ)
	add(w, apiv2.Permission_WRITE)
	add(rw, apiv2.Permission_READ_WRITE)
	add(n, apiv2.Permission_NONE)
	return out
}

// writeQueue is one queue a message can be sent to.
type writeQueue struct {
	brokerName string
	addr       string
	queueID    int32
}

// writeQueues lists the writable queues of the route's master brokers, in
// route order (5.x's MessageQueueView write selector).
func writeQueues(rd *body.TopicRouteData) []writeQueue {
	masters := map[string]string{}
	for _, bd := range rd.BrokerDatas {
		if a := bd.BrokerAddrs[0]; a != "" {
			masters[bd.BrokerName] = a
		}
	}
	var out []writeQueue
	for _, qd := range rd.QueueDatas {
		addr, ok := masters[qd.BrokerName]
		if !ok || !writable(qd.Perm) {
			continue
		}
		for i := range qd.WriteQueueNums {
			out = append(out, writeQueue{brokerName: qd.BrokerName, addr: addr, queueID: i})
		}
	}
	return out
}

// consistentHash is Guava's Hashing.consistentHash(long, int), which 5.x's
// proxy uses to map a message group's String.hashCode to a write queue.
func consistentHash(input int64, buckets int) int {
	state := uint64(input)
	candidate := 0
	for {
		state = 2862933555777941757*state + 1
		next := int(float64(candidate+1) / (float64(int32(state>>33)+1) / (1 << 31)))
		if next >= 0 && next < buckets {
			candidate = next
		} else {
			return candidate
		}
	}
}
