package controller

import (
	"sync"
	"time"

	"github.com/rocketmq-go/rmq/remoting"
)

// DefaultBrokerHeartbeatTimeout is used when a heartbeat carries no
// heartbeatTimeoutMills (5.x BrokerHeartbeatManager.DEFAULT_BROKER_CHANNEL_EXPIRED_TIME).
const DefaultBrokerHeartbeatTimeout = 10 * time.Second

// BrokerIdentity names one broker of one group.
type BrokerIdentity struct {
	ClusterName string
	BrokerName  string
	BrokerID    int64
}

type liveEntry struct {
	info    BrokerLiveInfo
	addr    string
	last    time.Time
	timeout time.Duration
	ch      *remoting.Channel
}

// HeartbeatManager keeps broker liveness from BROKER_HEARTBEAT (5.x
// DefaultBrokerHeartbeatManager). It is local to each controller, not
// replicated: brokers heartbeat every controller, so a new leader already
// knows who is alive. mu guards table (a leaf lock).
type HeartbeatManager struct {
	now func() time.Time

	mu    sync.Mutex
	table map[BrokerIdentity]*liveEntry
}

// NewHeartbeatManager returns an empty table; now nil means time.Now.
func NewHeartbeatManager(now func() time.Time) *HeartbeatManager {
	if now == nil {
		now = time.Now
	}
	return &HeartbeatManager{now: now, table: map[BrokerIdentity]*liveEntry{}}
}

// Heartbeat is one BROKER_HEARTBEAT's data; nil fields were absent.
type Heartbeat struct {
	BrokerIdentity
	BrokerAddr       string
	TimeoutMillis    *int64
	Epoch            *int32
	MaxOffset        *int64
	ConfirmOffset    *int64
	ElectionPriority *int32
	Channel          *remoting.Channel
}

// OnBrokerHeartbeat records a heartbeat. Epoch and offsets only move
// forward (a newer epoch, or a larger maxOffset in the same epoch), as 5.x.
func (h *HeartbeatManager) OnBrokerHeartbeat(hb Heartbeat) {
	epoch, maxOff, confirm := deref32(hb.Epoch, -1), deref64(hb.MaxOffset, -1), deref64(hb.ConfirmOffset, -1)
	prio := deref32(hb.ElectionPriority, 1<<31-1)
	timeout := DefaultBrokerHeartbeatTimeout
	if hb.TimeoutMillis != nil {
		timeout = time.Duration(*hb.TimeoutMillis) * time.Millisecond
	}
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.table[hb.BrokerIdentity]
	if !ok {
		h.table[hb.BrokerIdentity] = &liveEntry{addr: hb.BrokerAddr, last: now, timeout: timeout, ch: hb.Channel,
			info: BrokerLiveInfo{BrokerID: hb.BrokerID, Epoch: epoch, MaxOffset: maxOff, ConfirmOffset: confirm, ElectionPriority: prio}}
		return
	}
	e.last, e.timeout, e.info.ElectionPriority = now, timeout, prio
	e.addr = hb.BrokerAddr
	if hb.Channel != nil {
		e.ch = hb.Channel
	}
	if epoch > e.info.Epoch || epoch == e.info.Epoch && maxOff > e.info.MaxOffset {
		e.info.Epoch, e.info.MaxOffset, e.info.ConfirmOffset = epoch, maxOff, confirm
	}
}

// IsActive reports whether the broker's last heartbeat is within its timeout.
func (h *HeartbeatManager) IsActive(cluster, brokerName string, id int64) bool {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.table[BrokerIdentity{cluster, brokerName, id}]
	return ok && !now.After(e.last.Add(e.timeout))
}

// LiveInfo returns the broker's last reported election data.
func (h *HeartbeatManager) LiveInfo(cluster, brokerName string, id int64) (BrokerLiveInfo, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.table[BrokerIdentity{cluster, brokerName, id}]
	if !ok {
		return BrokerLiveInfo{}, false
	}
	return e.info, true
}

// ScanNotActive removes the brokers whose heartbeat expired and returns
// them with their channels, which the caller closes (outside the lock).
func (h *HeartbeatManager) ScanNotActive() ([]BrokerIdentity, []*remoting.Channel) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	var gone []BrokerIdentity
	var chans []*remoting.Channel
	for id, e := range h.table {
		if now.Sub(e.last) > e.timeout {
			delete(h.table, id)
			gone = append(gone, id)
			if e.ch != nil {
				chans = append(chans, e.ch)
			}
		}
	}
	return gone, chans
}

// OnChannelClose forgets the brokers that heartbeat over ch and returns
// them (5.x onBrokerChannelClose: a closed connection is an inactive broker).
func (h *HeartbeatManager) OnChannelClose(ch *remoting.Channel) []BrokerIdentity {
	h.mu.Lock()
	defer h.mu.Unlock()
	var gone []BrokerIdentity
	for id, e := range h.table {
		if e.ch == ch {
			delete(h.table, id)
			gone = append(gone, id)
		}
	}
	return gone
}

func deref32(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func deref64(p *int64, def int64) int64 {
	if p == nil {
		return def
	}
	return *p
}
