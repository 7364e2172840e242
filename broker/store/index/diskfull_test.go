package index

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
)

func newDiskFullService(t *testing.T) (*Service, string) {
	t.Helper()
	dir := t.TempDir()
	s := NewService(Config{Dir: dir, HashSlotNum: 64, IndexNum: 1000, MaxMsgsNumBatch: 64}, nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = s.Shutdown() })
	return s, dir
}

// TestIndexFileBlocksReserved: a new index file is fully allocated, so that
// entries written later into its mapping cannot meet a full disk.
func TestIndexFileBlocksReserved(t *testing.T) {
	s, _ := newDiskFullService(t)
	if err := s.BuildIndex(&Request{Topic: "T", Keys: "k", CommitLogOffset: 1, StoreTimestamp: 1}); err != nil {
		t.Fatal(err)
	}
	f := s.Files()[0]
	var st syscall.Stat_t
	if err := syscall.Stat(f.Path, &st); err != nil {
		t.Fatal(err)
	}
	if size := int64(FileSize(64, 1000)); st.Blocks*512 < size {
		t.Fatalf("index file has %d bytes allocated, want >= %d", st.Blocks*512, size)
	}
}

// TestIndexFileReserveFailure: an index file that cannot be reserved is not
// created, BuildIndex reports it, and it works once space is back.
func TestIndexFileReserveFailure(t *testing.T) {
	s, dir := newDiskFullService(t)
	undo := mmap.InjectReserveError(dir, syscall.ENOSPC)
	err := s.BuildIndex(&Request{Topic: "T", Keys: "k", CommitLogOffset: 1, StoreTimestamp: 1})
	if !errors.Is(err, mmap.ErrReserve) {
		t.Fatalf("build index with the disk full: %v, want ErrReserve", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("unreserved index file left behind: %v", ents)
	}
	undo()
	if err := s.BuildIndex(&Request{Topic: "T", Keys: "k", CommitLogOffset: 1, StoreTimestamp: 1}); err != nil {
		t.Fatal(err)
	}
	if q := s.QueryOffset("T", "k", 4, 0, 2); len(q.PhyOffsets) != 1 {
		t.Fatalf("query after space returned: %v", q.PhyOffsets)
	}
}

// TestIndexFileFaultIsAnError truncates the index file under its mapping:
// writing the next entry faults (SIGBUS), which must come back from
// BuildIndex as an error instead of killing the process, with the header
// unchanged.
func TestIndexFileFaultIsAnError(t *testing.T) {
	s, _ := newDiskFullService(t)
	if err := s.BuildIndex(&Request{Topic: "T", Keys: "k0", CommitLogOffset: 1, StoreTimestamp: 1}); err != nil {
		t.Fatal(err)
	}
	path := s.Files()[0].Path
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var err error
	for i := 1; i < 1000 && err == nil; i++ { // entries reach the truncated pages
		err = s.BuildIndex(&Request{Topic: "T", Keys: "k" + strconv.Itoa(i), CommitLogOffset: int64(i + 1), StoreTimestamp: 1})
	}
	if !errors.Is(err, mmap.ErrFault) {
		t.Fatalf("build index into a truncated mapping: %v, want mmap.ErrFault", err)
	}
}
