package codec

import (
	"sync"
	"unsafe"
)

// The command and layout of a server's request are one allocation of about
// half a kilobyte per request (decoded). A processor that knows the last use
// of a request hands it back with Release, and DecodeLazy reuses it; only
// that struct is reused, never what its fields point to (the header
// string, Body's frame, a map Fields built), so strings and slices taken
// from a released command stay valid.

// decodedPool holds released decoded structs, their layout already zero.
var decodedPool sync.Pool

// newDecoded returns a zero decoded, from the pool for DecodeLazy.
func newDecoded(pooled bool) *decoded {
	if !pooled {
		return &decoded{}
	}
	d, _ := decodedPool.Get().(*decoded)
	if d == nil {
		d = &decoded{}
	} else {
		d.cmd = RemotingCommand{} // clear the poison; Release zeroed the layout
	}
	d.lay.pooled = true
	return d
}

// PoisonCode is the Code of a released command: a use after Release reads
// it (and no header, no body) instead of another request's fields.
const PoisonCode int32 = -0x7EAD

// Release gives c, returned by DecodeLazy, back for a later DecodeLazy to
// reuse. The caller guarantees that nothing reads or writes *c afterwards
// (strings, Body and maps taken from it may be kept). Any other command, a
// copy of one, or a second Release is ignored.
func Release(c *RemotingCommand) {
	l := c.layout
	if l == nil || !l.pooled {
		return
	}
	d := (*decoded)(unsafe.Pointer(uintptr(unsafe.Pointer(l)) - unsafe.Offsetof(decoded{}.lay)))
	if &d.cmd != c {
		return
	}
	d.cmd = RemotingCommand{Code: PoisonCode, Opaque: PoisonCode, Flag: PoisonCode}
	d.lay = headerLayout{}
	decodedPool.Put(d)
}
