package subscription

import (
	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/configfile"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// Path returns the file the table persists to.
func (m *Manager) Path() string { return m.path }

// decode merges a wrapper over the table (putAll) and adopts its version.
func (m *Manager) decode(data []byte) error {
	var w body.SubscriptionGroupWrapper
	if err := w.Decode(data); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, g := range fileOrder(w.SubscriptionGroupTable) {
		c := w.SubscriptionGroupTable[g]
		if c.GroupName == "" {
			c.GroupName = g
		}
		m.tab.Put(g, c)
	}
	m.tab.Version = w.DataVersion
	return nil
}

// fileOrder lists the table's keys in Java order of the wrapper (the order
// in which Java's putAll inserts them).
func fileOrder(t map[string]body.SubscriptionGroupConfig) []string {
	w := body.SubscriptionGroupWrapper{SubscriptionGroupTable: t}
	return w.Groups()
}

// Load merges subscriptionGroup.json (or its .bak) over the default groups.
func (m *Manager) Load() error {
	return configfile.LoadLogged(m.lg, "subscription group", m.path, m.decode)
}

// Persist writes subscriptionGroup.json in Java's pretty layout.
func (m *Manager) Persist() error {
	m.persistMu.Lock()
	defer m.persistMu.Unlock()
	return configfile.PersistPretty(m.path, m.Encode())
}

func (m *Manager) persistLogged() {
	if err := m.Persist(); err != nil {
		m.lg.Error("persist subscription group failed", zap.String("path", m.path), zap.Error(err))
	}
}

// SyncFromMaster applies the master's GET_ALL_SUBSCRIPTIONGROUP_CONFIG
// answer as SlaveSynchronize.syncSubscriptionGroupConfig does: when the
// data versions differ the local table is replaced, the version adopted and
// the file persisted. It reports whether anything changed.
func (m *Manager) SyncFromMaster(w *body.SubscriptionGroupWrapper) bool {
	m.mu.Lock()
	changed := m.tab.Sync(w.DataVersion, w.Groups(), w.SubscriptionGroupTable)
	m.mu.Unlock()
	if !changed {
		return false
	}
	m.persistLogged()
	return true
}
