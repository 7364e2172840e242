package codec

import (
	"math/bits"
	"unicode/utf8"
)

// entryWriter appends one custom-header entry; null marks a key kept from a
// decoded ROCKETMQ header whose value was Java null.
type entryWriter func(dst []byte, k, v string, null bool) ([]byte, error)

// writeExt writes c's custom header with w (bin and style say which w is,
// for an ExtSource): a lazy one from its entries, an ExtSource's by itself,
// else with forEachExt.
func writeExt(dst []byte, c *RemotingCommand, lay *headerLayout, w entryWriter, bin bool, style escStyle) ([]byte, error) {
	switch {
	case c.lazyExt():
		return appendLazyExt(dst, c.layout, w)
	case c.ExtFields == nil && c.ExtSource != nil:
		return appendSourceExt(dst, c.ExtSource, bin, style)
	}
	return forEachExt(dst, c.ExtFields, lay, w)
}

// forEachExt writes the custom header in wire order: a decoded command's keys
// in the order they arrived, then any keys added since, in the iteration order
// of a java.util.HashMap holding them (what Java would have written).
func forEachExt(dst []byte, m map[string]string, lay *headerLayout, w entryWriter) ([]byte, error) {
	written := 0
	var err error
	if lay != nil {
		for i, e := range lay.extOrder {
			name := lay.extName(e)
			if v, ok := m[name]; ok {
				dst, err = w(dst, name, v, false)
				if !lay.dups || lay.extIndex(name) == i {
					written++
				}
			} else if e.null() {
				dst, err = w(dst, name, "", true)
			}
			if err != nil {
				return dst, err
			}
		}
	}
	if written == len(m) {
		return dst, nil
	}
	var buf [32]kv
	extra := buf[:0]
	for k, v := range m {
		if lay == nil || lay.extIndex(k) < 0 {
			extra = append(extra, kv{k, v})
		}
	}
	var ob [32]int
	for _, i := range javaHashMapOrder(extra, len(m), ob[:0]) {
		if dst, err = w(dst, extra[i].k, extra[i].v, false); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

type kv struct{ k, v string }

// javaHashMapOrder appends to order the positions of e in the iteration
// order of a java.util.HashMap of size entries into which they were inserted
// alphabetically: by bucket (spread String.hashCode
// masked by the table size, 16 doubling while size exceeds 0.75 of it), and by
// insertion order within a bucket. Treeified bins (8+ collisions in one bucket
// of a table of 64 or more) are not modelled; header maps never get there.
func javaHashMapOrder(e []kv, size int, order []int) []int {
	capacity := 16
	for size > capacity*3/4 {
		capacity *= 2
	}
	if capacity > 64 {
		return javaHashMapOrderSort(e, capacity, order)
	}
	// A table of at most 64 buckets: a bit per used bucket and, per
	// bucket, a list of entries (1-based; 0 ends it) kept in key order, so
	// the order comes out in one pass instead of a sort.
	var used uint64
	var head [64]uint8
	var next [48]uint8 // size <= 48 here, and len(e) <= size
	for i := range e {
		h := javaStringHash(e[i].k)
		b := (h ^ h>>16) & uint32(capacity-1)
		used |= 1 << b
		if head[b] == 0 || e[i].k < e[head[b]-1].k {
			next[i], head[b] = head[b], uint8(i+1)
			continue
		}
		j := head[b]
		for next[j-1] != 0 && e[next[j-1]-1].k <= e[i].k {
			j = next[j-1]
		}
		next[i], next[j-1] = next[j-1], uint8(i+1)
	}
	for used != 0 {
		b := bits.TrailingZeros64(used)
		used &= used - 1
		for j := head[b]; j != 0; j = next[j-1] {
			order = append(order, int(j-1))
		}
	}
	return order
}

// javaHashMapOrderSort is javaHashMapOrder for a table of more than 64
// buckets.
func javaHashMapOrderSort(e []kv, capacity int, order []int) []int {
	var ib [64]uint32
	idx := ib[:0]
	for _, x := range e {
		h := javaStringHash(x.k)
		idx = append(idx, (h^h>>16)&uint32(capacity-1))
	}
	for i := range e {
		order = append(order, i)
	}
	// insertion sort of positions by (bucket, key)
	for i := 1; i < len(order); i++ {
		for j := i; j > 0; j-- {
			a, b := order[j], order[j-1]
			if idx[a] > idx[b] || idx[a] == idx[b] && e[a].k >= e[b].k {
				break
			}
			order[j], order[j-1] = b, a
		}
	}
	return order
}

// javaStringHash is Java's String.hashCode: s[0]*31^(n-1) + ... over UTF-16
// code units. Invalid UTF-8 bytes count as U+FFFD, as Java's decoder makes them.
func javaStringHash(s string) uint32 {
	var h uint32
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			h = 31*h + uint32(b)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r > 0xFFFF {
			r -= 0x10000
			h = 31*h + uint32(0xD800+(r>>10))
			h = 31*h + uint32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}
