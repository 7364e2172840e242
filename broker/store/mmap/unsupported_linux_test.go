//go:build linux

package mmap

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestMappedFileReserveUnsupportedFallsBack runs on ramfs, which has no
// fallocate: files are still created and written, the problem is kept on
// each file and the queue warns about it once.
func TestMappedFileReserveUnsupportedFallsBack(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("ramfs", dir, "ramfs", 0, ""); err != nil {
		t.Skipf("cannot mount a ramfs here (%v): needs root or CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	unsupportedWarned.Store(false) // the once-per-process warning, for this test
	core, logs := observer.New(zap.WarnLevel)
	q := NewMappedFileQueue(filepath.Join(dir, "q"), 2*OSPageSize, QueueOptions{}, zap.New(core))
	defer q.Shutdown()
	for i := range 2 {
		mf, err := q.LastMappedFileOrCreate(0)
		if err != nil {
			t.Fatalf("file %d on a filesystem without fallocate: %v", i, err)
		}
		if !errors.Is(mf.ReserveErr(), ErrReserveUnsupported) {
			t.Fatalf("file %d reserve error %v, want ErrReserveUnsupported", i, mf.ReserveErr())
		}
		if err := mf.Append(make([]byte, 2*OSPageSize)); err != nil {
			t.Fatalf("write file %d: %v", i, err)
		}
	}
	if n := logs.FilterMessageSnippet("cannot preallocate").Len(); n != 1 {
		t.Fatalf("%d warnings about the missing fallocate, want exactly 1", n)
	}
}
