package client

// ConsumerManager mirrors Java's broker/client/ConsumerManager and
// ConsumerIdsChangeListener / ConsumerGroupEvent.

import (
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// ConsumerGroupEvent is what happened to a consumer group (ConsumerGroupEvent).
type ConsumerGroupEvent uint8

// Consumer group events.
const (
	// EventChange: channels or subscriptions of the group changed; Channels
	// holds the group's remaining channels.
	EventChange ConsumerGroupEvent = iota
	// EventUnregister: the group lost its last channel.
	EventUnregister
	// EventRegister: a heartbeat registered the group; Subscriptions holds its set.
	EventRegister
)

func (e ConsumerGroupEvent) String() string {
	switch e {
	case EventChange:
		return "CHANGE"
	case EventUnregister:
		return "UNREGISTER"
	case EventRegister:
		return "REGISTER"
	}
	return "UNKNOWN"
}

// ConsumerIdsChangeListener receives consumer group events, always with no
// manager lock held.
type ConsumerIdsChangeListener interface {
	Handle(event ConsumerGroupEvent, group string, channels []Channel, subscriptions []body.SubscriptionData)
}

// ListenerFunc adapts a function to ConsumerIdsChangeListener.
type ListenerFunc func(event ConsumerGroupEvent, group string, channels []Channel, subscriptions []body.SubscriptionData)

// Handle calls f.
func (f ListenerFunc) Handle(event ConsumerGroupEvent, group string, channels []Channel, subs []body.SubscriptionData) {
	f(event, group, channels, subs)
}

type groupEvent struct {
	event    ConsumerGroupEvent
	group    string
	channels []Channel
	subs     []body.SubscriptionData
}

// ConsumerManager tracks consumer groups registered by heartbeats.
type ConsumerManager struct {
	listener ConsumerIdsChangeListener
	lg       *zap.Logger
	now      func() time.Time
	expiry   time.Duration

	mu     sync.RWMutex
	groups map[string]*ConsumerGroupInfo
}

// NewConsumerManager returns an empty manager; listener may be nil.
func NewConsumerManager(listener ConsumerIdsChangeListener, opts Options) *ConsumerManager {
	return &ConsumerManager{listener: listener, lg: opts.logger().Named("broker.client.consumer"),
		now: opts.clock(), expiry: opts.expiry(), groups: map[string]*ConsumerGroupInfo{}}
}

func (m *ConsumerManager) fire(events []groupEvent) {
	if m.listener == nil {
		return
	}
	for _, e := range events {
		m.listener.Handle(e.event, e.group, e.channels, e.subs)
	}
}

// GetConsumerGroupInfo returns the group, or nil when it has no channel.
func (m *ConsumerManager) GetConsumerGroupInfo(group string) *ConsumerGroupInfo {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.groups[group]
}

// Groups returns the registered group names (unordered).
func (m *ConsumerManager) Groups() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.groups))
	for g := range m.groups {
		out = append(out, g)
	}
	return out
}

// FindChannel returns the channel clientID registered in group, or nil.
func (m *ConsumerManager) FindChannel(group, clientID string) *ClientChannelInfo {
	if g := m.GetConsumerGroupInfo(group); g != nil {
		return g.FindChannel(clientID)
	}
	return nil
}

// FindSubscriptionData returns group's subscription of topic, or nil.
func (m *ConsumerManager) FindSubscriptionData(group, topic string) *body.SubscriptionData {
	if g := m.GetConsumerGroupInfo(group); g != nil {
		return g.FindSubscriptionData(topic)
	}
	return nil
}

// FindSubscriptionDataCount is the number of topics group subscribes.
func (m *ConsumerManager) FindSubscriptionDataCount(group string) int {
	if g := m.GetConsumerGroupInfo(group); g != nil {
		return len(g.SubscribeTopics())
	}
	return 0
}

