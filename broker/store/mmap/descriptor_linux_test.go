//go:build linux

package mmap

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"
)

func openDescriptors(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestMappedFileHoldsNoDescriptor: 300 mapped files hold no descriptor
// (pwrite mode excepted, which needs one), yet each is written, flushed,
// read back from disk, reloaded and deleted by path.
func TestMappedFileHoldsNoDescriptor(t *testing.T) {
	for _, m := range appendModes {
		t.Run(m.name, func(t *testing.T) {
			const files, size = 300, 8192
			root := t.TempDir()
			before := openDescriptors(t)
			qs := make([]*MappedFileQueue, files)
			for i := range qs {
				qs[i] = NewMappedFileQueue(filepath.Join(root, OffsetToFileName(int64(i))), size, m.opts, zaptest.NewLogger(t))
				mf, err := qs[i].LastMappedFileOrCreate(0)
				if err != nil {
					t.Fatal(err)
				}
				if err := mf.Append(bytes.Repeat([]byte{byte(i)}, 100)); err != nil {
					t.Fatal(err)
				}
				if _, err := qs[i].Flush(0); err != nil {
					t.Fatal(err)
				}
			}
			held := openDescriptors(t) - before
			want := 0
			if m.opts.AppendByWrite {
				want = files
			}
			if held < want || held > want+10 {
				t.Errorf("%d mapped files hold %d descriptors, want %d", files, held, want)
			}
			for i, q := range qs {
				if q.LastMappedFile().LastModified().IsZero() {
					t.Fatalf("file %d: no modification time", i)
				}
				q.Shutdown()
				b, err := os.ReadFile(filepath.Join(root, OffsetToFileName(int64(i)), OffsetToFileName(0)))
				if err != nil || len(b) != size || b[99] != byte(i) || b[100] != 0 {
					t.Fatalf("file %d on disk: %d bytes, %v", i, len(b), err)
				}
			}
			if n := openDescriptors(t) - before; n > 10 {
				t.Errorf("%d descriptors left after shutdown", n)
			}
			q := NewMappedFileQueue(filepath.Join(root, OffsetToFileName(7)), size, m.opts, zaptest.NewLogger(t))
			if err := q.Load(); err != nil || q.LastMappedFile() == nil || q.LastMappedFile().Data()[0] != 7 {
				t.Fatalf("reload: %v", err)
			}
			if err := q.Destroy(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(root, OffsetToFileName(7), OffsetToFileName(0))); !os.IsNotExist(err) {
				t.Fatalf("destroyed file still there: %v", err)
			}
		})
	}
}
