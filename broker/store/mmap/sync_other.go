//go:build !linux

package mmap

import (
	"errors"
	"os"
)

// syncRange falls back to fsync of the whole file, opened by path for the
// call, where msync is not wired (file pages and mapping pages are one
// cache on the BSDs and macOS).
func syncRange(path string, _ []byte, _, _ int) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// errNoPopulate: MADV_POPULATE_WRITE does not exist here.
var errNoPopulate = errors.New("mmap: populate not supported")

// populateWrite fails where MADV_POPULATE_WRITE does not exist.
func populateWrite([]byte) error { return errNoPopulate }

// populateUnsupported is always true here.
func populateUnsupported(error) bool { return true }

// adviseRandom is a no-op where madvise is not wired.
func adviseRandom([]byte) {}

// adviseNormal is a no-op where madvise is not wired.
func adviseNormal([]byte) {}

// adviseWillNeed is a no-op where madvise is not wired.
func adviseWillNeed([]byte) {}