// RegisterConsumer applies one heartbeat's ConsumerData for the channel in
// info (registerConsumer). It returns whether the group's channel set or
// subscription set changed; on a change with notify set, listeners get
// CHANGE with the group's channels (the broker then sends
// NOTIFY_CONSUMER_IDS_CHANGED). REGISTER is reported on every call.
func (m *ConsumerManager) RegisterConsumer(group string, info *ClientChannelInfo, consumeType, messageModel,
	consumeFromWhere string, subs []body.SubscriptionData, notify bool) bool {
	now := m.now()
	m.mu.Lock()
	g := m.groups[group]
	if g == nil {
		g = newConsumerGroupInfo(group, consumeType, messageModel, consumeFromWhere, m.lg, now)
		m.groups[group] = g
	}
	r1 := g.updateChannel(info, consumeType, messageModel, consumeFromWhere, now)
	r2 := g.updateSubscription(subs, now)
	m.mu.Unlock()

	var events []groupEvent
	if (r1 || r2) && notify {
		events = append(events, groupEvent{event: EventChange, group: group, channels: g.AllChannels()})
	}
	events = append(events, groupEvent{event: EventRegister, group: group, subs: subs})
	m.fire(events)
	return r1 || r2
}

// UnregisterConsumer removes the channel of info from group
// (UNREGISTER_CLIENT). The group goes when its last channel does.
func (m *ConsumerManager) UnregisterConsumer(group string, info *ClientChannelInfo, notify bool) {
	m.mu.Lock()
	g := m.groups[group]
	if g == nil {
		m.mu.Unlock()
		return
	}
	var events []groupEvent
	if old := g.removeChannel(info.Channel); old != nil {
		m.lg.Info("unregister a consumer from consumer group", zap.String("group", group), zap.String("clientId", old.ClientID))
	}
	if g.channelCount() == 0 {
		delete(m.groups, group)
		m.lg.Info("unregister consumer ok, no any connection, and remove consumer group", zap.String("group", group))
		events = append(events, groupEvent{event: EventUnregister, group: group})
	}
	m.mu.Unlock()
	if notify {
		events = append(events, groupEvent{event: EventChange, group: group, channels: g.AllChannels()})
	}
	m.fire(events)
}

// DoChannelCloseEvent unregisters a closed connection from every group
// (doChannelCloseEvent): UNREGISTER for a group left empty, then CHANGE with
// the remaining channels for each group it belonged to.
func (m *ConsumerManager) DoChannelCloseEvent(remoteAddr string, ch Channel) {
	var events []groupEvent
	m.mu.Lock()
	for name, g := range m.groups {
		info := g.removeChannel(ch)
		if info == nil {
			continue
		}
		m.lg.Warn("remove not active channel from consumer group", zap.String("group", name),
			zap.String("clientId", info.ClientID), zap.String("remoteAddr", remoteAddr))
		if g.channelCount() == 0 {
			delete(m.groups, name)
			m.lg.Info("unregister consumer ok, no any connection, and remove consumer group", zap.String("group", name))
			events = append(events, groupEvent{event: EventUnregister, group: name})
		}
		events = append(events, groupEvent{event: EventChange, group: name, channels: g.AllChannels()})
	}
	m.mu.Unlock()
	m.fire(events)
}

// ScanNotActiveChannel drops channels without a heartbeat for 120 s and
// closes them (scanNotActiveChannel). Like 4.9.8 it reports no event: the
// channels are gone from the tables before their close is noticed.
func (m *ConsumerManager) ScanNotActiveChannel() {
	now := m.now()
	var gone []*ClientChannelInfo
	m.mu.Lock()
	for name, g := range m.groups {
		expired := g.expireChannels(now, m.expiry)
		for _, info := range expired {
			m.lg.Warn("scan: remove expired channel from consumer manager", zap.String("group", name),
				zap.String("remoteAddr", info.Channel.RemoteAddr()), zap.String("clientId", info.ClientID))
		}
		gone = append(gone, expired...)
		if g.channelCount() == 0 {
			delete(m.groups, name)
			m.lg.Warn("scan: remove expired channel from consumer manager, all clear", zap.String("group", name))
		}
	}
	m.mu.Unlock()
	for _, info := range gone {
		_ = info.Channel.Close()
	}
}

// QueryTopicConsumeByWho returns the groups subscribing topic (unordered).
func (m *ConsumerManager) QueryTopicConsumeByWho(topic string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for name, g := range m.groups {
		if g.FindSubscriptionData(topic) != nil {
			out = append(out, name)
		}
	}
	return out
}
