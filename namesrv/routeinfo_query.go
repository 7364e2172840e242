package namesrv

// Reads, expiry and admin edits of the route table (RouteInfoManager, 4.9.8).

import (
	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// PickupTopicRouteData returns the topic's route, or nil when it has no queue
// data or none of its broker names has an address (pickupTopicRouteData).
// Lists come in the order Java's HashMap/HashSet would give them.
func (r *RouteInfoManager) PickupTopicRouteData(topic string) *body.TopicRouteData {
	r.mu.RLock()
	defer r.mu.RUnlock()
	qm := r.topicQueueTable[topic]
	if qm == nil {
		return nil
	}
	names := make([]string, 0, len(qm))
	for n := range qm {
		names = append(names, n)
	}
	body.SortJavaHashOrder(names, body.JavaHashMapCapacity(len(names), defaultMapCap))
	rd := &body.TopicRouteData{
		QueueDatas:        make([]body.QueueData, 0, len(names)),
		BrokerDatas:       make([]body.BrokerData, 0, len(names)),
		FilterServerTable: map[string][]string{},
	}
	for _, n := range names {
		rd.QueueDatas = append(rd.QueueDatas, *qm[n])
		bd := r.brokerAddrTable[n]
		if bd == nil {
			continue
		}
		clone := bd.Clone()
		rd.BrokerDatas = append(rd.BrokerDatas, clone)
		if len(r.filterServerTable) == 0 {
			continue
		}
		for _, addr := range clone.BrokerAddrs {
			if fs, ok := r.filterServerTable[addr]; ok {
				rd.FilterServerTable[addr] = fs
			}
		}
	}
	if len(rd.BrokerDatas) == 0 {
		return nil
	}
	return rd
}

// ExpiredBroker is one broker dropped by ScanNotActiveBroker; the caller
// closes its channel outside the lock.
type ExpiredBroker struct {
	BrokerAddr string
	Channel    BrokerChannel
}

// ScanNotActiveBroker removes brokers silent for longer than their 5.x
// heartbeatTimeoutMillis, or expiryMillis when they sent none
// (scanNotActiveBroker), and returns them.
func (r *RouteInfoManager) ScanNotActiveBroker(nowMillis, expiryMillis int64) []ExpiredBroker {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ExpiredBroker
	for addr, li := range r.brokerLiveTable {
		timeout := expiryMillis
		if li.timeoutMillis > 0 {
			timeout = li.timeoutMillis
		}
		if li.lastUpdateMillis+timeout < nowMillis {
			out = append(out, ExpiredBroker{BrokerAddr: addr, Channel: li.channel})
			r.lg.Warn("broker channel expired", zap.String("brokerAddr", addr), zap.Int64("expiryMillis", timeout))
			r.destroyLocked(addr)
		}
	}
	return out
}

// OnChannelDestroy forgets the broker whose registered channel is ch, or, when
// no broker registered over ch, the broker at remoteAddr (onChannelDestroy).
func (r *RouteInfoManager) OnChannelDestroy(remoteAddr string, ch BrokerChannel) {
	r.mu.Lock()
	defer r.mu.Unlock()
	found := ""
	if ch != nil {
		for addr, li := range r.brokerLiveTable {
			if li.channel == ch {
				found = addr
				break
			}
		}
	}
	if found == "" {
		found = remoteAddr
	}
	if found != "" {
		r.destroyLocked(found)
	}
}

// destroyLocked removes every trace of one broker address.
func (r *RouteInfoManager) destroyLocked(brokerAddr string) {
	r.bumpLocked()
	delete(r.brokerLiveTable, brokerAddr)
	delete(r.filterServerTable, brokerAddr)
	nameFound, removeName := "", false
	for name, bd := range r.brokerAddrTable {
		for id, addr := range bd.BrokerAddrs {
			if addr == brokerAddr {
				nameFound = name
				delete(bd.BrokerAddrs, id)
				break
			}
		}
		if nameFound == "" {
			continue
		}
		if len(bd.BrokerAddrs) == 0 {
			removeName = true
			delete(r.brokerAddrTable, name)
		}
		break
	}
	if !removeName {
		return
	}
	for cluster, names := range r.clusterAddrTable {
		if _, ok := names[nameFound]; ok {
			delete(names, nameFound)
			if len(names) == 0 {
				delete(r.clusterAddrTable, cluster)
			}
			break
		}
	}
	r.removeTopicByBrokerName(nameFound)
	r.lg.Info("broker removed", zap.String("brokerAddr", brokerAddr), zap.String("brokerName", nameFound))
}

// GetAllClusterInfo returns a deep copy of the broker and cluster tables.
func (r *RouteInfoManager) GetAllClusterInfo() *body.ClusterInfo {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ci := &body.ClusterInfo{
		BrokerAddrTable:  make(map[string]*body.BrokerData, len(r.brokerAddrTable)),
		ClusterAddrTable: make(map[string][]string, len(r.clusterAddrTable)),
	}
	for n, bd := range r.brokerAddrTable {
		c := bd.Clone()
		ci.BrokerAddrTable[n] = &c
	}
	for c, names := range r.clusterAddrTable {
		list := make([]string, 0, len(names))
		for n := range names {
			list = append(list, n)
		}
		ci.ClusterAddrTable[c] = list
	}
	return ci
}

// topicTableOrder sorts a HashSet<String> filled from topicQueueTable.
func (r *RouteInfoManager) topicTableOrder(list []string) {
	body.SortJavaHashOrder(list, body.JavaHashMapCapacity(len(list), defaultMapCap),
		body.JavaHashMapCapacity(len(r.topicQueueTable), topicQueueTableCap))
}

// GetAllTopicList lists every topic (getAllTopicList).
func (r *RouteInfoManager) GetAllTopicList() *body.TopicList {
	r.mu.RLock()
	defer r.mu.RUnlock()
	list := make([]string, 0, len(r.topicQueueTable))
	for t := range r.topicQueueTable {
		list = append(list, t)
	}
	r.topicTableOrder(list)
	return &body.TopicList{TopicList: list}
}

// GetTopicsByCluster lists topics with queues on any broker of the cluster.
func (r *RouteInfoManager) GetTopicsByCluster(cluster string) *body.TopicList {
	r.mu.RLock()
	defer r.mu.RUnlock()
	list := []string{}
	for t, qm := range r.topicQueueTable {
		for n := range r.clusterAddrTable[cluster] {
			if _, ok := qm[n]; ok {
				list = append(list, t)
				break
			}
		}
	}
	r.topicTableOrder(list)
	return &body.TopicList{TopicList: list}
}

// GetSystemTopicList lists cluster and broker names (each is a system topic)
// and one broker address to query them at (getSystemTopicList).
func (r *RouteInfoManager) GetSystemTopicList() *body.TopicList {
	r.mu.RLock()
	defer r.mu.RUnlock()
	set := map[string]struct{}{}
	for c, names := range r.clusterAddrTable {
		set[c] = struct{}{}
		for n := range names {
			set[n] = struct{}{}
		}
	}
	list := make([]string, 0, len(set))
	for s := range set {
		list = append(list, s)
	}
	body.SortJavaHashOrder(list, body.JavaHashMapCapacity(len(list), defaultMapCap))
	tl := &body.TopicList{TopicList: list}
	names := make([]string, 0, len(r.brokerAddrTable))
	for n := range r.brokerAddrTable {
		names = append(names, n)
	}
	body.SortJavaHashOrder(names, body.JavaHashMapCapacity(len(names), 128))
	for _, n := range names {
		bd := r.brokerAddrTable[n]
		if len(bd.BrokerAddrs) == 0 {
			continue
		}
		ids := make([]int64, 0, len(bd.BrokerAddrs))
		for id := range bd.BrokerAddrs {
			ids = append(ids, id)
		}
		body.SortJavaLongKeys(ids, body.JavaHashMapCapacity(len(ids), defaultMapCap))
		tl.BrokerAddr = bd.BrokerAddrs[ids[0]]
		break
	}
	return tl
}

// topicsWhere lists topics whose first queue data (Java HashMap order) matches.
func (r *RouteInfoManager) topicsWhere(pick func(flag int32) bool) *body.TopicList {
	r.mu.RLock()
	defer r.mu.RUnlock()
	list := []string{}
	for t, qm := range r.topicQueueTable {
		names := make([]string, 0, len(qm))
		for n := range qm {
			names = append(names, n)
		}
		if len(names) == 0 {
			continue
		}
		body.SortJavaHashOrder(names, body.JavaHashMapCapacity(len(names), defaultMapCap))
		if pick(qm[names[0]].TopicSysFlag) {
			list = append(list, t)
		}
	}
	r.topicTableOrder(list)
	return &body.TopicList{TopicList: list}
}

// GetUnitTopics lists unit topics.
func (r *RouteInfoManager) GetUnitTopics() *body.TopicList {
	return r.topicsWhere(func(f int32) bool { return f&topicFlagUnit != 0 })
}

// GetHasUnitSubTopicList lists topics with unit subscriptions.
func (r *RouteInfoManager) GetHasUnitSubTopicList() *body.TopicList {
	return r.topicsWhere(func(f int32) bool { return f&topicFlagUnitSub != 0 })
}

// GetHasUnitSubUnUnitTopicList lists non-unit topics with unit subscriptions.
func (r *RouteInfoManager) GetHasUnitSubUnUnitTopicList() *body.TopicList {
	return r.topicsWhere(func(f int32) bool { return f&topicFlagUnit == 0 && f&topicFlagUnitSub != 0 })
}

// WipeWritePermOfBroker clears the write bit of every topic on brokerName and
// returns how many topics it touched.
func (r *RouteInfoManager) WipeWritePermOfBroker(brokerName string) int {
	return r.operateWritePerm(brokerName, func(p int32) int32 { return p &^ PermWrite })
}

// AddWritePermOfBroker sets read+write on every topic of brokerName.
func (r *RouteInfoManager) AddWritePermOfBroker(brokerName string) int {
	return r.operateWritePerm(brokerName, func(int32) int32 { return PermRead | PermWrite })
}

func (r *RouteInfoManager) operateWritePerm(brokerName string, f func(int32) int32) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bumpLocked()
	n := 0
	for _, qm := range r.topicQueueTable {
		if qd := qm[brokerName]; qd != nil {
			qd.Perm = f(qd.Perm)
			n++
		}
	}
	return n
}

