package client

import (
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// ConsumerGroupInfo mirrors Java's ConsumerGroupInfo: one consumer group's
// channels and subscriptions. Its accessors return copies.
type ConsumerGroupInfo struct {
	groupName string
	lg        *zap.Logger

	mu                sync.RWMutex
	subscriptionTable map[string]body.SubscriptionData // topic -> subscription
	subOrder          []string                         // topics in arrival order
	channels          *channelTable
	consumeType       string
	messageModel      string
	consumeFromWhere  string
	lastUpdate        int64 // unix ms
}

func newConsumerGroupInfo(group, consumeType, messageModel, consumeFromWhere string, lg *zap.Logger, now time.Time) *ConsumerGroupInfo {
	return &ConsumerGroupInfo{groupName: group, lg: lg, subscriptionTable: map[string]body.SubscriptionData{},
		channels: newChannelTable(), consumeType: consumeType, messageModel: messageModel,
		consumeFromWhere: consumeFromWhere, lastUpdate: now.UnixMilli()}
}

// GroupName returns the consumer group.
func (g *ConsumerGroupInfo) GroupName() string { return g.groupName }

// ConsumeType is CONSUME_ACTIVELY or CONSUME_PASSIVELY as last registered.
func (g *ConsumerGroupInfo) ConsumeType() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.consumeType
}

// MessageModel is CLUSTERING or BROADCASTING as last registered.
func (g *ConsumerGroupInfo) MessageModel() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.messageModel
}

// ConsumeFromWhere is the group's start policy as last registered.
func (g *ConsumerGroupInfo) ConsumeFromWhere() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.consumeFromWhere
}

// LastUpdateTimestamp is the time of the group's last heartbeat, in ms.
func (g *ConsumerGroupInfo) LastUpdateTimestamp() int64 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.lastUpdate
}

// FindChannel returns the channel registered by clientID, or nil.
func (g *ConsumerGroupInfo) FindChannel(clientID string) *ClientChannelInfo {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, info := range g.channels.list() {
		if info.ClientID == clientID {
			return info
		}
	}
	return nil
}

// ChannelInfos returns the group's channels in registration order.
func (g *ConsumerGroupInfo) ChannelInfos() []*ClientChannelInfo {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.channels.list()
}

// AllChannels returns the group's channels in registration order.
func (g *ConsumerGroupInfo) AllChannels() []Channel {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return append([]Channel(nil), g.channels.order...)
}

// AllClientIDs returns the client ids of the group's channels
// (getAllClientId, the GET_CONSUMER_LIST_BY_GROUP answer).
func (g *ConsumerGroupInfo) AllClientIDs() []string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]string, 0, g.channels.len())
	for _, info := range g.channels.list() {
		out = append(out, info.ClientID)
	}
	return out
}

// SubscriptionTable returns a copy of topic -> subscription.
func (g *ConsumerGroupInfo) SubscriptionTable() map[string]body.SubscriptionData {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make(map[string]body.SubscriptionData, len(g.subscriptionTable))
	for k, v := range g.subscriptionTable {
		out[k] = v
	}
	return out
}

// SubscribeTopics returns the subscribed topics in arrival order.
func (g *ConsumerGroupInfo) SubscribeTopics() []string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return append([]string(nil), g.subOrder...)
}

// FindSubscriptionData returns the subscription of topic, or nil.
func (g *ConsumerGroupInfo) FindSubscriptionData(topic string) *body.SubscriptionData {
	g.mu.RLock()
	defer g.mu.RUnlock()
	sd, ok := g.subscriptionTable[topic]
	if !ok {
		return nil
	}
	return &sd
}

func (g *ConsumerGroupInfo) channelCount() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.channels.len()
}

// removeChannel drops ch; it reports whether it was registered.
func (g *ConsumerGroupInfo) removeChannel(ch Channel) *ClientChannelInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.channels.remove(ch)
}

// updateChannel registers or refreshes a channel (updateChannel); true when
// the channel is new to the group.
func (g *ConsumerGroupInfo) updateChannel(info *ClientChannelInfo, consumeType, messageModel, consumeFromWhere string, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.consumeType, g.messageModel, g.consumeFromWhere = consumeType, messageModel, consumeFromWhere
	updated := false
	old := g.channels.get(info.Channel)
	switch {
	case old == nil:
		g.channels.put(info)
		g.lg.Info("new consumer connected", zap.String("group", g.groupName), zap.String("clientId", info.ClientID),
			zap.String("remoteAddr", info.Channel.RemoteAddr()))
		old, updated = info, true
	case old.ClientID != info.ClientID:
		g.lg.Error("consumer channel exists with another clientId", zap.String("group", g.groupName),
			zap.String("oldClientId", old.ClientID), zap.String("clientId", info.ClientID))
		g.channels.put(info)
		old = info
	}
	g.lastUpdate = now.UnixMilli()
	old.SetLastUpdateTimestamp(g.lastUpdate)
	return updated
}

// updateSubscription applies a heartbeat's subscription set
// (updateSubscription): new topics and removed topics are changes; a newer
// subVersion replaces the entry without counting as a change, as in 4.9.8.
func (g *ConsumerGroupInfo) updateSubscription(subs []body.SubscriptionData, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	updated := false
	incoming := make(map[string]bool, len(subs))
	for _, sub := range subs {
		incoming[sub.Topic] = true
		old, ok := g.subscriptionTable[sub.Topic]
		switch {
		case !ok:
			g.subscriptionTable[sub.Topic] = sub
			g.subOrder = append(g.subOrder, sub.Topic)
			updated = true
			g.lg.Info("subscription changed, add new topic", zap.String("group", g.groupName), zap.String("topic", sub.Topic))
		case sub.SubVersion > old.SubVersion:
			g.subscriptionTable[sub.Topic] = sub
		}
	}
	kept := g.subOrder[:0]
	for _, topic := range g.subOrder {
		if incoming[topic] {
			kept = append(kept, topic)
			continue
		}
		delete(g.subscriptionTable, topic)
		updated = true
		g.lg.Warn("subscription changed, remove topic", zap.String("group", g.groupName), zap.String("topic", topic))
	}
	g.subOrder = kept
	g.lastUpdate = now.UnixMilli()
	return updated
}

// expireChannels removes channels silent for longer than expiry and returns them.
func (g *ConsumerGroupInfo) expireChannels(now time.Time, expiry time.Duration) []*ClientChannelInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	var gone []*ClientChannelInfo
	for _, info := range g.channels.list() {
		if info.expired(now, expiry) {
			g.channels.remove(info.Channel)
			gone = append(gone, info)
		}
	}
	return gone
}
