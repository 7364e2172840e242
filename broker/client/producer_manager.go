package client

// ProducerManager mirrors Java's broker/client/ProducerManager.

import (
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// getAvailableChannelRetryCount is GET_AVAILABLE_CHANNEL_RETRY_COUNT.
const getAvailableChannelRetryCount = 3

// ProducerManager tracks producer groups registered by heartbeats.
type ProducerManager struct {
	lg      *zap.Logger
	now     func() time.Time
	expiry  time.Duration
	counter atomic.Int32 // round robin for GetAvailableChannel

	mu      sync.RWMutex
	groups  map[string]*channelTable // group -> channels
	clients map[string]Channel       // clientId -> channel
}

// NewProducerManager returns an empty manager.
func NewProducerManager(opts Options) *ProducerManager {
	return &ProducerManager{lg: opts.logger().Named("broker.client.producer"), now: opts.clock(),
		expiry: opts.expiry(), groups: map[string]*channelTable{}, clients: map[string]Channel{}}
}

// RegisterProducer records or refreshes the channel of info in group.
func (p *ProducerManager) RegisterProducer(group string, info *ClientChannelInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.groups[group]
	if t == nil {
		t = newChannelTable()
		p.groups[group] = t
	}
	if found := t.get(info.Channel); found != nil {
		found.SetLastUpdateTimestamp(p.now().UnixMilli())
		return
	}
	t.put(info)
	p.clients[info.ClientID] = info.Channel
	p.lg.Info("new producer connected", zap.String("group", group), zap.String("clientId", info.ClientID),
		zap.String("remoteAddr", info.Channel.RemoteAddr()))
}

// UnregisterProducer removes the channel of info from group (UNREGISTER_CLIENT).
func (p *ProducerManager) UnregisterProducer(group string, info *ClientChannelInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.groups[group]
	if t == nil || t.len() == 0 {
		return
	}
	if old := t.remove(info.Channel); old != nil {
		p.lg.Info("unregister a producer from group", zap.String("group", group), zap.String("clientId", old.ClientID))
	}
	delete(p.clients, info.ClientID)
	if t.len() == 0 {
		delete(p.groups, group)
		p.lg.Info("unregister a producer group", zap.String("group", group))
	}
}

// DoChannelCloseEvent removes a closed connection from every group. Empty
// groups stay, as in 4.9.8.
func (p *ProducerManager) DoChannelCloseEvent(remoteAddr string, ch Channel) {
	if ch == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for group, t := range p.groups {
		if info := t.remove(ch); info != nil {
			delete(p.clients, info.ClientID)
			p.lg.Info("remove channel from producer group", zap.String("group", group),
				zap.String("clientId", info.ClientID), zap.String("remoteAddr", remoteAddr))
		}
	}
}

// ScanNotActiveChannel drops and closes channels without a heartbeat for 120 s.
func (p *ProducerManager) ScanNotActiveChannel() {
	now := p.now()
	var gone []*ClientChannelInfo
	p.mu.Lock()
	for group, t := range p.groups {
		for _, info := range t.list() {
			if !info.expired(now, p.expiry) {
				continue
			}
			t.remove(info.Channel)
			delete(p.clients, info.ClientID)
			gone = append(gone, info)
			p.lg.Warn("scan: remove expired channel from producer manager", zap.String("group", group),
				zap.String("remoteAddr", info.Channel.RemoteAddr()), zap.String("clientId", info.ClientID))
		}
	}
	p.mu.Unlock()
	for _, info := range gone {
		_ = info.Channel.Close()
	}
}

// GetAvailableChannel picks an open channel of group round-robin (used for
// transaction state checks); nil when the group has none open.
func (p *ProducerManager) GetAvailableChannel(group string) Channel {
	p.mu.RLock()
	t := p.groups[group]
	var chans []Channel
	if t != nil {
		chans = append(chans, t.order...)
	}
	p.mu.RUnlock()
	if len(chans) == 0 {
		p.lg.Warn("check transaction failed, channel table is empty", zap.String("group", group))
		return nil
	}
	idx := int((uint32(p.counter.Add(1)) & 0x7fffffff) % uint32(len(chans)))
	for range getAvailableChannelRetryCount {
		if ch := chans[idx]; !ch.IsClosed() {
			return ch
		}
		idx = (idx + 1) % len(chans)
	}
	return nil
}

// FindChannel returns the channel a producer client id registered last.
func (p *ProducerManager) FindChannel(clientID string) Channel {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.clients[clientID]
}

// GroupChannels returns a snapshot of group -> channels in registration
// order (GET_PRODUCER_CONNECTION_LIST, getAllProducerInfo).
func (p *ProducerManager) GroupChannels() map[string][]*ClientChannelInfo {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make(map[string][]*ClientChannelInfo, len(p.groups))
	for g, t := range p.groups {
		out[g] = t.list()
	}
	return out
}

// ChannelInfos returns group's channels in registration order.
func (p *ProducerManager) ChannelInfos(group string) []*ClientChannelInfo {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if t := p.groups[group]; t != nil {
		return t.list()
	}
	return nil
}
