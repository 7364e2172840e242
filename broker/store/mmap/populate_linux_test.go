//go:build linux

package mmap

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"
)

// residentPages counts the pages of b in the page cache (mincore).
func residentPages(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+OSPageSize-1)/OSPageSize)
	_, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestMappedFilePopulateGrowsWithTheQueue: a ConsumeQueue-style queue that
// wrote one unit holds one page, not a whole populate chunk (5,000 topics
// × 8 queues written once held 2.6 GB of page cache with a fixed 64 KiB
// chunk); a queue that keeps writing is populated ahead in growing chunks.
func TestMappedFilePopulateGrowsWithTheQueue(t *testing.T) {
	q := NewMappedFileQueue(t.TempDir(), 1<<20, QueueOptions{PopulateAhead: true, Sparse: true}, nil)
	defer q.Shutdown()
	mf, err := q.LastMappedFileOrCreate(0)
	if err != nil {
		t.Fatal(err)
	}
	unit := make([]byte, 20)
	if err := mf.Append(unit); err != nil {
		t.Fatal(err)
	}
	if mf.populated == 0 {
		// populateFrom records the chunk even where MADV_POPULATE_WRITE is
		// unsupported, so zero means PopulateAhead was not applied at all.
		t.Fatal("PopulateAhead not applied to the mapping")
	}
	if got := residentPages(t, mf.Data()); got > 1 {
		t.Fatalf("%d pages resident after one 20-byte unit, want 1", got)
	}
	for mf.WrotePosition() < 256<<10 {
		if err := mf.Append(unit); err != nil {
			t.Fatal(err)
		}
	}
	if ahead := mf.populated - int(mf.WrotePosition()); ahead < 0 || ahead > populateChunk {
		t.Fatalf("populated to %d with %d written: want within one %d-byte chunk ahead", mf.populated, mf.WrotePosition(), populateChunk)
	}
}

// TestMappedFileSparseUnitNotTornOnFullDisk: a sparse queue's unit that
// spans into a page the full filesystem cannot give fails as a whole, with
// none of its bytes written (a half-written ConsumeQueue unit would be
// taken as valid by recovery, with a wrong tags code), and succeeds once
// space returns.
func TestMappedFileSparseUnitNotTornOnFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): needs root or CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	q := NewMappedFileQueue(filepath.Join(dir, "q"), 8*OSPageSize, QueueOptions{PopulateAhead: true, Sparse: true}, nil)
	defer q.Shutdown()
	mf, err := q.LastMappedFileOrCreate(0)
	if err != nil {
		t.Fatal(err)
	}
	unit := bytes.Repeat([]byte{0xAB}, 20)
	for mf.WrotePosition()+20 <= OSPageSize {
		if err := mf.Append(unit); err != nil {
			t.Fatal(err)
		}
	}
	pos := int(mf.WrotePosition()) // the next unit crosses into page 2
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := f.Write(make([]byte, OSPageSize)); err != nil {
			break
		}
	}
	f.Close()
	if err := mf.Append(unit); !errors.Is(err, ErrFault) {
		t.Fatalf("append across a page the full disk cannot give: %v, want ErrFault", err)
	}
	if int(mf.WrotePosition()) != pos {
		t.Fatalf("refused unit moved the write position to %d, want %d", mf.WrotePosition(), pos)
	}
	// Reading page 2 of a tmpfs file with the disk full faults too: look
	// once space is back.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mf.Data()[pos:OSPageSize], make([]byte, OSPageSize-pos)) {
		t.Fatalf("refused unit left bytes behind: % x", mf.Data()[pos:OSPageSize])
	}
	if err := mf.Append(unit); err != nil {
		t.Fatalf("append after space returned: %v", err)
	}
	if !bytes.Equal(mf.Data()[pos:pos+20], unit) {
		t.Fatal("unit not written after space returned")
	}
}
