package subscription

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/configtable"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// Group names of MixAll that the manager knows about.
const (
	ToolsConsumerGroup       = "TOOLS_CONSUMER"
	FiltersrvConsumerGroup   = "FILTERSRV_CONSUMER"
	SelfTestConsumerGroup    = "SELF_TEST_C_GROUP"
	OnsHTTPProxyGroup        = "CID_ONS-HTTP-PROXY"
	CIDOnsAPIPullGroup       = "CID_ONSAPI_PULL"
	CIDOnsAPIPermissionGroup = "CID_ONSAPI_PERMISSION"
	CIDOnsAPIOwnerGroup      = "CID_ONSAPI_OWNER"
	CIDRmqSysPrefix          = "CID_RMQ_SYS_"
	CIDSysRmqTrans           = "CID_RMQ_SYS_TRANS"
)

// IsSysConsumerGroup is MixAll.isSysConsumerGroup.
func IsSysConsumerGroup(group string) bool { return strings.HasPrefix(group, CIDRmqSysPrefix) }

// Manager mirrors SubscriptionGroupManager.
type Manager struct {
	path       string
	lg         *zap.Logger
	now        func() int64 // ms clock
	autoCreate atomic.Bool  // autoCreateSubscriptionGroup, live

	persister *configtable.Persister
	journal   *configtable.Journal // subscriptionGroup.json.journal: each change before it is answered
	persistMu sync.Mutex           // serializes Persist
	mu        sync.Mutex           // guards table, order, version
	tab       configtable.Table[body.SubscriptionGroupConfig]
}

// New returns a manager holding Java's default groups, persisting to path
// (<storePathRootDir>/config/subscriptionGroup.json). A nil logger is allowed.
func New(path string, autoCreate bool, lg *zap.Logger) *Manager {
	if lg == nil {
		lg = zap.NewNop()
	}
	m := &Manager{
		path: path,
		lg:   lg,
		now:  func() int64 { return time.Now().UnixMilli() },
	}
	flg := lg.With(zap.String("file", "subscriptionGroup.json"), zap.String("path", path))
	m.persister = configtable.NewPersister(m.Persist, configtable.PersistInterval, flg)
	m.journal = configtable.NewJournal(path+".journal", flg)
	m.autoCreate.Store(autoCreate)
	m.tab.Version = body.DataVersion{Timestamp: m.now()}
	for _, g := range []string{ToolsConsumerGroup, FiltersrvConsumerGroup, SelfTestConsumerGroup} {
		m.put(body.NewSubscriptionGroupConfig(g))
	}
	for _, g := range []string{OnsHTTPProxyGroup, CIDOnsAPIPullGroup, CIDOnsAPIPermissionGroup, CIDOnsAPIOwnerGroup} {
		c := body.NewSubscriptionGroupConfig(g)
		c.ConsumeBroadcastEnable = true
		m.put(c)
	}
	return m
}

// SetAutoCreateSubscriptionGroup follows a live autoCreateSubscriptionGroup change.
func (m *Manager) SetAutoCreateSubscriptionGroup(v bool) { m.autoCreate.Store(v) }

// put stores c under its group name; callers hold mu (or own m exclusively).
func (m *Manager) put(c body.SubscriptionGroupConfig) (old body.SubscriptionGroupConfig, existed bool) {
	return m.tab.Put(c.GroupName, c)
}

func (m *Manager) nextVersion() {
	m.tab.NextVersion(m.now())
}

// Get returns the group's config without auto-creating it.
func (m *Manager) Get(group string) (body.SubscriptionGroupConfig, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.tab.Entries[group]
	return c, ok
}

// FindSubscriptionGroupConfig is findSubscriptionGroupConfig: the group's
// config, created with defaults (and persisted) when unknown and either
// autoCreateSubscriptionGroup is on or the group is a system group.
// ok is false when the group neither exists nor may be created.
func (m *Manager) FindSubscriptionGroupConfig(group string) (body.SubscriptionGroupConfig, bool) {
	m.mu.Lock()
	c, ok := m.tab.Entries[group]
	if ok || !(m.autoCreate.Load() || IsSysConsumerGroup(group)) {
		m.mu.Unlock()
		return c, ok
	}
	c = body.NewSubscriptionGroupConfig(group)
	m.put(c)
	m.nextVersion()
	rec := configtable.PutRecord(&m.tab, group, c)
	m.mu.Unlock()
	m.lg.Info("auto create subscription group", zap.String("group", group))
	m.commit(rec)
	return c, true
}

// UpdateSubscriptionGroupConfig adds or replaces a group
// (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP), bumps the version and journals
// the change: when it returns, the change survives a crash of the process,
// as after Java's synchronous rewrite.
func (m *Manager) UpdateSubscriptionGroupConfig(c body.SubscriptionGroupConfig) {
	m.mu.Lock()
	old, existed := m.put(c)
	m.nextVersion()
	rec := configtable.PutRecord(&m.tab, c.GroupName, c)
	m.mu.Unlock()
	if existed {
		m.lg.Info("update subscription group config", zap.String("group", c.GroupName),
			zap.Any("old", old), zap.Any("new", c))
	} else {
		m.lg.Info("create new subscription group", zap.String("group", c.GroupName))
	}
	m.commit(rec)
}

// DisableConsume turns consumeEnable off for an existing group and bumps
// the version without persisting, as Java does.
func (m *Manager) DisableConsume(group string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.tab.Entries[group]; ok {
		c.ConsumeEnable = false
		m.tab.Entries[group] = c
		m.nextVersion()
	}
}

// DeleteSubscriptionGroupConfig removes a group (DELETE_SUBSCRIPTIONGROUP)
// and reports whether it existed.
func (m *Manager) DeleteSubscriptionGroupConfig(group string) bool {
	m.mu.Lock()
	ok := m.tab.Delete(group)
	var rec configtable.Record
	if ok {
		m.nextVersion()
		rec = configtable.DeleteRecord(&m.tab, group)
	}
	m.mu.Unlock()
	if ok {
		m.lg.Info("delete subscription group", zap.String("group", group))
		m.commit(rec)
	} else {
		m.lg.Warn("delete subscription group failed, not exist", zap.String("group", group))
	}
	return ok
}

// DataVersion returns the current data version.
func (m *Manager) DataVersion() body.DataVersion {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tab.Version
}

// Snapshot returns a copy of the table.
func (m *Manager) Snapshot() map[string]body.SubscriptionGroupConfig {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tab.Clone()
}

// Wrapper returns the GET_ALL_SUBSCRIPTIONGROUP_CONFIG body, in Java order.
func (m *Manager) Wrapper() *body.SubscriptionGroupWrapper {
	m.mu.Lock()
	defer m.mu.Unlock()
	return &body.SubscriptionGroupWrapper{
		SubscriptionGroupTable: m.tab.Clone(),
		DataVersion:            m.tab.Version,
		Order:                  m.tab.JavaOrder(),
	}
}

// Encode is encode(): the compact body.
func (m *Manager) Encode() []byte {
	w := m.Wrapper()
	return w.Encode()
}
