package subscription

import (
	"encoding/json"

	"github.com/rocketmq-go/rmq/broker/configtable"
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

// Load merges subscriptionGroup.json (or its .bak) over the default
// groups, then replays the changes journaled after that file was written
// (left by a crash; a clean shutdown leaves none) and adopts the last
// one's version.
func (m *Manager) Load() error {
	if err := configfile.LoadLogged(m.lg, "subscription group", m.path, m.decode); err != nil {
		return err
	}
	return configtable.ReplayJournal(m.journal, &m.mu, &m.tab, decodeGroupConfig, "subscription group", m.lg)
}

// decodeGroupConfig reads a journaled SubscriptionGroupConfig.
func decodeGroupConfig(group string, raw []byte) (body.SubscriptionGroupConfig, error) {
	c := body.NewSubscriptionGroupConfig(group)
	err := json.Unmarshal(raw, &c)
	return c, err
}

// Persist writes subscriptionGroup.json in Java's pretty layout. It
// rotates the journal first and removes the rotated one once the file is
// written, so that after a clean shutdown the file alone holds the table,
// as an Apache broker expects.
func (m *Manager) Persist() error {
	m.persistMu.Lock()
	defer m.persistMu.Unlock()
	return configtable.WriteRotating(m.journal, m.lg, func() error {
		return configfile.PersistPretty(m.path, m.Encode())
	})
}

// commit journals recs (the change is then as durable as after Java's
// synchronous rewrite) and schedules the coalesced full rewrite.
func (m *Manager) commit(recs ...configtable.Record) {
	configtable.Commit(m.journal, m.persister, m.lg, recs...)
}

// persistLogged asks for the table to be written: at once before
// StartPersister and after StopPersister, else by the persister, coalesced
// with the other changes (failures are logged there).
func (m *Manager) persistLogged() { m.persister.Request() }

// StartPersister starts the goroutine that writes the file after changes,
// at most every configtable.PersistInterval. Java writes synchronously
// inside every update.
func (m *Manager) StartPersister() { m.persister.Start() }

// StopPersister writes any pending change and stops that goroutine; later
// changes are written synchronously.
func (m *Manager) StopPersister() { m.persister.Stop() }

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
