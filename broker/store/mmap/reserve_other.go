//go:build !linux

package mmap

import (
	"errors"
	"fmt"
	"os"
)

// reserve cannot preallocate here: fallocate(2) is Linux only.
func reserve(f *os.File, _ int64) error {
	return fmt.Errorf("%w: %s: %w", ErrReserveUnsupported, f.Name(), errors.ErrUnsupported)
}
