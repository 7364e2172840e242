package mmap

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"testing"
)

// allocatedBytes is the space the filesystem allocated to path.
func allocatedBytes(t *testing.T, path string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// skipUnlessReservable skips where fallocate is not available for dir.
func skipUnlessReservable(t *testing.T, dir string) {
	t.Helper()
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := reserve(f, OSPageSize); errors.Is(err, ErrReserveUnsupported) {
		t.Skipf("filesystem of %s cannot preallocate: %v", dir, err)
	}
}

func TestMappedFileReserveNewFile(t *testing.T) {
	dir := t.TempDir()
	skipUnlessReservable(t, dir)
	const size = 256 << 10
	mf, err := OpenMappedFile(filepath.Join(dir, OffsetToFileName(0)), size)
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	if got := allocatedBytes(t, mf.FileName()); got < size {
		t.Fatalf("new mapped file has %d bytes allocated, want >= %d (sparse: stores may SIGBUS on a full disk)", got, size)
	}
	if mf.ReserveErr() != nil {
		t.Fatalf("reserve error %v", mf.ReserveErr())
	}
}

func TestMappedFileReserveExistingSparseFile(t *testing.T) {
	dir := t.TempDir()
	skipUnlessReservable(t, dir)
	const size = 256 << 10
	p := filepath.Join(dir, OffsetToFileName(0))
	if err := os.WriteFile(p, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, size); err != nil { // sparse after the first page
		t.Fatal(err)
	}
	mf, err := OpenMappedFile(p, size)
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	if got := allocatedBytes(t, p); got < size {
		t.Fatalf("existing sparse file has %d bytes allocated after open, want >= %d", got, size)
	}
	if string(mf.Data()[:4]) != "kept" {
		t.Fatalf("reservation changed the data: %q", mf.Data()[:4])
	}
}

func TestMappedFileReserveFailureRemovesNewFile(t *testing.T) {
	dir := t.TempDir()
	undo := InjectReserveError(dir, syscall.ENOSPC)
	q := NewMappedFileQueue(dir, 64<<10, QueueOptions{Preallocate: true, WarmAhead: 16 << 10}, nil)
	defer q.Shutdown()
	if _, err := q.LastMappedFileOrCreate(0); !errors.Is(err, ErrReserve) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("create with the disk full: %v, want ErrReserve wrapping ENOSPC", err)
	}
	q.AwaitPreallocated()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files left behind by failed reservations: %v", ents)
	}
	undo()
	mf, err := q.LastMappedFileOrCreate(0)
	if err != nil {
		t.Fatalf("create after space returned: %v", err)
	}
	if err := mf.Append([]byte("after")); err != nil {
		t.Fatal(err)
	}
}

// TestMappedFileFaultIsAnError truncates a mapped file underneath its
// mapping, so that a store into it raises SIGBUS; the write must come back
// as ErrFault and the process go on.
func TestMappedFileFaultIsAnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), OffsetToFileName(0))
	mf, err := OpenMappedFile(p, 4*OSPageSize)
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	if err := mf.Append([]byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	if err := mf.Append(make([]byte, 2*OSPageSize)); !errors.Is(err, ErrFault) {
		t.Fatalf("append into a truncated mapping: %v, want ErrFault", err)
	}
	if mf.WrotePosition() != 5 {
		t.Fatalf("failed append moved the write position to %d", mf.WrotePosition())
	}
	if mf.WriteAt([]byte("x"), OSPageSize) {
		t.Fatal("WriteAt into a truncated mapping reported success")
	}
	if err := mf.ZeroRange(0, OSPageSize); !errors.Is(err, ErrFault) {
		t.Fatalf("zero a truncated mapping: %v, want ErrFault", err)
	}
	if debug.SetPanicOnFault(false) {
		t.Fatal("Guard left SetPanicOnFault on")
	}
}

func TestMappedFileGuardPassesOtherPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want the original panic", r)
		}
		if debug.SetPanicOnFault(false) {
			t.Fatal("Guard left SetPanicOnFault on")
		}
	}()
	_ = Guard(func() { panic("boom") })
}

// BenchmarkMappedFileGuard measures what Guard adds to a store into a
// mapping: a 256-byte record copied with and without it.
func BenchmarkMappedFileGuard(b *testing.B) {
	mf, err := OpenMappedFile(filepath.Join(b.TempDir(), OffsetToFileName(0)), 1<<20)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(mf.Close)
	rec := make([]byte, 256)
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			copy(mf.data[i%4096*256:], rec)
		}
	})
	b.Run("guarded", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			pos := i % 4096 * 256
			if err := Guard(func() { copy(mf.data[pos:], rec) }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestMappedFileSparseQueueStaysSparse: a Sparse queue (the ConsumeQueue's)
// takes only the blocks it writes, as Java's sparse files do; reserving
// every file would hold 5.72 MB of disk per queue whatever its traffic.
func TestMappedFileSparseQueueStaysSparse(t *testing.T) {
	dir := t.TempDir()
	const size = 4 << 20
	q := NewMappedFileQueue(dir, size, QueueOptions{PopulateAhead: true, Sparse: true}, nil)
	defer q.Shutdown()
	mf, err := q.LastMappedFileOrCreate(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := mf.Append(make([]byte, 20)); err != nil {
		t.Fatal(err)
	}
	if got := allocatedBytes(t, mf.FileName()); got >= size/2 {
		t.Fatalf("sparse queue file has %d of %d bytes allocated after one 20-byte unit", got, size)
	}
}