// DeleteTopic removes a topic everywhere, or with a cluster name only from
// that cluster's brokers.
func (r *RouteInfoManager) DeleteTopic(topic, clusterName string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bumpLocked()
	if clusterName == "" {
		delete(r.topicQueueTable, topic)
		return
	}
	qm := r.topicQueueTable[topic]
	if qm == nil {
		return
	}
	for n := range r.clusterAddrTable[clusterName] {
		delete(qm, n)
	}
	if len(qm) == 0 {
		delete(r.topicQueueTable, topic)
	}
}

// RegisterTopic adds queue data for known brokers (5.x registerTopic); it
// changes nothing if any queue data names an unknown broker.
func (r *RouteInfoManager) RegisterTopic(topic string, qds []body.QueueData) {
	if len(qds) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bumpLocked()
	for i := range qds {
		if r.brokerAddrTable[qds[i].BrokerName] == nil {
			r.lg.Warn("register topic names an unknown broker", zap.String("topic", topic), zap.String("brokerName", qds[i].BrokerName))
			return
		}
	}
	qm := r.topicQueueTable[topic]
	if qm == nil {
		qm = make(map[string]*body.QueueData, len(qds))
		r.topicQueueTable[topic] = qm
	}
	for i := range qds {
		qd := qds[i]
		qm[qd.BrokerName] = &qd
	}
}

// GetBrokerMemberGroup returns the addresses of one broker name (5.x).
func (r *RouteInfoManager) GetBrokerMemberGroup(clusterName, brokerName string) body.BrokerData {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g := body.BrokerData{Cluster: clusterName, BrokerName: brokerName, BrokerAddrs: map[int64]string{}}
	if bd := r.brokerAddrTable[brokerName]; bd != nil {
		for id, a := range bd.BrokerAddrs {
			g.BrokerAddrs[id] = a
		}
	}
	return g
}
