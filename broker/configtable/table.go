package configtable

import (
	"maps"
	"slices"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// JavaCapacity is the initial capacity Java gives both tables'
// ConcurrentHashMap (new ConcurrentHashMap<>(1024)).
const JavaCapacity = 1024

// Table is a versioned name → config map that remembers what fixes Java's
// iteration order. The zero value is an empty table.
type Table[V any] struct {
	Entries map[string]V
	Version body.DataVersion
	order   []string // insertion order, for Java bucket tie-breaks
	peak    int      // most entries ever held
}

// Put is ConcurrentHashMap.put: a present key keeps its position.
func (t *Table[V]) Put(key string, v V) (old V, existed bool) {
	if t.Entries == nil {
		t.Entries = make(map[string]V)
	}
	old, existed = t.Entries[key]
	if !existed {
		t.peak = max(t.peak, len(t.Entries)+1)
		t.order = append(t.order, key)
	}
	t.Entries[key] = v
	return old, existed
}

// Delete is ConcurrentHashMap.remove; it reports whether key was present.
// The table keeps its size.
func (t *Table[V]) Delete(key string) bool {
	if _, ok := t.Entries[key]; !ok {
		return false
	}
	delete(t.Entries, key)
	t.order = slices.DeleteFunc(t.order, func(k string) bool { return k == key })
	return true
}

// Clear is ConcurrentHashMap.clear: no entries, the table keeps its size.
func (t *Table[V]) Clear() {
	clear(t.Entries)
	t.order = t.order[:0]
}

// NextVersion is DataVersion.nextVersion at nowMs.
func (t *Table[V]) NextVersion(nowMs int64) {
	t.Version.Timestamp = nowMs
	t.Version.Counter++
}

// Clone returns a copy of the entries.
func (t *Table[V]) Clone() map[string]V {
	if t.Entries == nil {
		return map[string]V{}
	}
	return maps.Clone(t.Entries)
}

// JavaOrder lists the keys in the order fastjson writes the Java map.
func (t *Table[V]) JavaOrder() []string {
	order := slices.Clone(t.order)
	return body.JavaHashOrder(order, body.JavaStringHash, body.ConcurrentHashMapTableSize(JavaCapacity, t.peak))
}

// Sync is what a slave does with the master's table (SlaveSynchronize):
// when version differs from the table's, the entries are replaced by
// entries (inserted in order) and the version adopted. It reports whether
// anything changed.
func (t *Table[V]) Sync(version body.DataVersion, order []string, entries map[string]V) bool {
	if t.Version == version {
		return false
	}
	t.Version = version
	t.Clear()
	for _, k := range order {
		t.Put(k, entries[k])
	}
	return true
}
