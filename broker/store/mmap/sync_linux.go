//go:build linux

package mmap

import (
	"os"
	"syscall"
)

// syncRange makes data[from:to] of the mapping of f durable. Linux writes
// back pages dirtied through a shared mapping on fdatasync, and measured
// group commits were about twice as fast with it as with msync(MS_SYNC) on
// the range (BenchmarkCommitLogSyncFlush, 16 and 128 writers), so the whole
// file is fdatasync'ed; only one file is written at a time, so the extra
// range is clean.
func syncRange(f *os.File, _ []byte, from, to int) error {
	if to <= from {
		return nil
	}
	return syscall.Fdatasync(int(f.Fd()))
}
