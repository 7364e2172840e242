package codec

import (
	"strconv"
	"unsafe"
)

// ExtSource is a custom header that hands out its own entries, for a
// command built in Go whose key set is fixed (the send answer): no map to
// fill, hash and iterate, and numbers written without a string. The
// encoder uses it when ExtFields is nil. ExtEntry(0), ExtEntry(1)... up to
// the first !ok must give the entries in the order Java's
// java.util.HashMap of exactly those keys would iterate them
// (HashMapOrder), which is the order the encoder gives a map.
type ExtSource interface {
	ExtEntry(i int) (e ExtEntry, ok bool)
}

// ExtEntry is one custom-header field of an ExtSource: Key and Value, or,
// when IsNum, Key and Num written in decimal (Java's toString).
type ExtEntry struct {
	Key, Value string
	Num        int64
	IsNum      bool
}

// appendSourceExt writes an ExtSource's entries, ROCKETMQ (bin) or JSON.
func appendSourceExt(dst []byte, src ExtSource, bin bool, style escStyle) ([]byte, error) {
	var buf [20]byte
	var err error
	for i := 0; ; i++ {
		e, ok := src.ExtEntry(i)
		if !ok {
			return dst, nil
		}
		v := e.Value
		if e.IsNum {
			// the entry writers copy the digits and keep nothing
			b := strconv.AppendInt(buf[:0], e.Num, 10)
			v = unsafe.String(unsafe.SliceData(b), len(b))
		}
		if !bin {
			dst = appendJSONEntry(dst, e.Key, v, false, style)
		} else if dst, err = appendBinaryEntry(dst, e.Key, v, false); err != nil {
			return dst, err
		}
	}
}

// sourceMap collects an ExtSource's entries into a new map.
func sourceMap(src ExtSource) map[string]string {
	m := make(map[string]string, 8)
	for i := 0; ; i++ {
		e, ok := src.ExtEntry(i)
		if !ok {
			return m
		}
		if e.IsNum {
			e.Value = strconv.FormatInt(e.Num, 10)
		}
		m[e.Key] = e.Value
	}
}

// HashMapOrder returns keys in the iteration order of a java.util.HashMap
// holding exactly them (the order the encoder writes a map's new keys in),
// for an ExtSource to give its entries in.
func HashMapOrder(keys ...string) []string {
	e := make([]kv, len(keys))
	for i, k := range keys {
		e[i].k = k
	}
	out := make([]string, 0, len(keys))
	for _, i := range javaHashMapOrder(e, len(e), nil) {
		out = append(out, keys[i])
	}
	return out
}
