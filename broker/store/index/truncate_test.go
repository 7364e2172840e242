package index

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"testing"

	"go.uber.org/zap/zaptest"
)

// truncReq is record i of a synthetic CommitLog: 100 bytes each, stored at
// whole seconds (so a header's end time rebuilt from an entry's second
// resolution equals the exact one), with a key shared by all, one shared by
// every third record, and its own.
func truncReq(i int) *Request {
	return &Request{
		Topic:           "T",
		Keys:            "all k" + strconv.Itoa(i) + " third" + strconv.Itoa(i%3),
		UniqKey:         "U" + strconv.Itoa(i),
		CommitLogOffset: int64(i) * 100,
		StoreTimestamp:  1_700_000_000_000 + int64(i)*1000,
	}
}

func newTruncService(t *testing.T) *Service {
	t.Helper()
	s := NewService(Config{Dir: t.TempDir(), HashSlotNum: 5, IndexNum: 11}, nil, zaptest.NewLogger(t))
	if err := s.Load(true, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown() })
	return s
}

func buildRange(t *testing.T, s *Service, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if err := s.BuildIndex(truncReq(i)); err != nil {
			t.Fatal(err)
		}
	}
}

// sameFiles compares the bytes (header, slots, entries) of two services'
// files.
func sameFiles(t *testing.T, what string, got, want *Service) {
	t.Helper()
	if len(got.files) != len(want.files) {
		t.Fatalf("%s: %d files, want %d", what, len(got.files), len(want.files))
	}
	for i := range got.files {
		if !bytes.Equal(got.files[i].data, want.files[i].data) {
			t.Fatalf("%s: file %d differs: header %+v, want %+v", what, i, got.files[i].hdr, want.files[i].hdr)
		}
	}
}

// TestIndexTruncateEqualsNeverWritten: for every cut point, truncating an
// index leaves exactly the bytes an index that never saw the cut records
// has (slots back to their older chain heads, slot count, entry count and
// header), across file boundaries; and indexing the same tail again gives
// the same files as indexing it once.
func TestIndexTruncateEqualsNeverWritten(t *testing.T) {
	const n = 20 // 4 keys a record, 10 entries a file: 8 files
	for cut := 1; cut < n; cut++ {
		t.Run("cut"+strconv.Itoa(cut), func(t *testing.T) {
			a, b := newTruncService(t), newTruncService(t)
			buildRange(t, a, 0, n)
			buildRange(t, b, 0, cut)
			if err := a.Truncate(int64(cut) * 100); err != nil {
				t.Fatal(err)
			}
			sameFiles(t, "truncated", a, b)
			got := a.QueryOffset("T", "all", 64, 0, math.MaxInt64).PhyOffsets
			if len(got) != cut || slices.Max(got) != int64(cut-1)*100 {
				t.Fatalf("all finds %v", got)
			}
			buildRange(t, a, cut, n)
			buildRange(t, b, cut, n)
			sameFiles(t, "re-indexed", a, b)
		})
	}
}

// TestIndexTruncateEverything: cutting below the first record leaves one
// empty file that indexes new records from scratch.
func TestIndexTruncateEverything(t *testing.T) {
	s := newTruncService(t)
	buildRange(t, s, 0, 12)
	if err := s.Truncate(0); err != nil {
		t.Fatal(err)
	}
	if fs := s.Files(); len(fs) != 1 || fs[0].Header != (Header{IndexCount: 1}) {
		t.Fatalf("files after full truncation: %+v", fs)
	}
	if got := s.QueryOffset("T", "all", 64, 0, math.MaxInt64).PhyOffsets; len(got) != 0 {
		t.Fatalf("all finds %v", got)
	}
	buildRange(t, s, 0, 1)
	if got := s.QueryOffset("T", "k0", 64, 0, math.MaxInt64).PhyOffsets; !slices.Equal(got, []int64{0}) {
		t.Fatalf("k0 finds %v", got)
	}
}
