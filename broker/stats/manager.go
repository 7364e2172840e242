package stats

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Stats names, as Java's Stats constants (VIEW_BROKER_STATS_DATA statsName).
const (
	QueuePutNums          = "QUEUE_PUT_NUMS"
	QueuePutSize          = "QUEUE_PUT_SIZE"
	QueueGetNums          = "QUEUE_GET_NUMS"
	QueueGetSize          = "QUEUE_GET_SIZE"
	TopicPutNums          = "TOPIC_PUT_NUMS"
	TopicPutSize          = "TOPIC_PUT_SIZE"
	GroupGetNums          = "GROUP_GET_NUMS"
	GroupGetSize          = "GROUP_GET_SIZE"
	GroupGetLatency       = "GROUP_GET_LATENCY"
	SndbckPutNums         = "SNDBCK_PUT_NUMS"
	BrokerPutNums         = "BROKER_PUT_NUMS"
	BrokerGetNums         = "BROKER_GET_NUMS"
	GroupGetFromDiskNums  = "GROUP_GET_FROM_DISK_NUMS"
	GroupGetFromDiskSize  = "GROUP_GET_FROM_DISK_SIZE"
	BrokerGetFromDiskNums = "BROKER_GET_FROM_DISK_NUMS"
	BrokerGetFromDiskSize = "BROKER_GET_FROM_DISK_SIZE"
	CommercialSendTimes   = "COMMERCIAL_SEND_TIMES"
	CommercialSndbckTimes = "COMMERCIAL_SNDBCK_TIMES"
	CommercialRcvTimes    = "COMMERCIAL_RCV_TIMES"
	CommercialRcvEpolls   = "COMMERCIAL_RCV_EPOLLS"
	CommercialSendSize    = "COMMERCIAL_SEND_SIZE"
	CommercialRcvSize     = "COMMERCIAL_RCV_SIZE"
	CommercialPermFailure = "COMMERCIAL_PERM_FAILURES"
	GroupGetFallSize      = "GROUP_GET_FALL_SIZE"
	GroupGetFallTime      = "GROUP_GET_FALL_TIME"
)

// tableNames are the sets every broker keeps (BrokerStatsManager's
// statsTable without the queue sets). The commercial sets are only fed by
// commercial send/consume hooks, which 4.9.8 ships none of: they exist, so
// lookups behave as Java's, and stay empty.
var tableNames = []string{TopicPutNums, TopicPutSize, GroupGetNums, GroupGetSize, GroupGetLatency,
	SndbckPutNums, BrokerPutNums, BrokerGetNums, GroupGetFromDiskNums, GroupGetFromDiskSize,
	BrokerGetFromDiskNums, BrokerGetFromDiskSize, CommercialSendTimes, CommercialRcvTimes,
	CommercialSendSize, CommercialRcvSize, CommercialRcvEpolls, CommercialSndbckTimes, CommercialPermFailure}

// queueNames are the per-queue sets kept only with enableQueueStat.
var queueNames = []string{QueuePutNums, QueuePutSize, QueueGetNums, QueueGetSize}

// Manager is BrokerStatsManager. Its tables are fixed at New, so lookups
// take no lock.
type Manager struct {
	cluster    string
	queueStats bool
	table      map[string]*Set

	// Hot-path sets, resolved once.
	topicPutNums, topicPutSize, brokerPut, brokerGet *Set
	groupGetNums, groupGetSize, groupGetLatency      *Set
	sndbck                                           *Set
	brokerPutItem, brokerGetItem                     *Item

	fallSize, fallTime *MomentSet

	// Resolved items per (topic, queue) and (topic, queue, group), so the
	// hot path builds no key string once a key has been seen. An entry
	// whose item was deleted is resolved again; deletions also clear the
	// caches to free them.
	putCache sync.Map // putKey -> *putItems
	getCache sync.Map // getKey -> *getItems

	// Morning holds the daily counters of BrokerStats.
	Morning Morning
}

