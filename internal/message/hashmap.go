package message

import (
	"slices"
	"strings"
)

// HashMapProperties is a message's properties as the java.util.HashMap
// behind MessageDecoder.string2messageProperties sees them: the entries in
// insertion order plus the largest size the map reached, which fixes the
// table capacity and so the order messageProperties2String writes. The
// broker renders stored properties with it so records are byte-equal to
// Java's. The zero value is an empty map.
type HashMapProperties struct {
	keys, vals []string
	peak       int // most entries ever held: a HashMap never shrinks
}

// ParseHashMapProperties is string2messageProperties: a segment needs a
// non-empty name and value; a repeated name keeps its first position and
// takes the last value.
func ParseHashMapProperties(s string) *HashMapProperties {
	p := &HashMapProperties{}
	if s != "" {
		// One backing array for both slices, with room for the few keys the
		// broker adds (CLUSTER, REAL_TOPIC, REAL_QID) before either grows.
		n := strings.Count(s, string(PropertySeparator)) + 4
		buf := make([]string, 2*n)
		p.keys, p.vals = buf[:0:n], buf[n:n:2*n]
	}
	eachProperty(s, p.Put)
	return p
}

// Get returns the value of k and whether it is present.
func (p *HashMapProperties) Get(k string) (string, bool) {
	if i := slices.Index(p.keys, k); i >= 0 {
		return p.vals[i], true
	}
	return "", false
}

// Value returns the value of k ("" when absent).
func (p *HashMapProperties) Value(k string) string {
	v, _ := p.Get(k)
	return v
}

// Put is HashMap.put: a present key keeps its position.
func (p *HashMapProperties) Put(k, v string) {
	if i := slices.Index(p.keys, k); i >= 0 {
		p.vals[i] = v
		return
	}
	p.keys = append(p.keys, k)
	p.vals = append(p.vals, v)
	p.peak = max(p.peak, len(p.keys))
}

// Remove is HashMap.remove (the table never shrinks).
func (p *HashMapProperties) Remove(k string) {
	if i := slices.Index(p.keys, k); i >= 0 {
		p.keys = slices.Delete(p.keys, i, i+1)
		p.vals = slices.Delete(p.vals, i, i+1)
	}
}

// Keys returns the names in insertion order.
func (p *HashMapProperties) Keys() []string { return slices.Clone(p.keys) }

// Clone returns an independent copy.
func (p *HashMapProperties) Clone() *HashMapProperties {
	return &HashMapProperties{keys: slices.Clone(p.keys), vals: slices.Clone(p.vals), peak: p.peak}
}

// Map returns the properties as a Go map.
func (p *HashMapProperties) Map() map[string]string {
	m := make(map[string]string, len(p.keys))
	for i, k := range p.keys {
		m[k] = p.vals[i]
	}
	return m
}

// String is messageProperties2String: entries by hash bucket, insertion
// order within a bucket.
func (p *HashMapProperties) String() string { return renderHashMap(p.keys, p.vals, p.peak) }

// EditHashMapProperties is ParseHashMapProperties(s), Put(putKey, putVal),
// Remove(removeKey) and String in one call that allocates only the result
// while s has at most 15 entries: the broker's per-send rewrite of a
// message's properties (issue #11). An empty removeKey removes nothing.
func EditHashMapProperties(s, putKey, putVal, removeKey string) string {
	// Entries in local arrays: kept out of a struct so that the appends
	// below do not send them to the heap.
	var kb, vb [16]string
	keys, vals, peak := kb[:0], vb[:0], 0
	put := func(k, v string) {
		if i := slices.Index(keys, k); i >= 0 {
			vals[i] = v
			return
		}
		keys, vals = append(keys, k), append(vals, v)
		peak = max(peak, len(keys))
	}
	eachProperty(s, put)
	put(putKey, putVal)
	if i := slices.Index(keys, removeKey); i >= 0 && removeKey != "" {
		keys, vals = slices.Delete(keys, i, i+1), slices.Delete(vals, i, i+1)
	}
	return renderHashMap(keys, vals, peak)
}

// renderHashMap writes entries as messageProperties2String would from a
// HashMap that held at most peak of them.
func renderHashMap(keys, vals []string, peak int) string {
	if len(keys) == 0 {
		return ""
	}
	capacity := HashMapCapacity(peak, 16)
	var ib, bb [32]int
	idx, bucket := ib[:0], bb[:0]
	size := len(keys) - 1 // separators
	for i, k := range keys {
		idx = append(idx, i)
		bucket = append(bucket, HashMapBucket(k, capacity))
		size += len(k) + 1 + len(vals[i])
	}
	// Stable insertion sort by bucket: property maps are small, and each
	// key's hash is computed once.
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && bucket[idx[j]] < bucket[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	var sb strings.Builder
	sb.Grow(size)
	for n, i := range idx {
		if n > 0 {
			sb.WriteByte(PropertySeparator)
		}
		sb.WriteString(keys[i])
		sb.WriteByte(NameValueSeparator)
		sb.WriteString(vals[i])
	}
	return sb.String()
}

// HashMapCapacity is the table size of a java.util.HashMap that started at
// initial capacity initCap (16 for the no-arg constructor) and grew by puts
// to hold n entries (load factor 0.75; tables never shrink).
func HashMapCapacity(n, initCap int) int {
	c := 1
	for c < initCap {
		c <<= 1
	}
	for n > c*3/4 {
		c <<= 1
	}
	return c
}

// HashMapSpread is HashMap.hash: the high half of h folded into the low half.
func HashMapSpread(h int32) uint32 {
	u := uint32(h)
	return u ^ u>>16
}

// HashMapBucket is HashMap's bucket index of a String key in a table of
// capacity buckets (a power of two).
func HashMapBucket(k string, capacity int) int {
	return int(HashMapSpread(JavaStringHash(k)) & uint32(capacity-1))
}
