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

// swarSpecial flags (in the high bit) the bytes of w that are a control
// character, DEL or not ASCII, or one of '"' '&' (both become 0x26 with bit
// 2 set), '<' '>' (0x3E with bit 1 set) and '\\'. Each test is a borrow
// or a carry that starts only at a byte it flags. One expression, so that
// it inlines.
func swarSpecial(w uint64) uint64 {
	q := w | swarLo*0x04 ^ swarLo*0x26
	a := w | swarLo*0x02 ^ swarLo*0x3E
	b := w ^ swarLo*'\\'
	return ((w-swarLo*0x20)&^w | (w + swarLo) | w |
		(q-swarLo)&^q | (a-swarLo)&^a | (b-swarLo)&^b) & swarHi
}