// New returns the manager of a broker in clusterName; queueStats keeps the
// per-queue sets (Java's enableQueueStat, which BrokerController passes
// from enableDetailStat).
func New(clusterName string, queueStats bool) *Manager {
	m := &Manager{cluster: clusterName, queueStats: queueStats, table: map[string]*Set{},
		fallSize: &MomentSet{name: GroupGetFallSize}, fallTime: &MomentSet{name: GroupGetFallTime}}
	names := tableNames
	if queueStats {
		names = append(append([]string(nil), names...), queueNames...)
	}
	for _, n := range names {
		m.table[n] = newSet(n)
	}
	m.topicPutNums, m.topicPutSize = m.table[TopicPutNums], m.table[TopicPutSize]
	m.groupGetNums, m.groupGetSize = m.table[GroupGetNums], m.table[GroupGetSize]
	m.groupGetLatency, m.sndbck = m.table[GroupGetLatency], m.table[SndbckPutNums]
	m.brokerPut, m.brokerGet = m.table[BrokerPutNums], m.table[BrokerGetNums]
	m.brokerPutItem, m.brokerGetItem = m.brokerPut.Item(clusterName), m.brokerGet.Item(clusterName)
	return m
}

// Set returns the named set or nil.
func (m *Manager) Set(name string) *Set { return m.table[name] }

// Lookup is getStatsItem: the item of statsName/statsKey or nil.
func (m *Manager) Lookup(statsName, statsKey string) *Item {
	if s := m.table[statsName]; s != nil {
		return s.Lookup(statsKey)
	}
	return nil
}

// FallSize and FallTime are the moment sets of how far behind a group's
// reads are (bytes, ms), keyed "queueId@topic@group".
func (m *Manager) FallSize() *MomentSet { return m.fallSize }

// FallTime: see FallSize.
func (m *Manager) FallTime() *MomentSet { return m.fallTime }

// TopicGroupKey is buildStatsKey(topic, group): "topic@group".
func TopicGroupKey(topic, group string) string { return topic + "@" + group }

// QueueGroupKey is buildStatsKey(queueId, topic, group).
func QueueGroupKey(queueID int32, topic, group string) string {
	return strconv.Itoa(int(queueID)) + "@" + topic + "@" + group
}

// queueKey is buildStatsKey(topic, queueId).
func queueKey(topic string, queueID int32) string { return topic + "@" + strconv.Itoa(int(queueID)) }

type putKey struct {
	topic   string
	queueID int32
}

type putItems struct{ nums, size, qnums, qsize *Item }

type getKey struct {
	topic, group string
	queueID      int32
}

type getItems struct {
	nums, size, latency, qnums, qsize *Item
	fallSize, fallTime                *atomic.Int64
}

func (m *Manager) putItems(topic string, queueID int32) *putItems {
	k := putKey{topic, queueID}
	if v, ok := m.putCache.Load(k); ok && !v.(*putItems).nums.dead.Load() {
		return v.(*putItems)
	}
	p := &putItems{nums: m.topicPutNums.Item(topic), size: m.topicPutSize.Item(topic)}
	if m.queueStats {
		qk := queueKey(topic, queueID)
		p.qnums, p.qsize = m.table[QueuePutNums].Item(qk), m.table[QueuePutSize].Item(qk)
	}
	m.putCache.Store(k, p)
	return p
}

