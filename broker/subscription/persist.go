package subscription

import (
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

// persistLogged asks for the table to be written: at once before
// StartPersister and after StopPersister, else by the persister, coalesced
// with the other changes (failures are logged there).
func (m *Manager) persistLogged() { m.persister.Request() }

// StartPersister starts the goroutine that writes the file after changes,
// at most every configtable.PersistInterval unless WaitPersisted hurries
// it. Java writes synchronously inside every update.
func (m *Manager) StartPersister() { m.persister.Start() }

// StopPersister writes any pending change and stops that goroutine; later
// changes are written synchronously.
func (m *Manager) StopPersister() { m.persister.Stop() }

// WaitPersisted blocks until every change made so far is written (group
// commit: one write covers all concurrent waiters) and returns that
// write's error. Callers that must answer only once a change is durable,
// as Java's synchronous write guarantees, call it after the change.
func (m *Manager) WaitPersisted() error { return m.persister.WaitPersisted() }

// AfterPersisted is WaitPersisted without blocking: fn gets the result,
// at once or on the persister's goroutine, and must not block (a
// processor's deferred ctx.Respond).
func (m *Manager) AfterPersisted(fn func(error)) { m.persister.AfterPersisted(fn) }

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
