package proxy

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// telemetryQueue bounds the commands waiting to be written to one client's
// Telemetry stream; a full queue drops the command (the broker asks again).
const telemetryQueue = 64

// clientSession is one gRPC client, keyed by its client id (5.x's
// GrpcClientChannel plus its Settings).
type clientSession struct {
	id   string
	info callInfo
	// creds is the account the client was last admitted as (ACL on), for
	// broker calls the proxy makes for it on its own; nil otherwise.
	creds atomic.Pointer[credentials]

	mu       sync.Mutex // guards the fields below
	settings *apiv2.Settings
	lastSeen time.Time
	stream   chan *apiv2.TelemetryCommand // the open Telemetry stream's queue; nil when none
}

// Settings returns the client's settings as last sent (nil before any).
func (c *clientSession) Settings() *apiv2.Settings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settings
}

// streamSettings returns the client's settings and whether its Telemetry
// stream is open, read together under one lock.
func (c *clientSession) streamSettings() (*apiv2.Settings, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settings, c.stream != nil
}

// Push queues cmd on the client's Telemetry stream; false when the client
// has no stream or its queue is full.
func (c *clientSession) Push(cmd *apiv2.TelemetryCommand) bool {
	c.mu.Lock()
	q := c.stream
	c.mu.Unlock()
	if q == nil {
		return false
	}
	select {
	case q <- cmd:
		return true
	default:
		return false
	}
}

// registry is the table of known gRPC clients.
type registry struct {
	mu      sync.Mutex // guards clients; never held across I/O
	clients map[string]*clientSession
	changed chan struct{} // buffered(1): a client's groups changed
}

func newRegistry() *registry {
	return &registry{clients: map[string]*clientSession{}, changed: make(chan struct{}, 1)}
}

// touch returns the session of ci's client, creating it.
func (r *registry) touch(ci callInfo) *clientSession {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.clients[ci.ClientID]
	if c == nil {
		c = &clientSession{id: ci.ClientID, info: ci}
		r.clients[ci.ClientID] = c
	}
	c.mu.Lock()
	c.lastSeen = now
	c.mu.Unlock()
	return c
}

// Get returns the session of id, or nil.
func (r *registry) Get(id string) *clientSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.clients[id]
}

func (r *registry) remove(id string) *clientSession {
	r.mu.Lock()
	c := r.clients[id]
	delete(r.clients, id)
	r.mu.Unlock()
	if c != nil {
		r.notify()
	}
	return c
}

func (r *registry) notify() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// snapshot returns every session.
func (r *registry) snapshot() []*clientSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*clientSession, 0, len(r.clients))
	for _, c := range r.clients {
		out = append(out, c)
	}
	return out
}