func (m *Manager) getItems(group, topic string, queueID int32) *getItems {
	k := getKey{topic, group, queueID}
	if v, ok := m.getCache.Load(k); ok && !v.(*getItems).nums.dead.Load() {
		return v.(*getItems)
	}
	tg, qg := TopicGroupKey(topic, group), QueueGroupKey(queueID, topic, group)
	g := &getItems{nums: m.groupGetNums.Item(tg), size: m.groupGetSize.Item(tg),
		fallSize: m.fallSize.item(qg), fallTime: m.fallTime.item(qg)}
	if m.queueStats {
		qk := queueKey(topic, queueID) + "@" + group // topic@queueId@group
		g.qnums, g.qsize = m.table[QueueGetNums].Item(qk), m.table[QueueGetSize].Item(qk)
		g.latency = m.groupGetLatency.Item(qg)
	} else {
		g.latency = m.groupGetLatency.Item(tg)
	}
	m.getCache.Store(k, g)
	return g
}

// dropCaches forgets the resolved items after a deletion, so later counts
// create fresh, visible items.
func (m *Manager) dropCaches() {
	m.putCache.Clear()
	m.getCache.Clear()
}

// IncTopicPut counts num messages of size bytes stored in topic by one call
// (incTopicPutNums + incTopicPutSize).
func (m *Manager) IncTopicPut(topic string, queueID int32, num, size int64) {
	p := m.putItems(topic, queueID)
	p.nums.Add(num, 1)
	p.size.Add(size, 1)
	if p.qnums != nil {
		p.qnums.Add(num, 1)
		p.qsize.Add(size, 1)
	}
}

// IncBrokerPut counts num stored messages (value only, as Java).
func (m *Manager) IncBrokerPut(num int64) { m.brokerPutItem.Add(num, 0) }

// IncGroupGet counts num messages of size bytes handed to group from topic
// by one pull (incGroupGetNums, incGroupGetSize, incBrokerGetNums).
func (m *Manager) IncGroupGet(group, topic string, queueID int32, num, size int64) {
	g := m.getItems(group, topic, queueID)
	g.nums.Add(num, 1)
	g.size.Add(size, 1)
	m.brokerGetItem.Add(num, 0)
	if g.qnums != nil {
		g.qnums.Add(num, 1)
		g.qsize.Add(size, 1)
	}
}

// IncGroupGetLatency records one pull's latency in ms (incGroupGetLatency;
// keyed "queueId@topic@group" with per-queue stats, else "topic@group").
func (m *Manager) IncGroupGetLatency(group, topic string, queueID int32, ms int64) {
	m.getItems(group, topic, queueID).latency.Add(ms, 1)
}

// ScheduleConsumerGroup is MixAll.SCHEDULE_CONSUMER_GROUP, the group the
// delayed-delivery reads are counted for.
const ScheduleConsumerGroup = "SCHEDULE_CONSUMER"

// scheduleTopic is TopicValidator.RMQ_SYS_SCHEDULE_TOPIC.
const scheduleTopic = "SCHEDULE_TOPIC_XXXX"

// IncScheduleDelivered counts a delayed message delivered to its real
// topic (ScheduleMessageService's PutResultProcess.onSuccess with
// enableScheduleMessageStats): a read of the schedule topic by
// SCHEDULE_CONSUMER and a put to topic. The per-queue read items Java also
// keeps (keyed by delay level) are not kept.
func (m *Manager) IncScheduleDelivered(topic string, num, size int64) {
	k := TopicGroupKey(scheduleTopic, ScheduleConsumerGroup)
	m.groupGetNums.Add(k, num, 1)
	m.groupGetSize.Add(k, size, 1)
	m.topicPutNums.Add(topic, num, 1)
	m.topicPutSize.Add(topic, size, 1)
	m.brokerPutItem.Add(num, 0)
}

// IncSendBack counts one message sent back by group (incSendBackNums).
func (m *Manager) IncSendBack(group, topic string) { m.sndbck.Add(TopicGroupKey(topic, group), 1, 1) }

// TpsGroupGetNums is the messages per second group read from topic over
// the last minute (the consumeTps of GET_CONSUME_STATS).
func (m *Manager) TpsGroupGetNums(group, topic string) float64 {
	return m.groupGetNums.MinuteOf(TopicGroupKey(topic, group)).Tps
}

