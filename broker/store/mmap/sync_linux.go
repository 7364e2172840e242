//go:build linux

package mmap

import (
	"os"
	"syscall"
	"unsafe"
)

const msSync = 0x4 // MS_SYNC

// syncRange writes back data[from:to] of the mapping of f (msync MS_SYNC,
// like MappedByteBuffer.force).
func syncRange(f *os.File, data []byte, from, to int) error {
	const page = 4096
	from &^= page - 1
	if to <= from {
		return nil
	}
	_, _, e := syscall.Syscall(syscall.SYS_MSYNC, uintptr(unsafe.Pointer(&data[from])), uintptr(to-from), msSync)
	if e != 0 {
		return f.Sync()
	}
	return nil
}
