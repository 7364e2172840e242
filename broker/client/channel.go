package client

import (
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// ChannelExpiredTimeout is how long a client channel may stay silent (no
// heartbeat) before the housekeeping scan drops it (CHANNEL_EXPIRED_TIMEOUT).
const ChannelExpiredTimeout = 120 * time.Second

// Channel is the part of a client connection the bookkeeping needs;
// *remoting.Channel implements it. Channels are compared by identity.
type Channel interface {
	ID() uint64
	RemoteAddr() string
	IsClosed() bool
	Close() error
	InvokeOneway(req *codec.RemotingCommand) error
}

var _ Channel = (*remoting.Channel)(nil)

// Options configures the managers; the zero value is usable.
type Options struct {
	Logger *zap.Logger      // nil: no logging
	Now    func() time.Time // nil: time.Now (tests inject a clock)
	// ChannelExpiredTimeout overrides the 120 s channel expiry (0: default).
	ChannelExpiredTimeout time.Duration
}

func (o Options) logger() *zap.Logger {
	if o.Logger == nil {
		return zap.NewNop()
	}
	return o.Logger
}

func (o Options) clock() func() time.Time {
	if o.Now == nil {
		return time.Now
	}
	return o.Now
}

func (o Options) expiry() time.Duration {
	if o.ChannelExpiredTimeout <= 0 {
		return ChannelExpiredTimeout
	}
	return o.ChannelExpiredTimeout
}

// ClientChannelInfo mirrors Java's ClientChannelInfo: one client connection
// as registered by a heartbeat.
type ClientChannelInfo struct {
	Channel  Channel
	ClientID string
	Language code.LanguageCode
	Version  int32

	lastUpdate atomic.Int64 // unix ms of the last heartbeat
}

// NewClientChannelInfo records a client channel seen at now.
func NewClientChannelInfo(ch Channel, clientID string, lang code.LanguageCode, version int32, now time.Time) *ClientChannelInfo {
	c := &ClientChannelInfo{Channel: ch, ClientID: clientID, Language: lang, Version: version}
	c.lastUpdate.Store(now.UnixMilli())
	return c
}

// LastUpdateTimestamp is the time of the last heartbeat, in ms.
func (c *ClientChannelInfo) LastUpdateTimestamp() int64 { return c.lastUpdate.Load() }

// SetLastUpdateTimestamp records a heartbeat time in ms.
func (c *ClientChannelInfo) SetLastUpdateTimestamp(ms int64) { c.lastUpdate.Store(ms) }

func (c *ClientChannelInfo) expired(now time.Time, expiry time.Duration) bool {
	return now.UnixMilli()-c.LastUpdateTimestamp() > expiry.Milliseconds()
}

// channelTable is an insertion-ordered map channel -> info.
type channelTable struct {
	order []Channel
	infos map[Channel]*ClientChannelInfo
}

func newChannelTable() *channelTable {
	return &channelTable{infos: make(map[Channel]*ClientChannelInfo)}
}

func (t *channelTable) get(ch Channel) *ClientChannelInfo { return t.infos[ch] }

func (t *channelTable) len() int { return len(t.infos) }

func (t *channelTable) put(info *ClientChannelInfo) {
	if _, ok := t.infos[info.Channel]; !ok {
		t.order = append(t.order, info.Channel)
	}
	t.infos[info.Channel] = info
}

func (t *channelTable) remove(ch Channel) *ClientChannelInfo {
	info, ok := t.infos[ch]
	if !ok {
		return nil
	}
	delete(t.infos, ch)
	for i, c := range t.order {
		if c == ch {
			t.order = append(t.order[:i:i], t.order[i+1:]...)
			break
		}
	}
	return info
}

// list returns the infos in registration order.
func (t *channelTable) list() []*ClientChannelInfo {
	out := make([]*ClientChannelInfo, 0, len(t.order))
	for _, ch := range t.order {
		out = append(out, t.infos[ch])
	}
	return out
}
