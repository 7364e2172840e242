package offset

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// TopicGroupSeparator joins topic and group in table keys.
const TopicGroupSeparator = "@"

// Entry is one queue's committed offset and the time (ms) it last moved
// backwards (0 = never, since start).
type Entry struct {
	Offset  int64
	ResetAt int64
}

// Manager mirrors ConsumerOffsetManager.
type Manager struct {
	path string
	lg   *zap.Logger
	now  func() int64 // ms clock, replaceable in tests

	persistMu sync.Mutex   // serializes Persist/StoreRaw so the newest snapshot lands last
	mu        sync.RWMutex // guards table
	table     map[string]map[int32]Entry
}

// New returns an empty manager persisting to path
// (<storePathRootDir>/config/consumerOffset.json). A nil logger is allowed.
func New(path string, lg *zap.Logger) *Manager {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Manager{
		path:  path,
		lg:    lg,
		now:   func() int64 { return time.Now().UnixMilli() },
		table: map[string]map[int32]Entry{},
	}
}

// Key is the table key "topic@group".
func Key(topic, group string) string { return topic + TopicGroupSeparator + group }

// splitKey splits "topic@group" as Java's split("@") with its length-2 check.
func splitKey(key string) (topic, group string, ok bool) {
	parts := strings.Split(key, TopicGroupSeparator)
	if len(parts) != 2 {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// CommitOffset records offset for the queue (commitOffset). clientHost is
// for the log only. A commit below the stored offset is accepted, as in
// Java, and marks the entry as reset.
func (m *Manager) CommitOffset(clientHost, group, topic string, queueID int32, offset int64) {
	key := Key(topic, group)
	m.mu.Lock()
	q := m.table[key]
	if q == nil {
		q = map[int32]Entry{}
		m.table[key] = q
	}
	old, had := q[queueID]
	e := Entry{Offset: offset, ResetAt: old.ResetAt}
	if had && offset < old.Offset {
		e.ResetAt = m.now()
	}
	q[queueID] = e
	m.mu.Unlock()
	if had && offset < old.Offset {
		m.lg.Debug("commit offset moved backwards", zap.String("clientHost", clientHost),
			zap.String("key", key), zap.Int32("queueId", queueID),
			zap.Int64("offset", offset), zap.Int64("storeOffset", old.Offset))
	}
}

// ResetOffset sets the offset of a queue and marks it as reset now; it is
// what an admin reset (RESET_OFFSET / INVOKE_BROKER_TO_RESET_OFFSET) uses.
func (m *Manager) ResetOffset(group, topic string, queueID int32, offset int64) {
	key := Key(topic, group)
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.table[key]
	if q == nil {
		q = map[int32]Entry{}
		m.table[key] = q
	}
	q[queueID] = Entry{Offset: offset, ResetAt: m.now()}
}

// QueryOffset returns the committed offset, or -1 when unknown.
func (m *Manager) QueryOffset(group, topic string, queueID int32) int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if e, ok := m.table[Key(topic, group)][queueID]; ok {
		return e.Offset
	}
	return -1
}

// QueryOffsets returns a copy of queueId -> offset for topic@group, or nil.
func (m *Manager) QueryOffsets(group, topic string) map[int32]int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	q, ok := m.table[Key(topic, group)]
	if !ok {
		return nil
	}
	out := make(map[int32]int64, len(q))
	for id, e := range q {
		out[id] = e.Offset
	}
	return out
}

// WhichTopicByConsumer lists the topics group has offsets for, sorted.
func (m *Manager) WhichTopicByConsumer(group string) []string {
	return m.collect(func(topic, g string) (string, bool) { return topic, g == group })
}

// WhichGroupByTopic lists the groups that have offsets for topic, sorted.
func (m *Manager) WhichGroupByTopic(topic string) []string {
	return m.collect(func(t, group string) (string, bool) { return group, t == topic })
}

func (m *Manager) collect(pick func(topic, group string) (string, bool)) []string {
	set := map[string]bool{}
	m.mu.RLock()
	for key := range m.table {
		if t, g, ok := splitKey(key); ok {
			if v, ok := pick(t, g); ok {
				set[v] = true
			}
		}
	}
	m.mu.RUnlock()
	out := slices.Collect(maps.Keys(set))
	slices.Sort(out)
	return out
}

// RemoveOffset drops every topic@group entry of group (removeOffset).
func (m *Manager) RemoveOffset(group string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key := range m.table {
		if _, g, ok := splitKey(key); ok && g == group {
			delete(m.table, key)
		}
	}
}

// CloneOffset copies srcGroup's offsets of topic to destGroup (cloneOffset).
func (m *Manager) CloneOffset(srcGroup, destGroup, topic string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if q, ok := m.table[Key(topic, srcGroup)]; ok {
		m.table[Key(topic, destGroup)] = maps.Clone(q)
	}
}

// QueryMinOffsetInAllGroup is queryMinOffsetInAllGroup: per queue of topic,
// the smallest committed offset among all groups except those listed
// (comma-separated) in filterGroups, counting only offsets still at or
// above the queue's min offset in the store. Unlike 4.9.8, which removes the
// filtered groups' offsets from the live table through a key-set view (a
// bug), the filter here only excludes them from the computation.
func (m *Manager) QueryMinOffsetInAllGroup(topic, filterGroups string, minOffsetInQueue func(topic string, queueID int32) int64) map[int32]int64 {
	skip := map[string]bool{}
	if strings.TrimSpace(filterGroups) != "" {
		for _, g := range strings.Split(filterGroups, ",") {
			skip[g] = true
		}
	}
	out := map[int32]int64{}
	m.mu.RLock()
	defer m.mu.RUnlock()
	for key, q := range m.table {
		t, g, ok := splitKey(key)
		if !ok || t != topic || skip[g] {
			continue
		}
		for id, e := range q {
			if e.Offset < minOffsetInQueue(topic, id) {
				continue
			}
			if cur, ok := out[id]; !ok || e.Offset < cur {
				out[id] = e.Offset
			}
		}
	}
	return out
}

// ScanUnsubscribedTopic is scanUnsubscribedTopic: it drops topic@group
// entries whose group no longer subscribes to the topic and whose every
// offset is at or below the queue's min offset in the store (nothing left
// to consume). It returns the removed keys.
func (m *Manager) ScanUnsubscribedTopic(subscribed func(group, topic string) bool, minOffsetInQueue func(topic string, queueID int32) int64) []string {
	var removed []string
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, q := range m.table {
		t, g, ok := splitKey(key)
		if !ok || subscribed(g, t) || !behindStore(t, q, minOffsetInQueue) {
			continue
		}
		delete(m.table, key)
		removed = append(removed, key)
	}
	return removed
}

func behindStore(topic string, q map[int32]Entry, minOffsetInQueue func(string, int32) int64) bool {
	if len(q) == 0 {
		return false
	}
	for id, e := range q {
		if e.Offset > minOffsetInQueue(topic, id) {
			return false
		}
	}
	return true
}
