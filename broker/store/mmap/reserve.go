package mmap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"
)

// Reservation errors (see Reserve).
var (
	// ErrReserve: the blocks of a mapped file could not be allocated
	// (ENOSPC, EDQUOT, EFBIG...): the disk is full for this file.
	ErrReserve = errors.New("mmap: cannot reserve file blocks")
	// ErrReserveUnsupported: the filesystem cannot preallocate
	// (EOPNOTSUPP); the file stays sparse and its first stores may fault.
	ErrReserveUnsupported = errors.New("mmap: block reservation unsupported")
)

// Reserve makes sure every block of f's first size bytes is allocated, so
// that a later store through a shared mapping of f cannot meet ENOSPC (the
// kernel would answer a page fault it cannot back with SIGBUS). Files that
// are already fully allocated are left alone. It returns nil, an error
// wrapping ErrReserve, or one wrapping ErrReserveUnsupported.
func Reserve(f *os.File, size int64) error {
	if err := injectedReserveError(f.Name()); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrReserve, f.Name(), err)
	}
	return reserve(f, size)
}

// ReserveOnCreate reserves a file about to be mapped (mapped files and
// index files). A file this process just created (fresh) that cannot be
// reserved is removed, so that the next try starts again from scratch, and
// the error is returned; an existing file (loaded at start) stays usable:
// its writes are guarded (Guard), and the problem is kept for the owner to
// log (LogReserveProblem).
func ReserveOnCreate(f *os.File, path string, size int64, fresh bool) (fatal, soft error) {
	err := Reserve(f, size)
	switch {
	case err == nil:
		return nil, nil
	case errors.Is(err, ErrReserveUnsupported) || !fresh:
		return nil, err
	}
	if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return err, nil
}

// unsupportedWarned makes LogReserveProblem warn about EOPNOTSUPP once per
// process: every file of that filesystem would say the same.
var unsupportedWarned atomic.Bool

// LogReserveProblem logs a reservation problem kept on an opened file
// (nil: nothing to say).
func LogReserveProblem(lg *zap.Logger, path string, err error) {
	switch {
	case err == nil:
	case errors.Is(err, ErrReserveUnsupported):
		if unsupportedWarned.CompareAndSwap(false, true) {
			lg.Warn("filesystem cannot preallocate mapped files; a full disk may fail writes into them",
				zap.String("file", path), zap.Error(err))
		}
	default:
		lg.Warn("cannot reserve the blocks of an existing mapped file; writes into its holes may fail",
			zap.String("file", path), zap.Error(err))
	}
}

// Reservation failure injection, for tests of other packages that cannot
// fill a real filesystem: every Reserve of a file under a registered
// directory fails with the registered error.
var (
	injectMu  sync.RWMutex
	injectDir = map[string]error{}
	injectOn  atomic.Int32 // len(injectDir), read without the lock
)

// InjectReserveError makes Reserve fail with err for every file under dir
// until the returned function is called. For tests only; each test uses
// its own directory, so parallel tests do not see each other's failures.
func InjectReserveError(dir string, err error) (undo func()) {
	dir = filepath.Clean(dir)
	injectMu.Lock()
	injectDir[dir] = err
	injectOn.Store(int32(len(injectDir)))
	injectMu.Unlock()
	return func() {
		injectMu.Lock()
		delete(injectDir, dir)
		injectOn.Store(int32(len(injectDir)))
		injectMu.Unlock()
	}
}

func injectedReserveError(path string) error {
	if injectOn.Load() == 0 {
		return nil
	}
	injectMu.RLock()
	defer injectMu.RUnlock()
	for dir, err := range injectDir {
		if strings.HasPrefix(path, dir+string(filepath.Separator)) {
			return err
		}
	}
	return nil
}
