//go:build linux

package commitlog

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// residentBytes counts the pages of the mapping b that are in the page
// cache (mincore).
func residentBytes(t *testing.T, b []byte) int64 {
	t.Helper()
	vec := make([]byte, (len(b)+syscall.Getpagesize()-1)/syscall.Getpagesize())
	_, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	var n int64
	for _, v := range vec {
		n += int64(v & 1)
	}
	return n * int64(syscall.Getpagesize())
}

// TestCommitLogWarmWindowBounded: after 8 MB of 1 KiB messages into a
// fresh CommitLog with the default 1 GiB files, once the background work
// has settled, the process has dirtied for the disk (write_bytes) and the
// page cache holds (resident pages) the written bytes plus a bounded
// window, not a pre-filled gigabyte file; and the window ahead of the
// writer is warm. (Allocated blocks are not asserted: a block reservation
// for full-disk safety may allocate whole files without writing them.)
func TestCommitLogWarmWindowBounded(t *testing.T) {
	const written = 8 << 20
	const slack = 16 << 20 // the 4 MiB warm window ahead of the writer, with room
	dir := t.TempDir()
	w0 := procField(t, "/proc/self/io", "write_bytes:")
	c := openLog(t, DefaultConfig(dir), nil)
	c.MappedFileQueue().AwaitPreallocated() // the broker idles a moment after start
	m := newMsg("WarmTopic", 0, strings.Repeat("w", 1024), "")
	for c.MaxOffset() < written {
		mustPut(t, c, m)
	}
	c.MappedFileQueue().AwaitPreallocated()
	if w := procField(t, "/proc/self/io", "write_bytes:") - w0; w > written+slack {
		t.Errorf("%d MiB dirtied for the disk after %d MiB written", w>>20, written>>20)
	}
	var resident int64
	for _, mf := range c.MappedFileQueue().Files() {
		resident += residentBytes(t, mf.Data())
	}
	if resident > written+slack {
		t.Errorf("%d MiB of the log's files resident after %d MiB written", resident>>20, written>>20)
	}
	// The window ahead of the writer is write-faulted already: the file's
	// mapping has pages mapped past the write position (the writer asks
	// for a 4 MiB window whenever less than half of it is left).
	last := c.MappedFileQueue().LastMappedFile()
	if rss, want := vmaRSS(t, last.Data()), int64(last.WrotePosition())+1<<20; rss < want {
		t.Errorf("mapping of the last file has %d KiB resident, want at least %d KiB (the written bytes and a warm window)", rss>>10, want>>10)
	}
}

// vmaRSS is the Rss of the mapping that starts at b[0], from /proc/self/smaps.
func vmaRSS(t *testing.T, b []byte) int64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	start := strconv.FormatUint(uint64(uintptr(unsafe.Pointer(&b[0]))), 16) + "-"
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			in = strings.HasPrefix(line, start)
			continue
		}
		if f := strings.Fields(line); in && len(f) >= 2 && f[0] == "Rss:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no mapping at %s in /proc/self/smaps", start)
	return 0
}

// TestCommitLogWarmMappedFileWholeFile: warmMapedFileEnable keeps Java's
// warm-up: the file handed out is resident as a whole before the first
// append, not just a window.
func TestCommitLogWarmMappedFileWholeFile(t *testing.T) {
	const size = 16 << 20
	cfg := testConfig(t.TempDir(), size)
	cfg.WarmMappedFile = true
	c := openLog(t, cfg, nil)
	mustPut(t, c, newMsg("WarmWhole", 0, "x", ""))
	c.MappedFileQueue().AwaitPreallocated()
	if got := residentBytes(t, c.MappedFileQueue().LastMappedFile().Data()); got != size {
		t.Fatalf("%d KiB of the %d KiB file resident with warmMapedFileEnable", got>>10, size>>10)
	}
}
