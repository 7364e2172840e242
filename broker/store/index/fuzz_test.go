package index

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap"
)

// FuzzIndexCorruptFile: an index file with arbitrary content (torn or
// corrupted disk) never makes load, query or append panic.
func FuzzIndexCorruptFile(f *testing.F) {
	const slots, num = 8, 16
	size := FileSize(slots, num)
	f.Add(make([]byte, size))
	full := make([]byte, size)
	for i := range full {
		full[i] = 0xFF
	}
	f.Add(full)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0x7F, 0xFF, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		b := make([]byte, size)
		copy(b, data)
		if err := os.WriteFile(filepath.Join(dir, "20260101000000000"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		s := NewService(Config{Dir: dir, HashSlotNum: slots, IndexNum: num}, nil, zap.NewNop())
		if err := s.Load(true, 0); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"a", "b", "polygenelubricants"} {
			s.QueryOffset("T", k, 64, 0, math.MaxInt64)
			_ = s.BuildIndex(&Request{Topic: "T", Keys: k, CommitLogOffset: math.MaxInt64 / 2, StoreTimestamp: 1})
			s.QueryOffset("T", k, 64, math.MinInt64, math.MaxInt64)
		}
		_ = s.Shutdown()
	})
}