// RecordFallBehind records how far (bytes, ms) group's last read of the
// queue was behind the newest message.
func (m *Manager) RecordFallBehind(group, topic string, queueID int32, size, ms int64) {
	g := m.getItems(group, topic, queueID)
	g.fallSize.Store(size)
	g.fallTime.Store(ms)
}

// OnTopicDeleted drops topic's items (onTopicDeleted).
func (m *Manager) OnTopicDeleted(topic string) {
	defer m.dropCaches()
	m.topicPutNums.Delete(func(k string) bool { return k == topic })
	m.topicPutSize.Delete(func(k string) bool { return k == topic })
	for _, n := range []string{QueuePutNums, QueuePutSize, GroupGetNums, GroupGetSize, QueueGetNums, QueueGetSize, SndbckPutNums} {
		if s := m.table[n]; s != nil {
			s.Delete(keyHasPrefix(topic, "@"))
		}
	}
	m.groupGetLatency.Delete(keyHasInfix(topic, "@"))
	m.fallSize.Delete(keyHasInfix(topic, "@"))
	m.fallTime.Delete(keyHasInfix(topic, "@"))
}

// OnGroupDeleted drops group's items (onGroupDeleted).
func (m *Manager) OnGroupDeleted(group string) {
	defer m.dropCaches()
	for _, n := range []string{GroupGetNums, GroupGetSize, QueueGetNums, QueueGetSize, SndbckPutNums, GroupGetLatency} {
		if s := m.table[n]; s != nil {
			s.Delete(keyHasSuffix(group, "@"))
		}
	}
	m.fallSize.Delete(keyHasSuffix(group, "@"))
	m.fallTime.Delete(keyHasSuffix(group, "@"))
}

// SampleSeconds takes the 10 s sample of every item (minute series).
func (m *Manager) SampleSeconds(now time.Time) {
	for _, s := range m.table {
		s.sampleSeconds(now)
	}
}

// SampleMinutes takes the 10 min sample of every item (hour series).
func (m *Manager) SampleMinutes(now time.Time) {
	for _, s := range m.table {
		s.sampleMinutes(now)
	}
}

// SampleHour takes the hourly sample of every item (day series).
func (m *Manager) SampleHour(now time.Time) {
	for _, s := range m.table {
		s.sampleHour(now)
	}
}

// Morning is BrokerStats: the store's put and get totals as they stood at
// the last two midnights. Both stay 0 until the first midnight after start.
type Morning struct {
	next time.Time // the midnight of the next record; zero before the first Tick (mu)

	mu                     sync.Mutex
	putYesterday, putToday int64
	getYesterday, getToday int64
}

// Record is BrokerStats.record, run at midnight: today's morning figures
// become yesterday's and the current totals become today's.
func (d *Morning) Record(putTotal, getTotal int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.putYesterday, d.getYesterday = d.putToday, d.getToday
	d.putToday, d.getToday = putTotal, getTotal
}

// Values returns the put and get totals at yesterday's and today's morning.
func (d *Morning) Values() (putYesterday, putToday, getYesterday, getToday int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.putYesterday, d.putToday, d.getYesterday, d.getToday
}

// Tick runs Record with totals() when now has reached the midnight after
// the previous tick's day; the first tick only arms it. Call it more often
// than daily (the broker does every 10 s).
func (d *Morning) Tick(now time.Time, totals func() (put, get int64)) {
	d.mu.Lock()
	due := !d.next.IsZero() && !now.Before(d.next)
	if d.next.IsZero() || due {
		d.next = NextMorning(now)
	}
	d.mu.Unlock()
	if due {
		d.Record(totals())
	}
}

// NextMorning is the next local midnight after now (computeNextMorningTimeMillis).
func NextMorning(now time.Time) time.Time {
	y, mo, d := now.Date()
	return time.Date(y, mo, d+1, 0, 0, 0, 0, now.Location())
}
