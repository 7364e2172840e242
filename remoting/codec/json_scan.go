package codec

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// The string scanner's fast path. Most header text is plain: printable
// ASCII that neither writer escapes. plainRun passes over it eight bytes
// at a time (SWAR) and stops at the first byte that strCls may class; the
// caller then looks that byte up as before. The word test only has to
// flag a superset of the classed bytes, and never a plain byte below the
// first classed one: each per-byte test is a borrow or carry that only
// starts at a byte it flags, so the lowest flag is exact.

const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// plainRun returns the index of the first byte at or after i whose strCls
// is not 0, or of a non-ASCII byte, or len(s).
func plainRun(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := swarSpecial(load64(s, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s) && s[i] < 0x80 && strCls[s[i]] == 0; i++ {
	}
	return i
}

// load64 reads s[i:i+8] as a little-endian word (the first byte lowest).
func load64(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:i+8]), 8))
}

// swarZero flags (in its high bit) each byte of w that is 0, and possibly
// bytes above such a byte.
func swarZero(w uint64) uint64 { return (w - swarLo) &^ w }

// swarSpecial flags the bytes of w that are a control character, '"',
// '\\', '&', '<', '>', DEL or not ASCII: every byte strCls classes.
func swarSpecial(w uint64) uint64 {
	ctl := (w - swarLo*0x20) &^ w // < 0x20
	m := ctl | w |                // w: bytes >= 0x80
		swarZero(w^(swarLo*'"')) |
		swarZero(w^(swarLo*'\\')) |
		swarZero(w^(swarLo*'&')) |
		swarZero((w|swarLo*0x02)^(swarLo*'>')) | // '<' 0x3C and '>' 0x3E
		swarZero(w^(swarLo*0x7F))
	return m & swarHi
}
