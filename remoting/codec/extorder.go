package codec

import "unicode/utf8"

// entryWriter appends one custom-header entry; null marks a key kept from a
// decoded ROCKETMQ header whose value was Java null.
type entryWriter func(dst []byte, k, v string, null bool) ([]byte, error)

// forEachExt writes the custom header in wire order: a decoded command's keys
// in the order they arrived, then any keys added since, in the iteration order
// of a java.util.HashMap holding them (what Java would have written).
func forEachExt(dst []byte, m map[string]string, lay *headerLayout, w entryWriter) ([]byte, error) {
	written := 0
	var err error
	if lay != nil {
		for i, e := range lay.extOrder {
			if v, ok := m[e.name]; ok {
				dst, err = w(dst, e.name, v, false)
				if !lay.dups || lay.extIndex(e.name) == i {
					written++
				}
			} else if e.null {
				dst, err = w(dst, e.name, "", true)
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
	for _, e := range javaHashMapOrder(extra) {
		if dst, err = w(dst, e.k, e.v, false); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

type kv struct{ k, v string }

// javaHashMapOrder sorts entries into the iteration order of a java.util.HashMap
// after inserting them in alphabetical order: by bucket (spread String.hashCode
// masked by the table size, 16 doubling while size exceeds 0.75 of it), and by
// insertion order within a bucket. Treeified bins (8+ collisions in one bucket
// of a table of 64 or more) are not modelled; header maps never get there.
func javaHashMapOrder(e []kv) []kv {
	capacity := 16
	for len(e) > capacity*3/4 {
		capacity *= 2
	}
	var ib [32]uint32
	idx := ib[:0]
	for _, x := range e {
		h := javaStringHash(x.k)
		idx = append(idx, (h^h>>16)&uint32(capacity-1))
	}
	// insertion sort by (bucket, key); n is small
	for i := 1; i < len(e); i++ {
		for j := i; j > 0 && (idx[j] < idx[j-1] || idx[j] == idx[j-1] && e[j].k < e[j-1].k); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
			e[j], e[j-1] = e[j-1], e[j]
		}
	}
	return e
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
