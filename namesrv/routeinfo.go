package namesrv

// This file mirrors Java's org.apache.rocketmq.namesrv.routeinfo.RouteInfoManager
// (4.9.8) plus the 5.x registerTopic/getBrokerMemberGroup additions.

import (
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// MasterID is the broker id of a master (MixAll.MASTER_ID).
const MasterID = 0

// Permission bits (PermName) and topic system flags (TopicSysFlag).
const (
	PermRead         = 1 << 2
	PermWrite        = 1 << 1
	topicFlagUnit    = 0x1
	topicFlagUnitSub = 0x2
)

// Initial capacities of the Java tables, which fix their iteration order.
const (
	topicQueueTableCap = 1024
	defaultMapCap      = 16
)

// BrokerChannel is what the route table remembers of a broker's connection:
// only identity and Close. *remoting.Channel implements it; tests may pass nil.
type BrokerChannel interface {
	Close() error
}

// brokerLiveInfo mirrors Java's BrokerLiveInfo.
type brokerLiveInfo struct {
	lastUpdateMillis int64
	dataVersion      body.DataVersion
	channel          BrokerChannel
	haServerAddr     string
	timeoutMillis    int64 // 5.x heartbeatTimeoutMillis; 0: the name server's brokerChannelExpiredTime
}

// RegisterBrokerArgs are the inputs of RegisterBroker (header plus body).
type RegisterBrokerArgs struct {
	ClusterName, BrokerAddr, BrokerName, HAServerAddr string
	BrokerID                                          int64
	Wrapper                                           *body.TopicConfigSerializeWrapper
	FilterServerList                                  []string // nil: leave the filter table alone
	Channel                                           BrokerChannel
	NowMillis                                         int64
	HeartbeatTimeoutMillis                            int64 // 5.x header; 0: default expiry
}

// RouteInfoManager is the name server's route table: a plain struct guarded
// by one RWMutex, with no goroutines; callers pass the clock in.
type RouteInfoManager struct {
	lg *zap.Logger

	mu                sync.RWMutex
	topicQueueTable   map[string]map[string]*body.QueueData // topic → brokerName → queues
	brokerAddrTable   map[string]*body.BrokerData           // brokerName → addresses
	clusterAddrTable  map[string]map[string]struct{}        // cluster → brokerNames
	brokerLiveTable   map[string]*brokerLiveInfo            // brokerAddr → liveness
	filterServerTable map[string][]string                   // brokerAddr → filter servers

	gen   atomic.Uint64 // bumped under mu (write) whenever a route may change
	cache sync.Map      // routeCacheKey → *cachedRoute
}

// NewRouteInfoManager returns an empty table; lg nil means no logging.
func NewRouteInfoManager(lg *zap.Logger) *RouteInfoManager {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &RouteInfoManager{
		lg:                lg,
		topicQueueTable:   make(map[string]map[string]*body.QueueData, topicQueueTableCap),
		brokerAddrTable:   make(map[string]*body.BrokerData, 128),
		clusterAddrTable:  make(map[string]map[string]struct{}, 32),
		brokerLiveTable:   make(map[string]*brokerLiveInfo, 256),
		filterServerTable: make(map[string][]string, 256),
	}
}

// RegisterBroker records a broker (registerBroker). Queue data is rebuilt from
// a master's topic table only on its first registration or when its data
// version changed. A slave learns its master's address and HA address.
func (r *RouteInfoManager) RegisterBroker(a RegisterBrokerArgs) body.RegisterBrokerResult {
	var res body.RegisterBrokerResult
	dv := body.DataVersion{}
	if a.Wrapper != nil {
		dv = a.Wrapper.DataVersion
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bumpLocked()
	names := r.clusterAddrTable[a.ClusterName]
	if names == nil {
		names = make(map[string]struct{})
		r.clusterAddrTable[a.ClusterName] = names
	}
	names[a.BrokerName] = struct{}{}

	bd := r.brokerAddrTable[a.BrokerName]
	first := bd == nil
	if first {
		bd = &body.BrokerData{Cluster: a.ClusterName, BrokerName: a.BrokerName, BrokerAddrs: map[int64]string{}}
		r.brokerAddrTable[a.BrokerName] = bd
	}
	// One address has one id: a slave switching to master drops its old id.
	for id, addr := range bd.BrokerAddrs {
		if addr == a.BrokerAddr && id != a.BrokerID {
			delete(bd.BrokerAddrs, id)
		}
	}
	_, hadID := bd.BrokerAddrs[a.BrokerID]
	bd.BrokerAddrs[a.BrokerID] = a.BrokerAddr
	first = first || !hadID

	if a.Wrapper != nil && a.BrokerID == MasterID && (first || r.changedLocked(a.BrokerAddr, dv)) {
		for name, tc := range a.Wrapper.TopicConfigTable {
			if tc.TopicName == "" {
				tc.TopicName = name
			}
			r.createAndUpdateQueueData(a.BrokerName, tc)
		}
	}
	if _, ok := r.brokerLiveTable[a.BrokerAddr]; !ok {
		r.lg.Info("new broker registered", zap.String("brokerAddr", a.BrokerAddr), zap.String("haServerAddr", a.HAServerAddr))
	}
	r.brokerLiveTable[a.BrokerAddr] = &brokerLiveInfo{
		lastUpdateMillis: a.NowMillis, dataVersion: dv, channel: a.Channel, haServerAddr: a.HAServerAddr,
		timeoutMillis: a.HeartbeatTimeoutMillis,
	}
	if a.FilterServerList != nil {
		if len(a.FilterServerList) == 0 {
			delete(r.filterServerTable, a.BrokerAddr)
		} else {
			r.filterServerTable[a.BrokerAddr] = a.FilterServerList
		}
	}
	if a.BrokerID != MasterID {
		res.HaServerAddr, res.MasterAddr = r.masterOfLocked(bd)
	}
	return res
}

// masterOfLocked returns the HA address and address of a live master of bd.
func (r *RouteInfoManager) masterOfLocked(bd *body.BrokerData) (haServerAddr, masterAddr string) {
	master, ok := bd.BrokerAddrs[MasterID]
	if !ok {
		return "", ""
	}
	li := r.brokerLiveTable[master]
	if li == nil {
		return "", ""
	}
	return li.haServerAddr, master
}

func (r *RouteInfoManager) changedLocked(brokerAddr string, dv body.DataVersion) bool {
	prev := r.brokerLiveTable[brokerAddr]
	return prev == nil || prev.dataVersion != dv
}

func (r *RouteInfoManager) createAndUpdateQueueData(brokerName string, tc body.TopicConfig) {
	qd := &body.QueueData{
		BrokerName: brokerName, WriteQueueNums: tc.WriteQueueNums, ReadQueueNums: tc.ReadQueueNums,
		Perm: tc.Perm, TopicSysFlag: tc.TopicSysFlag,
	}
	m := r.topicQueueTable[tc.TopicName]
	if m == nil {
		m = make(map[string]*body.QueueData)
		r.topicQueueTable[tc.TopicName] = m
	}
	if old := m[brokerName]; old != nil && *old != *qd {
		r.lg.Info("topic queue data changed", zap.String("topic", tc.TopicName), zap.String("brokerName", brokerName))
	}
	m[brokerName] = qd
}

// IsBrokerTopicConfigChanged reports whether dv differs from the data version
// the broker last registered (or the broker is unknown).
func (r *RouteInfoManager) IsBrokerTopicConfigChanged(brokerAddr string, dv body.DataVersion) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.changedLocked(brokerAddr, dv)
}

// QueryDataVersion serves QUERY_DATA_VERSION: whether dv changed, refreshing
// the broker's timestamp when it did not, and the name server's data version
// for the broker (nil when unknown).
func (r *RouteInfoManager) QueryDataVersion(brokerAddr string, dv body.DataVersion, nowMillis int64) (bool, *body.DataVersion) {
	r.mu.Lock()
	defer r.mu.Unlock()
	changed := r.changedLocked(brokerAddr, dv)
	li := r.brokerLiveTable[brokerAddr]
	if li == nil {
		return changed, nil
	}
	if !changed {
		li.lastUpdateMillis = nowMillis
	}
	v := li.dataVersion
	return changed, &v
}

// UpdateBrokerInfoUpdateTimestamp refreshes a live broker (BROKER_HEARTBEAT).
func (r *RouteInfoManager) UpdateBrokerInfoUpdateTimestamp(brokerAddr string, nowMillis int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if li := r.brokerLiveTable[brokerAddr]; li != nil {
		li.lastUpdateMillis = nowMillis
	}
}

// UnregisterBroker removes one broker address (unregisterBroker); topics lose
// the brokerName's queues only when no address of that name remains.
func (r *RouteInfoManager) UnregisterBroker(clusterName, brokerAddr, brokerName string, brokerID int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bumpLocked()
	delete(r.brokerLiveTable, brokerAddr)
	delete(r.filterServerTable, brokerAddr)
	bd := r.brokerAddrTable[brokerName]
	if bd == nil {
		return
	}
	delete(bd.BrokerAddrs, brokerID)
	if len(bd.BrokerAddrs) != 0 {
		return
	}
	delete(r.brokerAddrTable, brokerName)
	if names := r.clusterAddrTable[clusterName]; names != nil {
		delete(names, brokerName)
		if len(names) == 0 {
			delete(r.clusterAddrTable, clusterName)
		}
	}
	r.removeTopicByBrokerName(brokerName)
	r.lg.Info("broker name removed", zap.String("brokerName", brokerName))
}

func (r *RouteInfoManager) removeTopicByBrokerName(brokerName string) {
	for topic, m := range r.topicQueueTable {
		delete(m, brokerName)
		if len(m) == 0 {
			delete(r.topicQueueTable, topic)
		}
	}
}