// ProducersOf returns the clients publishing to topic (5.x uses the topic
// name as the producer group) that have an open Telemetry stream.
func (r *registry) ProducersOf(topic string) []*clientSession {
	var out []*clientSession
	for _, c := range r.snapshot() {
		s, open := c.streamSettings()
		if !open || s.GetPublishing() == nil {
			continue
		}
		for _, t := range s.GetPublishing().GetTopics() {
			if t.GetName() == topic {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// ConsumersOf returns the clients of consumer group that have an open
// Telemetry stream.
func (r *registry) ConsumersOf(group string) []*clientSession {
	var out []*clientSession
	for _, c := range r.snapshot() {
		s, open := c.streamSettings()
		if open && s.GetSubscription().GetGroup().GetName() == group {
			out = append(out, c)
		}
	}
	return out
}

// expire drops clients silent for longer than idle (no RPC, no stream).
func (r *registry) expire(now time.Time, idle time.Duration) int {
	n := 0
	for _, c := range r.snapshot() {
		c.mu.Lock()
		dead := c.stream == nil && now.Sub(c.lastSeen) > idle
		c.mu.Unlock()
		if dead {
			r.remove(c.id)
			n++
		}
	}
	return n
}

// nonceWaiters pairs a command pushed to a client (by nonce) with the
// client's answer on its Telemetry stream (thread stack trace, verify
// result).
type nonceWaiters struct {
	mu sync.Mutex
	m  map[string]chan *apiv2.TelemetryCommand
}

func newNonceWaiters() *nonceWaiters {
	return &nonceWaiters{m: map[string]chan *apiv2.TelemetryCommand{}}
}

// Register returns the channel that receives the answer to nonce, and a
// cancel function to call when no longer waiting.
func (w *nonceWaiters) Register(nonce string) (<-chan *apiv2.TelemetryCommand, func()) {
	ch := make(chan *apiv2.TelemetryCommand, 1)
	w.mu.Lock()
	w.m[nonce] = ch
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		delete(w.m, nonce)
		w.mu.Unlock()
	}
}

// deliver hands cmd to the waiter of nonce, if any.
func (w *nonceWaiters) deliver(nonce string, cmd *apiv2.TelemetryCommand) bool {
	w.mu.Lock()
	ch := w.m[nonce]
	delete(w.m, nonce)
	w.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- cmd
	return true
}

// Heartbeat records the client as alive and registers its group with the
// brokers, as 5.x's ClientActivity.heartbeat.
func (svc *service) Heartbeat(ctx context.Context, req *apiv2.HeartbeatRequest) (*apiv2.HeartbeatResponse, error) {
	ci := callInfoOf(ctx)
	if err := ci.requireClientID(); err != nil {
		return &apiv2.HeartbeatResponse{Status: StatusOf(err)}, nil
	}
	c := svc.clients.touch(ci)
	st := c.Settings()
	if st == nil {
		return &apiv2.HeartbeatResponse{Status: newStatus(apiv2.Code_UNRECOGNIZED_CLIENT_TYPE, "cannot find client settings for this client")}, nil
	}
	switch st.GetClientType() {
	case apiv2.ClientType_PRODUCER:
	case apiv2.ClientType_PUSH_CONSUMER, apiv2.ClientType_SIMPLE_CONSUMER:
		if err := validateConsumerGroup(req.GetGroup()); err != nil {
			return &apiv2.HeartbeatResponse{Status: StatusOf(err)}, nil
		}
	default:
		return &apiv2.HeartbeatResponse{Status: newStatus(apiv2.Code_UNRECOGNIZED_CLIENT_TYPE, st.GetClientType().String())}, nil
	}
	return &apiv2.HeartbeatResponse{Status: okStatus()}, nil
}

// NotifyClientTermination forgets the client (5.x unregisters its producer
// or consumer channel).
func (svc *service) NotifyClientTermination(ctx context.Context, req *apiv2.NotifyClientTerminationRequest) (*apiv2.NotifyClientTerminationResponse, error) {
	ci := callInfoOf(ctx)
	if err := ci.requireClientID(); err != nil {
		return &apiv2.NotifyClientTerminationResponse{Status: StatusOf(err)}, nil
	}
	c := svc.clients.Get(ci.ClientID)
	if c == nil || c.Settings() == nil {
		return &apiv2.NotifyClientTerminationResponse{Status: newStatus(apiv2.Code_UNRECOGNIZED_CLIENT_TYPE, "cannot find client settings for this client")}, nil
	}
	switch t := c.Settings().GetClientType(); t {
	case apiv2.ClientType_PRODUCER:
	case apiv2.ClientType_PUSH_CONSUMER, apiv2.ClientType_SIMPLE_CONSUMER:
		if err := validateConsumerGroup(req.GetGroup()); err != nil {
			return &apiv2.NotifyClientTerminationResponse{Status: StatusOf(err)}, nil
		}
	default:
		return &apiv2.NotifyClientTerminationResponse{Status: newStatus(apiv2.Code_UNRECOGNIZED_CLIENT_TYPE, t.String())}, nil
	}
	svc.clients.remove(ci.ClientID)
	svc.lg.Info("grpc client terminated", zap.String("clientId", ci.ClientID))
	return &apiv2.NotifyClientTerminationResponse{Status: okStatus()}, nil
}
