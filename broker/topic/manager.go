package topic

import (
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/configtable"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// Options are the BrokerConfig settings the manager needs at construction.
type Options struct {
	BrokerClusterName     string // brokerClusterName
	BrokerName            string // brokerName
	AutoCreateTopicEnable bool   // autoCreateTopicEnable (also live via SetAutoCreateTopicEnable)
	DefaultTopicQueueNums int32  // defaultTopicQueueNums
	ClusterTopicEnable    bool   // clusterTopicEnable
	BrokerTopicEnable     bool   // brokerTopicEnable
	TraceTopicEnable      bool   // traceTopicEnable
	MsgTraceTopicName     string // msgTraceTopicName
}

// Manager mirrors TopicConfigManager.
type Manager struct {
	path       string
	lg         *zap.Logger
	now        func() int64 // ms clock
	autoCreate atomic.Bool
	onChange   atomic.Pointer[func()]

	persister    *configtable.Persister
	journal      *configtable.Journal // topics.json.journal: each change before it is answered
	persistMu    sync.Mutex           // serializes Persist
	mu           sync.Mutex           // guards everything below
	tab          configtable.Table[body.TopicConfig]
	systemTopics map[string]bool // topics added by addSystemTopic at construction
}

// New builds the manager with the start-up system topics, persisting to
// path (<storePathRootDir>/config/topics.json). A nil logger is allowed.
func New(opts Options, path string, lg *zap.Logger) *Manager {
	if lg == nil {
		lg = zap.NewNop()
	}
	m := &Manager{
		path:         path,
		lg:           lg,
		now:          func() int64 { return time.Now().UnixMilli() },
		systemTopics: map[string]bool{},
	}
	flg := lg.With(zap.String("file", "topics.json"), zap.String("path", path))
	m.persister = configtable.NewPersister(m.Persist, configtable.PersistInterval, flg)
	m.journal = configtable.NewJournal(path+".journal", flg)
	m.autoCreate.Store(opts.AutoCreateTopicEnable)
	m.tab.Version = body.DataVersion{Timestamp: m.now()}
	m.addSystemTopics(opts)
	return m
}

// addSystemTopics replays the TopicConfigManager constructor.
func (m *Manager) addSystemTopics(o Options) {
	sys := func(name string, queues, perm int32) {
		tc := body.NewTopicConfig(name)
		tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = queues, queues, perm
		m.systemTopics[name] = true
		m.put(tc)
	}
	rw := int32(PermRead | PermWrite)
	sys(SelfTestTopic, 1, rw)
	if o.AutoCreateTopicEnable {
		sys(AutoCreateTopicKeyTopic, o.DefaultTopicQueueNums, rw|PermInherit)
	}
	sys(BenchmarkTopic, benchmarkTopicQueueNum, rw)
	sys(o.BrokerClusterName, defaultTopicConfigQueueNums, withRW(o.ClusterTopicEnable))
	sys(o.BrokerName, 1, withRW(o.BrokerTopicEnable))
	sys(OffsetMovedEventTopic, 1, rw)
	sys(ScheduleTopic, scheduleTopicQueueNum, rw)
	if o.TraceTopicEnable {
		sys(o.MsgTraceTopicName, 1, rw)
	}
	sys(o.BrokerClusterName+"_"+ReplyTopicPostfix, 1, rw)
}

func withRW(enable bool) int32 {
	if enable {
		return PermInherit | PermRead | PermWrite
	}
	return PermInherit
}

// put stores tc; callers hold mu (or own m exclusively).
func (m *Manager) put(tc body.TopicConfig) (old body.TopicConfig, existed bool) {
	return m.tab.Put(tc.TopicName, tc)
}

func (m *Manager) nextVersion() {
	m.tab.NextVersion(m.now())
}

// SetAutoCreateTopicEnable follows a live autoCreateTopicEnable change.
func (m *Manager) SetAutoCreateTopicEnable(v bool) { m.autoCreate.Store(v) }

// SetChangeListener installs fn, called (outside all locks, on the caller's
// goroutine) after every change after which Java calls registerBrokerAll.
// The broker should re-register with the name servers asynchronously.
func (m *Manager) SetChangeListener(fn func()) { m.onChange.Store(&fn) }

func (m *Manager) notifyChange() {
	if fn := m.onChange.Load(); fn != nil && *fn != nil {
		(*fn)()
	}
}

// LookupTopicConfig returns a copy of the topic's config by value: the
// send path's lookup, which SelectTopicConfig's heap copy made one
// allocation per message (issue #11).
func (m *Manager) LookupTopicConfig(topic string) (body.TopicConfig, bool) {
	m.mu.Lock()
	tc, ok := m.tab.Entries[topic]
	m.mu.Unlock()
	return tc, ok
}

// SelectTopicConfig returns a copy of the topic's config, or nil.
func (m *Manager) SelectTopicConfig(topic string) *body.TopicConfig {
	if tc, ok := m.LookupTopicConfig(topic); ok {
		return &tc
	}
	return nil
}

// CreateTopicInSendMessageMethod is createTopicInSendMessageMethod: the
// config of topic, auto-created from defaultTopic (normally TBW102) when
// that topic is inheritable: queues = min(clientDefaultTopicQueueNums,
// default's writeQueueNums), perm = default's perm without INHERIT. With
// autoCreateTopicEnable off, TBW102 first loses INHERIT (as in Java, without
// a version bump). It returns nil when the topic neither exists nor may be
// created, and created=true when it was just created (the broker must
// re-register; the change listener has been called).
func (m *Manager) CreateTopicInSendMessageMethod(topic, defaultTopic, remoteAddr string,
	clientDefaultTopicQueueNums, topicSysFlag int32) (tc *body.TopicConfig, created bool) {
	m.mu.Lock()
	if cur, ok := m.tab.Entries[topic]; ok {
		m.mu.Unlock()
		return &cur, false
	}
	def, ok := m.tab.Entries[defaultTopic]
	if !ok {
		m.mu.Unlock()
		m.lg.Error("create new topic failed, default topic not exist",
			zap.String("defaultTopic", defaultTopic), zap.String("remoteAddr", remoteAddr))
		return nil, false
	}
	if defaultTopic == AutoCreateTopicKeyTopic && !m.autoCreate.Load() {
		def.Perm = PermRead | PermWrite
		m.tab.Entries[defaultTopic] = def
	}
	if !IsInherited(def.Perm) {
		m.mu.Unlock()
		m.lg.Error("create new topic failed, default topic has no inherit permission",
			zap.String("defaultTopic", defaultTopic), zap.Int32("perm", def.Perm), zap.String("remoteAddr", remoteAddr))
		return nil, false
	}
	nc := body.NewTopicConfig(topic)
	q := max(min(clientDefaultTopicQueueNums, def.WriteQueueNums), 0)
	nc.ReadQueueNums, nc.WriteQueueNums = q, q
	nc.Perm = def.Perm &^ PermInherit
	nc.TopicSysFlag = topicSysFlag
	nc.TopicFilterType = def.TopicFilterType
	m.put(nc)
	m.nextVersion()
	rec := m.putRecord(nc)
	m.mu.Unlock()
	m.lg.Info("create new topic by default topic", zap.String("topic", topic),
		zap.String("defaultTopic", defaultTopic), zap.String("remoteAddr", remoteAddr))
	m.commit(rec)
	m.notifyChange()
	return &nc, true
}

// CreateTopicInSendMessageBackMethod is createTopicInSendMessageBackMethod
// (retry and DLQ topics, transaction topics): the existing config, or a new
// one with the given queue number, perm and sys flag.
func (m *Manager) CreateTopicInSendMessageBackMethod(topic string, clientDefaultTopicQueueNums, perm, topicSysFlag int32) (tc *body.TopicConfig, created bool) {
	m.mu.Lock()
	if cur, ok := m.tab.Entries[topic]; ok {
		m.mu.Unlock()
		return &cur, false
	}
	nc := body.NewTopicConfig(topic)
	nc.ReadQueueNums, nc.WriteQueueNums = clientDefaultTopicQueueNums, clientDefaultTopicQueueNums
	nc.Perm, nc.TopicSysFlag = perm, topicSysFlag
	m.put(nc)
	m.nextVersion()
	rec := m.putRecord(nc)
	m.mu.Unlock()
	m.lg.Info("create new topic", zap.String("topic", topic))
	m.commit(rec)
	m.notifyChange()
	return &nc, true
}

// CreateTopicOfTranCheckMaxTime is createTopicOfTranCheckMaxTime.
func (m *Manager) CreateTopicOfTranCheckMaxTime(clientDefaultTopicQueueNums, perm int32) (*body.TopicConfig, bool) {
	return m.CreateTopicInSendMessageBackMethod(TransCheckMaxTimeTopic, clientDefaultTopicQueueNums, perm, 0)
}

// UpdateTopicUnitFlag sets or clears the unit flag of an existing topic.
func (m *Manager) UpdateTopicUnitFlag(topic string, unit bool) bool {
	return m.updateSysFlag(topic, FlagUnit, unit)
}

// UpdateTopicUnitSubFlag sets or clears the unit-sub flag of an existing topic.
func (m *Manager) UpdateTopicUnitSubFlag(topic string, hasUnitSub bool) bool {
	return m.updateSysFlag(topic, FlagUnitSub, hasUnitSub)
}

func (m *Manager) updateSysFlag(topic string, bit int32, set bool) bool {
	m.mu.Lock()
	tc, ok := m.tab.Entries[topic]
	if !ok {
		m.mu.Unlock()
		return false
	}
	if set {
		tc.TopicSysFlag |= bit
	} else {
		tc.TopicSysFlag &^= bit
	}
	m.tab.Entries[topic] = tc
	m.nextVersion()
	rec := m.putRecord(tc)
	m.mu.Unlock()
	m.commit(rec)
	m.notifyChange()
	return true
}

// UpdateTopicConfig adds or replaces a topic (UPDATE_AND_CREATE_TOPIC),
// bumps the version and journals the change: when it returns, the change
// survives a crash of the process, as after Java's synchronous rewrite.
// Like Java it does not call the change listener; the admin processor
// registers with the name servers itself.
func (m *Manager) UpdateTopicConfig(tc body.TopicConfig) {
	m.mu.Lock()
	old, existed := m.put(tc)
	m.nextVersion()
	rec := m.putRecord(tc)
	m.mu.Unlock()
	if existed {
		m.lg.Info("update topic config", zap.String("topic", tc.TopicName), zap.Any("old", old), zap.Any("new", tc))
	} else {
		m.lg.Info("create new topic", zap.String("topic", tc.TopicName), zap.Any("new", tc))
	}
	m.commit(rec)
}

// UpdateOrderTopicConfig is updateOrderTopicConfig: topics listed in the
// name server's ORDER_TOPIC_CONFIG table become order topics, all others
// stop being ones. A nil table changes nothing.
func (m *Manager) UpdateOrderTopicConfig(orderTopics map[string]string) {
	if orderTopics == nil {
		return
	}
	m.mu.Lock()
	var flipped []body.TopicConfig
	for name, tc := range m.tab.Entries {
		_, want := orderTopics[name]
		if tc.Order != want {
			tc.Order = want
			m.tab.Entries[name] = tc
			flipped = append(flipped, tc)
		}
	}
	if len(flipped) == 0 {
		m.mu.Unlock()
		return
	}
	m.nextVersion()
	recs := make([]configtable.Record, len(flipped))
	for i, tc := range flipped {
		recs[i] = m.putRecord(tc)
	}
	m.mu.Unlock()
	m.commit(recs...)
}

// IsOrderTopic is isOrderTopic.
func (m *Manager) IsOrderTopic(topic string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tab.Entries[topic].Order
}

// DeleteTopicConfig removes a topic (DELETE_TOPIC_IN_BROKER) and reports
// whether it existed.
func (m *Manager) DeleteTopicConfig(topic string) bool {
	m.mu.Lock()
	ok := m.tab.Delete(topic)
	var rec configtable.Record
	if ok {
		m.nextVersion()
		rec = configtable.DeleteRecord(&m.tab, topic)
	}
	m.mu.Unlock()
	if !ok {
		m.lg.Warn("delete topic config failed, topic not exist", zap.String("topic", topic))
		return false
	}
	m.lg.Info("delete topic config", zap.String("topic", topic))
	m.commit(rec)
	return true
}

// DataVersion returns the current data version.
func (m *Manager) DataVersion() body.DataVersion {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tab.Version
}

// Snapshot returns a copy of the table.
func (m *Manager) Snapshot() map[string]body.TopicConfig {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tab.Clone()
}
