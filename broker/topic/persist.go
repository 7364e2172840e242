package topic

import (
	"fmt"

	jsoniter "github.com/json-iterator/go"

	"github.com/rocketmq-go/rmq/broker/configtable"
	"github.com/rocketmq-go/rmq/internal/configfile"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// Path returns the file the table persists to.
func (m *Manager) Path() string { return m.path }

// BuildTopicConfigSerializeWrapper is buildTopicConfigSerializeWrapper: a
// copy of the table and version, with the topics in Java's write order. It
// is the GET_ALL_TOPIC_CONFIG body and the register-broker payload.
func (m *Manager) BuildTopicConfigSerializeWrapper() *body.TopicConfigSerializeWrapper {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.wrapperLocked()
}

func (m *Manager) wrapperLocked() *body.TopicConfigSerializeWrapper {
	return &body.TopicConfigSerializeWrapper{
		TopicConfigTable: m.tab.Clone(),
		DataVersion:      m.tab.Version,
		Order:            m.tab.JavaOrder(),
	}
}

// Encode is encode(false): the compact GET_ALL_TOPIC_CONFIG body.
func (m *Manager) Encode() []byte {
	return m.BuildTopicConfigSerializeWrapper().AppendJSON(nil)
}

// decode merges topics.json over the table (putAll) and adopts its version.
func (m *Manager) decode(data []byte) error {
	var w body.TopicConfigSerializeWrapper
	if err := decodeWrapper(data, &w); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, name := range w.Topics() {
		tc := w.TopicConfigTable[name]
		if tc.TopicName == "" {
			tc.TopicName = name
		}
		m.put(tc)
	}
	m.tab.Version = w.DataVersion
	return nil
}

// Load merges topics.json (or its .bak) over the start-up topics, then
// replays the changes journaled after that file was written (left by a
// crash; a clean shutdown leaves none) and adopts the last one's version.
func (m *Manager) Load() error {
	if err := configfile.LoadLogged(m.lg, "topic config", m.path, m.decode); err != nil {
		return err
	}
	return configtable.ReplayJournal(m.journal, &m.mu, &m.tab, decodeTopicConfig, "topic", m.lg)
}

// decodeTopicConfig reads a journaled TopicConfig; absent fields keep
// Java's defaults.
func decodeTopicConfig(name string, raw []byte) (body.TopicConfig, error) {
	tc := body.NewTopicConfig(name)
	err := jsoniter.ConfigCompatibleWithStandardLibrary.Unmarshal(raw, &tc)
	return tc, err
}

// Persist writes topics.json in Java's pretty layout. It rotates the
// journal first and removes the rotated one once the file is written, so
// that after a clean shutdown topics.json alone holds the table, as an
// Apache broker expects.
func (m *Manager) Persist() error {
	m.persistMu.Lock()
	defer m.persistMu.Unlock()
	return configtable.WriteRotating(m.journal, m.lg, func() error {
		return configfile.PersistPretty(m.path, m.Encode())
	})
}

// putRecord is the journal record of tc just put; callers hold mu, after
// nextVersion.
func (m *Manager) putRecord(tc body.TopicConfig) configtable.Record {
	return configtable.PutRecord(&m.tab, tc.TopicName, tc)
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

// SyncFromMaster applies the master's GET_ALL_TOPIC_CONFIG answer as
// SlaveSynchronize.syncTopicConfig does: when the versions differ the table
// is replaced, the version adopted and topics.json persisted. It reports
// whether anything changed.
func (m *Manager) SyncFromMaster(w *body.TopicConfigSerializeWrapper) bool {
	m.mu.Lock()
	changed := m.tab.Sync(w.DataVersion, w.Topics(), w.TopicConfigTable)
	m.mu.Unlock()
	if !changed {
		return false
	}
	m.persistLogged()
	return true
}

// decodeWrapper reads a TopicConfigSerializeWrapper in fastjson or standard
// form; fields a topic entry lacks keep TopicConfig's Java defaults.
func decodeWrapper(data []byte, w *body.TopicConfigSerializeWrapper) error {
	std, err := body.Normalize(data)
	if err != nil {
		return err
	}
	var raw struct {
		TopicConfigTable map[string]jsoniter.RawMessage `json:"topicConfigTable"`
		DataVersion      body.DataVersion               `json:"dataVersion"`
	}
	api := jsoniter.ConfigCompatibleWithStandardLibrary
	if err := api.Unmarshal(std, &raw); err != nil {
		return fmt.Errorf("topic: decode topic config wrapper: %w", err)
	}
	w.DataVersion = raw.DataVersion
	w.TopicConfigTable = make(map[string]body.TopicConfig, len(raw.TopicConfigTable))
	for name, msg := range raw.TopicConfigTable {
		tc := body.NewTopicConfig(name)
		if err := api.Unmarshal(msg, &tc); err != nil {
			return fmt.Errorf("topic: decode topic config %s: %w", name, err)
		}
		w.TopicConfigTable[name] = tc
	}
	return nil
}
