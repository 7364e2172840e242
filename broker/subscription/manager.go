package subscription

import (
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

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

	persistMu sync.Mutex // serializes Persist
	mu        sync.Mutex // guards table, order, version
	table     map[string]body.SubscriptionGroupConfig
	order     []string // insertion order, for Java bucket tie-breaks
	peak      int      // most entries ever held: Java tables never shrink
	version   body.DataVersion
}

// New returns a manager holding Java's default groups, persisting to path
// (<storePathRootDir>/config/subscriptionGroup.json). A nil logger is allowed.
func New(path string, autoCreate bool, lg *zap.Logger) *Manager {
	if lg == nil {
		lg = zap.NewNop()
	}
	m := &Manager{
		path:  path,
		lg:    lg,
		now:   func() int64 { return time.Now().UnixMilli() },
		table: map[string]body.SubscriptionGroupConfig{},
	}
	m.autoCreate.Store(autoCreate)
	m.version = body.DataVersion{Timestamp: m.now()}
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
	old, existed = m.table[c.GroupName]
	if !existed {
		m.peak = max(m.peak, len(m.table)+1)
		m.order = append(m.order, c.GroupName)
	}
	m.table[c.GroupName] = c
	return old, existed
}

func (m *Manager) nextVersion() {
	m.version.Timestamp = m.now()
	m.version.Counter++
}

// Get returns the group's config without auto-creating it.
func (m *Manager) Get(group string) (body.SubscriptionGroupConfig, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.table[group]
	return c, ok
}

// FindSubscriptionGroupConfig is findSubscriptionGroupConfig: the group's
// config, created with defaults (and persisted) when unknown and either
// autoCreateSubscriptionGroup is on or the group is a system group.
// ok is false when the group neither exists nor may be created.
func (m *Manager) FindSubscriptionGroupConfig(group string) (body.SubscriptionGroupConfig, bool) {
	m.mu.Lock()
	c, ok := m.table[group]
	if ok || !(m.autoCreate.Load() || IsSysConsumerGroup(group)) {
		m.mu.Unlock()
		return c, ok
	}
	c = body.NewSubscriptionGroupConfig(group)
	m.put(c)
	m.nextVersion()
	m.mu.Unlock()
	m.lg.Info("auto create subscription group", zap.String("group", group))
	m.persistLogged()
	return c, true
}

// UpdateSubscriptionGroupConfig adds or replaces a group
// (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP), bumps the version and persists.
func (m *Manager) UpdateSubscriptionGroupConfig(c body.SubscriptionGroupConfig) {
	m.mu.Lock()
	old, existed := m.put(c)
	m.nextVersion()
	m.mu.Unlock()
	if existed {
		m.lg.Info("update subscription group config", zap.String("group", c.GroupName),
			zap.Any("old", old), zap.Any("new", c))
	} else {
		m.lg.Info("create new subscription group", zap.String("group", c.GroupName))
	}
	m.persistLogged()
}

// DisableConsume turns consumeEnable off for an existing group and bumps
// the version without persisting, as Java does.
func (m *Manager) DisableConsume(group string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.table[group]; ok {
		c.ConsumeEnable = false
		m.table[group] = c
		m.nextVersion()
	}
}

// DeleteSubscriptionGroupConfig removes a group (DELETE_SUBSCRIPTIONGROUP)
// and reports whether it existed.
func (m *Manager) DeleteSubscriptionGroupConfig(group string) bool {
	m.mu.Lock()
	_, ok := m.table[group]
	if ok {
		delete(m.table, group)
		m.order = removeString(m.order, group)
		m.nextVersion()
	}
	m.mu.Unlock()
	if ok {
		m.lg.Info("delete subscription group", zap.String("group", group))
		m.persistLogged()
	} else {
		m.lg.Warn("delete subscription group failed, not exist", zap.String("group", group))
	}
	return ok
}

func removeString(s []string, v string) []string {
	for i, x := range s {
		if x == v {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
}

// DataVersion returns the current data version.
func (m *Manager) DataVersion() body.DataVersion {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.version
}

// Snapshot returns a copy of the table.
func (m *Manager) Snapshot() map[string]body.SubscriptionGroupConfig {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.table)
}

// Wrapper returns the GET_ALL_SUBSCRIPTIONGROUP_CONFIG body, in Java order.
func (m *Manager) Wrapper() *body.SubscriptionGroupWrapper {
	m.mu.Lock()
	defer m.mu.Unlock()
	order := append([]string(nil), m.order...)
	order = body.JavaHashOrder(order, body.JavaStringHash, body.ConcurrentHashMapTableSize(javaTableCapacity, m.peak))
	return &body.SubscriptionGroupWrapper{
		SubscriptionGroupTable: maps.Clone(m.table),
		DataVersion:            m.version,
		Order:                  order,
	}
}

// Encode is encode(): the compact body.
func (m *Manager) Encode() []byte {
	w := m.Wrapper()
	return w.Encode()
}

// javaTableCapacity is the initial capacity of the Java ConcurrentHashMap
// behind the table; its size (2048 slots until 1536 entries, then
// doubling, never shrinking) decides the order fastjson writes.
const javaTableCapacity = 1024
