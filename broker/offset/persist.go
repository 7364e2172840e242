package offset

import (
	"maps"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/configfile"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// Wrapper returns the table as the ConsumerOffsetSerializeWrapper body.
func (m *Manager) Wrapper() *body.ConsumerOffsetSerializeWrapper {
	m.mu.RLock()
	defer m.mu.RUnlock()
	w := &body.ConsumerOffsetSerializeWrapper{OffsetTable: make(map[string]map[int32]int64, len(m.table))}
	for key, q := range m.table {
		o := make(map[int32]int64, len(q))
		for id, e := range q {
			o[id] = e.Offset
		}
		w.OffsetTable[key] = o
	}
	return w
}

// Encode is encode(): the compact GET_ALL_CONSUMER_OFFSET body.
func (m *Manager) Encode() []byte { return m.Wrapper().Encode() }

// decode replaces the table with data (Java assigns the decoded table).
func (m *Manager) decode(data []byte) error {
	var w body.ConsumerOffsetSerializeWrapper
	if err := w.Decode(data); err != nil {
		return err
	}
	table := make(map[string]map[int32]Entry, len(w.OffsetTable))
	for key, q := range w.OffsetTable {
		table[key] = toEntries(q)
	}
	m.mu.Lock()
	m.table = table
	m.mu.Unlock()
	return nil
}

func toEntries(q map[int32]int64) map[int32]Entry {
	out := make(map[int32]Entry, len(q))
	for id, off := range q {
		out[id] = Entry{Offset: off}
	}
	return out
}

// Load reads consumerOffset.json (falling back to its .bak).
func (m *Manager) Load() error {
	return configfile.LoadLogged(m.lg, "consumer offset", m.path, m.decode)
}

// Persist writes consumerOffset.json in Java's pretty layout.
func (m *Manager) Persist() error {
	m.persistMu.Lock()
	defer m.persistMu.Unlock()
	if err := configfile.PersistPretty(m.path, m.Encode()); err != nil {
		m.lg.Error("persist consumer offset failed", zap.String("path", m.path), zap.Error(err))
		return err
	}
	return nil
}

// Path returns the file the table persists to.
func (m *Manager) Path() string { return m.path }

// PutAll overwrites entries with the master's table, as a slave's
// syncConsumerOffset does (offsetTable.putAll); keys absent from w stay.
// Reset marks of overwritten queues are cleared.
func (m *Manager) PutAll(w *body.ConsumerOffsetSerializeWrapper) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, q := range w.OffsetTable {
		m.table[key] = toEntries(q)
	}
}

// Snapshot returns a deep copy of the table with reset marks, for HA
// reconciliation.
func (m *Manager) Snapshot() map[string]map[int32]Entry {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[string]map[int32]Entry, len(m.table))
	for key, q := range m.table {
		out[key] = maps.Clone(q)
	}
	return out
}

// Merge folds another node's entries into the table by the rule in the
// package doc (newer reset wins, else larger offset wins) and returns how
// many queue entries changed.
func (m *Manager) Merge(in map[string]map[int32]Entry) int {
	changed := 0
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, q := range in {
		local := m.table[key]
		if local == nil {
			local = make(map[int32]Entry, len(q))
			m.table[key] = local
		}
		for id, e := range q {
			cur, ok := local[id]
			if !ok || wins(e, cur) {
				local[id] = e
				changed++
			}
		}
	}
	return changed
}

// wins reports whether incoming replaces cur.
func wins(incoming, cur Entry) bool {
	switch {
	case incoming.ResetAt != cur.ResetAt:
		return incoming.ResetAt > cur.ResetAt
	default:
		return incoming.Offset > cur.Offset
	}
}

// EntriesFromWrapper turns a plain offset body (another node's
// GET_ALL_CONSUMER_OFFSET answer, which carries no reset marks) into Merge
// input: every entry gets ResetAt 0, so local resets still win over it.
func EntriesFromWrapper(w *body.ConsumerOffsetSerializeWrapper) map[string]map[int32]Entry {
	out := make(map[string]map[int32]Entry, len(w.OffsetTable))
	for key, q := range w.OffsetTable {
		out[key] = toEntries(q)
	}
	return out
}
