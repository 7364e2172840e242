package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrLocked is returned when another process holds the store lock
// (Java: "Lock failed,MQ already started").
var ErrLocked = errors.New("checkpoint: lock failed, MQ already started")

// CreateAbortFile creates the empty abort marker (store start).
func CreateAbortFile(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// RemoveAbortFile deletes the abort marker (orderly shutdown).
func RemoveAbortFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// AbortFileExists reports whether the last run ended abnormally.
func AbortFileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// FileLock is the held store lock.
type FileLock struct{ f *os.File }

// TryLock takes an exclusive, non-blocking lock on path (creating it with
// content "lock"); ErrLocked when another process holds it.
func TryLock(path string) (*FileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("%w: %s", ErrLocked, path)
	}
	if _, err := f.WriteAt([]byte("lock"), 0); err != nil {
		_ = f.Close()
		return nil, err
	}
	return &FileLock{f: f}, nil
}

// Unlock releases the lock.
func (l *FileLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	err := l.f.Close()
	l.f = nil
	return err
}
