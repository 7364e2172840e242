//go:build linux

package mmap

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// reserve allocates the missing blocks of f's first size bytes with
// fallocate(2) mode 0 (allocate, keep the size, leave written data alone).
// A file whose allocated blocks already cover size is skipped, so a
// restart does not walk the extents of every old file.
func reserve(f *os.File, size int64) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err == nil && st.Blocks*512 >= size {
		return nil
	}
	for {
		err := syscall.Fallocate(int(f.Fd()), 0, 0, size)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENOSYS):
			return fmt.Errorf("%w: %s: %w", ErrReserveUnsupported, f.Name(), err)
		}
		return fmt.Errorf("%w: %s: %w", ErrReserve, f.Name(), err)
	}
}
