package consumequeue

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap"
)

// FuzzConsumeQueueRecover: arbitrary queue file content never makes
// recovery, reads, truncation or appends panic, and recovery keeps only
// leading valid units.
func FuzzConsumeQueueRecover(f *testing.F) {
	const fileSize = 10 * UnitSize
	f.Add(make([]byte, fileSize))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF})
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		dir := filepath.Join(root, "T", "0")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, fileSize)
		copy(b, data)
		if err := os.WriteFile(filepath.Join(dir, "00000000000000000000"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		cq := New(root, "T", 0, fileSize, zap.NewNop())
		defer cq.Shutdown()
		if err := cq.Load(); err != nil {
			t.Fatal(err)
		}
		if err := cq.Recover(); err != nil {
			t.Fatal(err)
		}
		max := cq.MaxOffsetInQueue()
		for i := int64(0); i < max; i++ {
			u := cq.Units(i)
			if u == nil {
				t.Fatalf("unit %d of %d unreadable", i, max)
			}
			if phy, size, _ := u.At(0); phy < 0 || size <= 0 {
				t.Fatalf("recovered an invalid unit %d: %d/%d", i, phy, size)
			}
			u.Release()
		}
		cq.CorrectMinOffset(1 << 40)
		_ = cq.LastOffset()
		_ = cq.OffsetInQueueByTime(5, 0, func(int64, int32) int64 { return 3 })
		_ = cq.TruncateDirtyLogicFiles(100)
		_, _ = cq.Put(cq.MaxPhysicOffset()+1, 10, 0, cq.MaxOffsetInQueue())
	})
}
