//go:build linux

package mmap

import (
	"os"
	"syscall"
	"unsafe"
)

const msSync = 0x4 // MS_SYNC

// syncRange makes data[from:to] of the mapping of f durable with
// msync(MS_SYNC) on the page-aligned range, which Linux turns into a
// ranged fdatasync (vfs_fsync_range with datasync set: the pages of the
// range plus the metadata needed to read them back). A whole-file fdatasync
// would also write back the pre-faulted, still-zero pages ahead of the
// write position, costing disk bandwidth and re-protecting those pages so
// that the appender faults on them again.
func syncRange(f *os.File, data []byte, from, to int) error {
	if to <= from {
		return nil
	}
	from &^= OSPageSize - 1
	_, _, e := syscall.Syscall(syscall.SYS_MSYNC, uintptr(unsafe.Pointer(&data[from])), uintptr(to-from), msSync)
	if e != 0 {
		return syscall.Fdatasync(int(f.Fd()))
	}
	return nil
}

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14).
const madvPopulateWrite = 23

// populateWrite write-faults the pages of b in the kernel; errors (older
// kernels: EINVAL) are ignored, the stores then fault one by one.
func populateWrite(b []byte) { _ = syscall.Madvise(b, madvPopulateWrite) }

// adviseRandom turns off read-around for faults on b.
func adviseRandom(b []byte) { _ = syscall.Madvise(b, syscall.MADV_RANDOM) }
