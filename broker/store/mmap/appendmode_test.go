package mmap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"
)

// appendModes are the QueueOptions append permutations every append test
// runs under: stores through the mapping, pwrite, and populate-ahead.
var appendModes = []struct {
	name string
	opts QueueOptions
}{
	{"mapping", QueueOptions{}},
	{"pwrite", QueueOptions{AppendByWrite: true}},
	{"populate", QueueOptions{PopulateAhead: true}},
}

// TestMappedFileAppendModes appends numbered 20-byte records across file
// and populate-chunk boundaries, reads them back through the mapping while
// writing, flushes, reopens and compares the files byte for byte.
func TestMappedFileAppendModes(t *testing.T) {
	const fileSize = 20 * 10_000 // 200,000 bytes: three 64 KiB chunks and a bit
	const records = 25_000       // two files and a half
	for _, m := range appendModes {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			q := NewMappedFileQueue(dir, fileSize, m.opts, zaptest.NewLogger(t))
			rec := make([]byte, 20)
			for i := 0; i < records; i++ {
				binary.BigEndian.PutUint64(rec, uint64(i)+1)
				mf, err := q.LastMappedFileOrCreate(int64(i) * 20)
				if err != nil {
					t.Fatal(err)
				}
				pos := int(mf.WrotePosition())
				if err := mf.Append(rec); err != nil {
					t.Fatalf("append %d: %v", i, err)
				}
				if got := mf.Data()[pos : pos+20]; !bytes.Equal(got, rec) {
					t.Fatalf("record %d reads back %x through the mapping", i, got)
				}
			}
			if _, err := q.Flush(0); err != nil {
				t.Fatal(err)
			}
			if q.MaxOffset() != records*20 {
				t.Fatalf("max offset %d", q.MaxOffset())
			}
			q.Shutdown()
			checkRecordFiles(t, dir, fileSize, records)
		})
	}
}

// checkRecordFiles reads the files from disk: record i holds i+1, the rest
// of the last file is zero.
func checkRecordFiles(t *testing.T, dir string, fileSize, records int) {
	t.Helper()
	for f := 0; f*fileSize < records*20; f++ {
		b, err := os.ReadFile(filepath.Join(dir, OffsetToFileName(int64(f*fileSize))))
		if err != nil || len(b) != fileSize {
			t.Fatalf("file %d: %d bytes, %v", f, len(b), err)
		}
		for p := 0; p < fileSize; p += 20 {
			i := (f*fileSize + p) / 20
			want := uint64(0)
			if i < records {
				want = uint64(i) + 1
			}
			if got := binary.BigEndian.Uint64(b[p:]); got != want {
				t.Fatalf("file %d pos %d: %d, want %d", f, p, got, want)
			}
		}
	}
}

// TestMappedFileAppendModesNoSpace: an append that does not fit is refused
// with ErrNoSpace and moves nothing, in every mode.
func TestMappedFileAppendModesNoSpace(t *testing.T) {
	for _, m := range appendModes {
		t.Run(m.name, func(t *testing.T) {
			q := NewMappedFileQueue(t.TempDir(), 8192, m.opts, zaptest.NewLogger(t))
			defer q.Shutdown()
			mf, err := q.LastMappedFileOrCreate(0)
			if err != nil {
				t.Fatal(err)
			}
			if err := mf.Append(make([]byte, 8000)); err != nil {
				t.Fatal(err)
			}
			if err := mf.Append(make([]byte, 200)); !errors.Is(err, ErrNoSpace) || mf.WrotePosition() != 8000 {
				t.Fatalf("overflow: %v at %d", err, mf.WrotePosition())
			}
			if !mf.WriteAt([]byte("xy"), 8190) || mf.WriteAt([]byte("xyz"), 8190) {
				t.Fatal("WriteAt bounds")
			}
			if string(mf.Data()[8190:]) != "xy" {
				t.Fatalf("WriteAt wrote %q", mf.Data()[8190:])
			}
		})
	}
}
