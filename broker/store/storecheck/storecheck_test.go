package storecheck

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

func goldenStore(t *testing.T) string {
	t.Helper()
	g := os.Getenv("RMQ_GOLDEN_DIR")
	if g == "" {
		wd, _ := os.Getwd()
		for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				g = filepath.Join(filepath.Dir(d), "shared", "golden")
				break
			}
		}
	}
	src := filepath.Join(g, "store-clean", "store")
	if _, err := os.Stat(src); err != nil {
		t.Skip("golden data absent: set RMQ_GOLDEN_DIR or put it at ../shared/golden")
	}
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func goldenConfig(root string) Config {
	return Config{Root: root, CommitLogFileSize: 1 << 20, ConsumeQueueFileSize: 2000, HashSlotNum: 64, IndexNum: 256}
}

func TestStoreCheckGoldenIsConsistent(t *testing.T) {
	root := goldenStore(t)
	if errs := Check(goldenConfig(root)); len(errs) != 0 {
		t.Fatalf("golden store: %v", errs)
	}
}

func TestStoreCheckDetectsCorruption(t *testing.T) {
	root := goldenStore(t)
	cq := filepath.Join(root, "consumequeue", "StoreTopic", "1", "00000000000000000000")
	b, err := os.ReadFile(cq)
	if err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint64(b[12:], 12345) // wrong tags code of unit 0
	if err := os.WriteFile(cq, b, 0o644); err != nil {
		t.Fatal(err)
	}
	idx, _ := os.ReadDir(filepath.Join(root, "index"))
	ip := filepath.Join(root, "index", idx[0].Name())
	ib, _ := os.ReadFile(ip)
	binary.BigEndian.PutUint32(ib[40+64*4+20:], 7) // wrong key hash of entry 1
	if err := os.WriteFile(ip, ib, 0o644); err != nil {
		t.Fatal(err)
	}
	errs := Check(goldenConfig(root))
	if len(errs) != 2 {
		t.Fatalf("want 2 problems, got %v", errs)
	}
}
