//go:build !linux

package mmap

import "os"

// syncRange falls back to fsync of the whole file where msync is not wired.
func syncRange(f *os.File, _ []byte, _, _ int) error { return f.Sync() }
