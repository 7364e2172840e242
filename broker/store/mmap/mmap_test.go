package mmap

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
)

func TestMappedFileAppendFlushReopen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, OffsetToFileName(8192))
	mf, err := OpenMappedFile(p, 8192)
	if err != nil {
		t.Fatal(err)
	}
	if mf.FileFromOffset() != 8192 || filepath.Base(mf.FileName()) != "00000000000000008192" {
		t.Fatalf("name/offset %s %d", mf.FileName(), mf.FileFromOffset())
	}
	if !mf.AppendBytes([]byte("hello")) || mf.WrotePosition() != 5 {
		t.Fatal("append")
	}
	if mf.AppendBytes(make([]byte, 8192)) {
		t.Fatal("oversize append accepted")
	}
	if mf.IsAbleToFlush(1) {
		t.Fatal("flushable with less than one page")
	}
	if pos, err := mf.Flush(0); err != nil || pos != 5 || mf.FlushedPosition() != 5 {
		t.Fatalf("flush %d %v", pos, err)
	}
	mf.Close()
	b, err := os.ReadFile(p)
	if err != nil || len(b) != 8192 || string(b[:5]) != "hello" {
		t.Fatalf("file content %d %v", len(b), err)
	}
	if _, err := OpenMappedFile(filepath.Join(dir, "bad"), 4096); !errors.Is(err, ErrBadFileName) {
		t.Fatalf("bad name: %v", err)
	}
}

func TestMappedFileDestroyWaitsForHolders(t *testing.T) {
	mf, err := OpenMappedFile(filepath.Join(t.TempDir(), OffsetToFileName(0)), 4096)
	if err != nil {
		t.Fatal(err)
	}
	mf.AppendBytes([]byte("abc"))
	if !mf.Hold() {
		t.Fatal("hold")
	}
	if err := mf.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mf.FileName()); !os.IsNotExist(err) {
		t.Fatal("file still present")
	}
	if string(mf.Data()[:3]) != "abc" { // still mapped for the holder
		t.Fatal("mapping gone while held")
	}
	if mf.Hold() {
		t.Fatal("hold after destroy")
	}
	mf.Release()
}

func TestMappedFileQueueRollFindTruncate(t *testing.T) {
	for _, pre := range []bool{false, true} {
		dir := t.TempDir()
		q := NewMappedFileQueue(dir, 4096, QueueOptions{Preallocate: pre, Warm: pre}, zaptest.NewLogger(t))
		if q.MinOffset() != -1 || q.MaxOffset() != 0 {
			t.Fatal("empty offsets")
		}
		for i := 0; i < 3; i++ {
			mf, err := q.LastMappedFileOrCreate(0)
			if err != nil {
				t.Fatal(err)
			}
			if mf.FileFromOffset() != int64(i*4096) {
				t.Fatalf("file %d from %d", i, mf.FileFromOffset())
			}
			mf.AppendBytes(bytes.Repeat([]byte{byte('a' + i)}, 4096))
		}
		if f := q.FindMappedFileByOffset(5000, false); f == nil || f.FileFromOffset() != 4096 {
			t.Fatal("find 5000")
		}
		if q.FindMappedFileByOffset(99999, false) != nil || q.FindMappedFileByOffset(99999, true).FileFromOffset() != 0 {
			t.Fatal("find out of range")
		}
		if q.MaxOffset() != 3*4096 || q.TotalFileSize() != 3*4096 {
			t.Fatalf("max %d", q.MaxOffset())
		}
		for q.FlushedWhere() < q.MaxOffset() {
			if _, err := q.Flush(0); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.TruncateDirtyFiles(4096 + 100); err != nil {
			t.Fatal(err)
		}
		if len(q.Files()) != 2 || q.MaxOffset() != 4196 {
			t.Fatalf("after truncate: %d files max %d", len(q.Files()), q.MaxOffset())
		}
		if q.LastMappedFile().Data()[100] != 0 || q.LastMappedFile().Data()[99] != 'b' {
			t.Fatal("truncated tail not zeroed")
		}
		q.Shutdown()
		names, _ := os.ReadDir(dir)
		if len(names) != 2 {
			t.Fatalf("preallocated leftovers: %d files", len(names))
		}
		q2 := NewMappedFileQueue(dir, 4096, QueueOptions{}, zaptest.NewLogger(t))
		if err := q2.Load(); err != nil || len(q2.Files()) != 2 {
			t.Fatalf("reload %v", err)
		}
		if q2.DeleteExpiredFileByTime(time.Hour, 0, true, 10, math.MaxInt64) != 1 || q2.MinOffset() != 4096 {
			t.Fatal("delete by time")
		}
		q2.Shutdown()
	}
}

func TestMappedFileQueueLoadRejectsWrongSize(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, OffsetToFileName(0)), make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	q := NewMappedFileQueue(dir, 4096, QueueOptions{}, nil)
	if err := q.Load(); !errors.Is(err, ErrFileSize) {
		t.Fatalf("load: %v", err)
	}
}

