//go:build linux

package mmap

import (
	"errors"
	"syscall"
	"unsafe"
)

const msSync = 0x4 // MS_SYNC

// syncRange makes data[from:to] of the shared file mapping data durable with
// msync(MS_SYNC) on the page-aligned range. Linux turns that into a ranged
// fdatasync of the file the mapping holds (vfs_fsync_range with datasync
// set: the pages of the range plus the metadata needed to read them back),
// so no descriptor is needed. Syncing only the range also leaves alone the
// warmed, still-zero pages ahead of the write position, which a whole-file
// fdatasync would write back early and write-protect again, so that the
// appender would fault on them once more. An error (EIO) is returned, never
// retried another way: the kernel reports a writeback error once.
func syncRange(_ string, data []byte, from, to int) error {
	if to <= from {
		return nil
	}
	from &^= OSPageSize - 1
	_, _, e := syscall.Syscall(syscall.SYS_MSYNC, uintptr(unsafe.Pointer(&data[from])), uintptr(to-from), msSync)
	if e != 0 {
		return e
	}
	return nil
}

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14).
const madvPopulateWrite = 23

// populateWrite write-faults the pages of b in the kernel, as stores would
// but without touching the bytes, so it is safe next to a writer storing
// into the same pages. Older kernels fail it with EINVAL.
func populateWrite(b []byte) error { return syscall.Madvise(b, madvPopulateWrite) }

// populateUnsupported tells a kernel without MADV_POPULATE_WRITE (EINVAL:
// the ranges given are always page-aligned) from a failed fault.
func populateUnsupported(err error) bool { return errors.Is(err, syscall.EINVAL) }

// adviseRandom turns off read-around for faults on b.
func adviseRandom(b []byte) { _ = syscall.Madvise(b, syscall.MADV_RANDOM) }

// adviseNormal gives b the default read-around back.
func adviseNormal(b []byte) { _ = syscall.Madvise(b, syscall.MADV_NORMAL) }

// adviseWillNeed asks the kernel to read b in ahead (warmMapedFileEnable).
func adviseWillNeed(b []byte) { _ = syscall.Madvise(b, syscall.MADV_WILLNEED) }
