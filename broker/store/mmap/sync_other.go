//go:build !linux

package mmap

import "os"

// syncRange falls back to fsync of the whole file where msync is not wired.
func syncRange(f *os.File, _ []byte, _, _ int) error { return f.Sync() }

// populateWrite is a no-op where MADV_POPULATE_WRITE does not exist.
func populateWrite([]byte) {}

// adviseRandom is a no-op where madvise is not wired.
func adviseRandom([]byte) {}