// TestMappedFileWarmAheadQueue: with WarmAhead the next file is created in
// the background and the window ahead of the writer is kept warm; a fresh
// file handed out is all zero, and a file that already held data is never
// rewritten.
func TestMappedFileWarmAheadQueue(t *testing.T) {
	dir := t.TempDir()
	const size = 1 << 20
	// A leftover next file with data in it must keep its bytes.
	left := filepath.Join(dir, OffsetToFileName(2*size))
	if err := os.WriteFile(left, bytes.Repeat([]byte{7}, size), 0o644); err != nil {
		t.Fatal(err)
	}
	q := NewMappedFileQueue(dir, size, QueueOptions{Preallocate: true, WarmAhead: 64 << 10}, zaptest.NewLogger(t))
	defer q.Shutdown()
	for i := 0; i < 3; i++ {
		mf, err := q.LastMappedFileOrCreate(0)
		if err != nil {
			t.Fatal(err)
		}
		if mf.FileFromOffset() != int64(i)*size {
			t.Fatalf("file %d starts at %d", i, mf.FileFromOffset())
		}
		want := byte(0)
		if i == 2 {
			want = 7
		}
		for p := 0; p < size; p += OSPageSize {
			if mf.Data()[p] != want {
				t.Fatalf("file %d byte %d = %d, want %d", i, p, mf.Data()[p], want)
			}
		}
		if !mf.AppendBytes(bytes.Repeat([]byte{1}, size)) {
			t.Fatal("append")
		}
	}
}

// TestMappedFilePreallocateNextSkipped: a file prepared ahead for offset 0
// is deleted when the queue starts further on (a slave's first append), so
// no stray empty file is left before the real ones.
func TestMappedFilePreallocateNextSkipped(t *testing.T) {
	dir := t.TempDir()
	const size = 64 << 10
	q := NewMappedFileQueue(dir, size, QueueOptions{Preallocate: true, WarmAhead: 64 << 10}, zaptest.NewLogger(t))
	defer q.Shutdown()
	q.PreallocateNext(0)
	q.AwaitPreallocated()
	if _, err := os.Stat(filepath.Join(dir, OffsetToFileName(0))); err != nil {
		t.Fatalf("file 0 not prepared: %v", err)
	}
	mf, err := q.LastMappedFileOrCreate(3 * size)
	if err != nil || mf.FileFromOffset() != 3*size {
		t.Fatalf("create at 3*size: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, OffsetToFileName(0))); !os.IsNotExist(err) {
		t.Fatalf("stale prepared file 0 kept: %v", err)
	}
}

// TestMappedFileWarmAheadShutdownAndDelete: a queue shut down, or a file
// deleted, while the warmer may still be working on it neither faults nor
// loses written bytes.
func TestMappedFileWarmAheadShutdownAndDelete(t *testing.T) {
	const size = 1 << 20
	rec := bytes.Repeat([]byte{9}, 1000)
	for i := 0; i < 20; i++ {
		dir := t.TempDir()
		q := NewMappedFileQueue(dir, size, QueueOptions{Preallocate: true, WarmAhead: 512 << 10}, zaptest.NewLogger(t))
		q.PreallocateNext(0)
		for n := 0; n < 1200; n++ { // two files
			mf, err := q.LastMappedFileOrCreate(0)
			if err != nil {
				t.Fatal(err)
			}
			if mf.Append(rec) != nil {
				mf.SetWrotePosition(size) // full: the next call rolls
				n--
			}
		}
		want := 2
		if i%2 == 1 {
			if err := q.DeleteLastMappedFile(); err != nil {
				t.Fatal(err)
			}
			want = 1
		}
		q.Shutdown()
		q2 := NewMappedFileQueue(dir, size, QueueOptions{}, zaptest.NewLogger(t))
		if err := q2.Load(); err != nil || len(q2.Files()) != want {
			t.Fatalf("round %d: reload %d files, want %d: %v", i, len(q2.Files()), want, err)
		}
		if d := q2.FirstMappedFile().Data(); d[0] != 9 || d[1000*1000-1] != 9 {
			t.Fatalf("round %d: first file lost its bytes", i)
		}
		q2.Shutdown()
	}
}

// TestMappedFileQueueLoadDropsEmptyLastFile: a crash between creating a
// queue's next file and sizing it leaves an empty last file; it holds no
// data, so the load removes it instead of refusing to start (an empty file
// anywhere else is still an error).
func TestMappedFileQueueLoadDropsEmptyLastFile(t *testing.T) {
	dir := t.TempDir()
	q := NewMappedFileQueue(dir, 4096, QueueOptions{}, nil)
	mf, err := q.LastMappedFileOrCreate(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := mf.Append([]byte("kept")); err != nil {
		t.Fatal(err)
	}
	q.Shutdown()
	empty := filepath.Join(dir, OffsetToFileName(4096))
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	q = NewMappedFileQueue(dir, 4096, QueueOptions{}, nil)
	if err := q.Load(); err != nil {
		t.Fatalf("load with an empty last file: %v", err)
	}
	defer q.Shutdown()
	if n := len(q.Files()); n != 1 || string(q.Files()[0].Data()[:4]) != "kept" {
		t.Fatalf("%d files after load, want the one holding data", n)
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Fatalf("empty last file still there: %v", err)
	}

	// An empty file followed by another is not a creation cut short.
	q.Shutdown()
	if err := os.WriteFile(filepath.Join(dir, OffsetToFileName(0)), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	q = NewMappedFileQueue(dir, 4096, QueueOptions{}, nil)
	if err := q.Load(); !errors.Is(err, ErrFileSize) {
		t.Fatalf("load with an empty first file of two: %v, want ErrFileSize", err)
	}
}
