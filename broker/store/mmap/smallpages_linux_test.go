//go:build linux

package mmap

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping that starts at b's address
// (/proc/self/smaps).
func vmFlags(t *testing.T, b []byte) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(&b[0])))
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(strings.Fields(line)[0], "-") && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			in = strings.HasPrefix(line, start)
			continue
		}
		if v, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.Fields(v)
		}
	}
	t.Fatalf("no mapping at %s in /proc/self/smaps", start)
	return nil
}

// TestMappedFileSmallPagesUntilFull: a fresh file of a SmallPages queue
// (the SYNC_FLUSH CommitLog) is mapped without read-around while it is
// written, which keeps its page cache in small folios that a sync writes
// back page by page; once the writer leaves it (FinishWriting) it reads
// ahead again, for consumers reading it cold. Other queues keep the
// default.
func TestMappedFileSmallPagesUntilFull(t *testing.T) {
	for _, small := range []bool{false, true} {
		t.Run(fmt.Sprint("smallPages=", small), func(t *testing.T) {
			q := NewMappedFileQueue(t.TempDir(), 1<<20, QueueOptions{Preallocate: true, WarmAhead: 64 << 10, SmallPages: small}, nil)
			defer q.Shutdown()
			mf, err := q.LastMappedFileOrCreate(0)
			if err != nil {
				t.Fatal(err)
			}
			if err := mf.Append(make([]byte, 100)); err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(vmFlags(t, mf.Data()), "rr"); got != small {
				t.Fatalf("random-read advice while written: %v, want %v", got, small)
			}
			mf.FinishWriting()
			if slices.Contains(vmFlags(t, mf.Data()), "rr") {
				t.Fatal("random-read advice kept after the writer left the file")
			}
			// A file filled by Append (a slave copying the master's
			// bytes) gives read-around back by itself.
			q2 := NewMappedFileQueue(t.TempDir(), 1<<20, QueueOptions{Preallocate: true, WarmAhead: 64 << 10, SmallPages: small}, nil)
			defer q2.Shutdown()
			next, err := q2.LastMappedFileOrCreate(0)
			if err != nil {
				t.Fatal(err)
			}
			if err := next.Append(make([]byte, 1<<20-1)); err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(vmFlags(t, next.Data()), "rr"); got != small {
				t.Fatalf("random-read advice while written: %v, want %v", got, small)
			}
			if err := next.Append(make([]byte, 1)); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(vmFlags(t, next.Data()), "rr") {
				t.Fatal("random-read advice kept on a file filled by Append")
			}
		})
	}
}
