package codec

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// binaryFixedLen is code(2) language(1) version(2) opaque(4) flag(4) remarkLen(4) extLen(4).
const binaryFixedLen = 21

// decodeBinary parses a ROCKETMQ header (wire.md §2.2). Zero-length strings are
// Java nulls: remark becomes "", an ext value becomes an absent key remembered
// in the layout.
func decodeBinary(c *RemotingCommand, lay *headerLayout, h []byte, lazyOK bool) error {
	if len(h) < binaryFixedLen {
		return fmt.Errorf("%w: rocketmq header of %d bytes", ErrMalformedHeader, len(h))
	}
	c.Code = int32(int16(binary.BigEndian.Uint16(h)))
	c.Language = code.LanguageCode(h[2])
	c.Version = int32(int16(binary.BigEndian.Uint16(h[3:])))
	c.Opaque = int32(binary.BigEndian.Uint32(h[5:]))
	c.Flag = int32(binary.BigEndian.Uint32(h[9:]))
	p := 13
	rl := int(binary.BigEndian.Uint32(h[p:]))
	p += 4
	if rl < 0 || rl > len(h)-p-4 {
		return fmt.Errorf("%w: remark length %d", ErrMalformedHeader, rl)
	}
	c.Remark = string(h[p : p+rl])
	p += rl
	el := int(binary.BigEndian.Uint32(h[p:]))
	p += 4
	if el < 0 || el > len(h)-p {
		return fmt.Errorf("%w: extFields length %d", ErrMalformedHeader, el)
	}
	if el > 0 {
		if err := decodeBinaryExt(c, lay, h[p:p+el], lazyOK && lazyRequest(c)); err != nil {
			return err
		}
	}
	if p+el != len(h) {
		lay.exact = false // Java ignores trailing header bytes; so do we
	}
	return nil
}

func decodeBinaryExt(c *RemotingCommand, lay *headerLayout, b []byte, lazy bool) error {
	s := string(b) // one copy backs every key and value
	lay.src = s
	var m map[string]string
	if lazy {
		lay.lazy = true
	} else {
		m = make(map[string]string, countBinaryEntries(b))
	}
	var seen keyFilter
	for p := 0; p < len(s); {
		if len(s)-p < 2 {
			return fmt.Errorf("%w: truncated extFields key", ErrMalformedHeader)
		}
		kl := int(int16(binary.BigEndian.Uint16(b[p:])))
		p += 2
		if kl < 0 || kl > len(s)-p-4 {
			return fmt.Errorf("%w: extFields key length %d", ErrMalformedHeader, kl)
		}
		k, kAt := s[p:p+kl], p
		p += kl
		vl := int(int32(binary.BigEndian.Uint32(b[p:])))
		p += 4
		if vl < 0 || vl > len(s)-p {
			return fmt.Errorf("%w: extFields value length %d", ErrMalformedHeader, vl)
		}
		v := s[p : p+vl]
		isNew := seen.add(k)
		if lay.lazy {
			if lay.keepLazy(s, k, vl > 0, isNew) {
				lay.extOrder = append(lay.extOrder, extKey{off: uint32(kAt), n: uint32(kl), voff: uint32(p), vn: uint32(vl)})
				p += vl
				continue
			}
			m = lay.entryMap(s)
			lay.lazy = false
		}
		p += vl
		if vl > 0 && isNew {
			m[k] = v // certainly a new key: one map operation
			lay.extOrder = append(lay.extOrder, extKey{off: uint32(kAt), n: uint32(kl)})
			continue
		}
		prev, had := m[k]
		if vl == 0 {
			delete(m, k)
		} else {
			m[k] = v
		}
		lay.addExtKey(k, kAt, vl == 0, had == (vl != 0) && prev == v, had || vl == 0)
	}
	if !lay.lazy {
		c.ExtFields = m
	}
	return nil
}

// keyFilter is a 64-bit Bloom filter over the custom-header keys seen so
// far: add reports true only for a key certainly not seen before, which lets
// the decoders skip the duplicate lookup for the usual all-distinct header.
type keyFilter uint64

func (f *keyFilter) add(k string) bool {
	var h uint
	if n := len(k); n > 0 {
		h = uint(n)*7 + uint(k[0])*3 + uint(k[n-1]) + uint(k[n/2])*5
	}
	bit := keyFilter(1) << (h & 63)
	isNew := *f&bit == 0
	*f |= bit
	return isNew
}

// addExtKey records k, found at offset at of the layout's src, in wire order.
// A repeated key (Java's client writes
// the V2 send fields twice when an RPC hook re-adds them) is recorded again;
// the map keeps the last value, so the layout stays exact only when the
// repeat carries the same value as before. maybeDup is false when the caller
// knows k is new, which skips the search.
func (l *headerLayout) addExtKey(k string, at int, null, same, maybeDup bool) {
	if maybeDup {
		l.indexExt()
		if i := l.extIndex(k); i >= 0 {
			l.dups = true
			if !same || l.extOrder[i].null() != null {
				l.exact = false
			}
		}
	}
	e := extKey{off: uint32(at), n: uint32(len(k))}
	if null {
		e.n |= extNull
	}
	l.extOrder = append(l.extOrder, e)
}

// extIndexMin is the length of the ext order from which extIndex looks keys
// up by hash instead of scanning: a header of many repeated keys must decode
// and encode in linear time (it is decoded on the connection's event loop).
const extIndexMin = 32

// extHashSeed seeds the key hashes, so a client cannot pick colliding keys.
var extHashSeed = maphash.MakeSeed()

// indexExt brings extHashes up to date with the ext order once that is long.
// Only the decoder calls it: a decoded layout is read-only afterwards.
func (l *headerLayout) indexExt() {
	if len(l.extOrder) < extIndexMin {
		return
	}
	if l.extHashes == nil {
		l.extHashes = make(map[uint64]int32, 2*len(l.extOrder))
	}
	for ; l.extHashN < len(l.extOrder); l.extHashN++ {
		h := maphash.String(extHashSeed, l.extName(l.extOrder[l.extHashN]))
		if _, ok := l.extHashes[h]; !ok {
			l.extHashes[h] = int32(l.extHashN)
		}
	}
}

// reindexExt indexes a long ext order from scratch once decoding is done:
// src is then final (JSON keys with escapes read differently before), and
// the encoder looks keys up too.
func (l *headerLayout) reindexExt() {
	clear(l.extHashes)
	l.extHashN = 0
	l.indexExt()
}

// extIndex returns the position of k in the ext order, or -1.
func (l *headerLayout) extIndex(k string) int {
	if l.extHashes != nil && l.extHashN == len(l.extOrder) {
		i, ok := l.extHashes[maphash.String(extHashSeed, k)]
		if !ok {
			return -1
		}
		if l.extName(l.extOrder[i]) == k {
			return int(i)
		}
		// a hash collision (about never): scan
	}
	for i, e := range l.extOrder {
		if e.n&^extNull == uint32(len(k)) && l.extName(e) == k {
			return i
		}
	}
	return -1
}

// appendBinaryHeader writes the ROCKETMQ header. Code and version must fit in
// an int16 (Java would silently truncate them).
func appendBinaryHeader(dst []byte, c *RemotingCommand, lay *headerLayout) ([]byte, error) {
	if c.Code < math.MinInt16 || c.Code > math.MaxInt16 {
		return dst, fmt.Errorf("%w: code %d in a rocketmq header", ErrFieldRange, c.Code)
	}
	if c.Version < math.MinInt16 || c.Version > math.MaxInt16 {
		return dst, fmt.Errorf("%w: version %d in a rocketmq header", ErrFieldRange, c.Version)
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(c.Code))
	dst = append(dst, byte(c.Language))
	dst = binary.BigEndian.AppendUint16(dst, uint16(c.Version))
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.Opaque))
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.Flag))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(c.Remark)))
	dst = append(dst, c.Remark...)
	lenAt := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	var err error
	dst, err = writeExt(dst, c, lay, appendBinaryEntry, true, styleJava)
	if err != nil {
		return dst, err
	}
	binary.BigEndian.PutUint32(dst[lenAt:], uint32(len(dst)-lenAt-4))
	return dst, nil
}

func appendBinaryEntry(dst []byte, k, v string, _ bool) ([]byte, error) {
	if len(k) > math.MaxInt16 {
		return dst, fmt.Errorf("%w: extFields key of %d bytes", ErrFieldRange, len(k))
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(k)))
	dst = append(dst, k...)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(v)))
	return append(dst, v...), nil
}

// countBinaryEntries walks the entry lengths to size the map; it stops at the
// first impossible length (the decoder reports it).
func countBinaryEntries(b []byte) int {
	n := 0
	for p := 0; len(b)-p >= 6; n++ {
		kl := int(binary.BigEndian.Uint16(b[p:]))
		if kl > len(b)-p-6 {
			break
		}
		p += 2 + kl
		vl := int(binary.BigEndian.Uint32(b[p:]))
		if vl < 0 || vl > len(b)-p-4 {
			break
		}
		p += 4 + vl
	}
	return n
}
