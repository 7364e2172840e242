package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckpointGoldenFile(t *testing.T) {
	p := "/work/shared/golden/store-clean/store/checkpoint"
	if _, err := os.Stat(p); err != nil {
		t.Skip("golden store not available")
	}
	c, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.PhysicMsgTimestamp() != 1795969608103 || c.LogicsMsgTimestamp() != 1795969608103 ||
		c.IndexMsgTimestamp() != 1795969607957 {
		t.Fatalf("values %d %d %d", c.PhysicMsgTimestamp(), c.LogicsMsgTimestamp(), c.IndexMsgTimestamp())
	}
	if c.MinTimestamp() != 1795969608103-3000 || c.MinTimestampIndex() != 1795969605103 {
		t.Fatalf("min %d %d", c.MinTimestamp(), c.MinTimestampIndex())
	}
}

func TestCheckpointFlushReopenSameBytesAsJava(t *testing.T) {
	p := filepath.Join(t.TempDir(), "checkpoint")
	c, err := Open(p)
	if err != nil || c.PhysicMsgTimestamp() != 0 {
		t.Fatalf("fresh: %v", err)
	}
	c.SetPhysicMsgTimestamp(1795969608103)
	c.SetLogicsMsgTimestamp(1795969608103)
	c.SetIndexMsgTimestamp(1795969607957)
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if want, err := os.ReadFile("/work/shared/golden/store-clean/store/checkpoint"); err == nil && string(got) != string(want) {
		t.Fatal("bytes differ from the Java checkpoint")
	}
	if len(got) != FileSize {
		t.Fatalf("size %d", len(got))
	}
	c2, err := Open(p)
	if err != nil || c2.IndexMsgTimestamp() != 1795969607957 {
		t.Fatalf("reopen %v", err)
	}
	if err := os.WriteFile(p, []byte("short"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(p); !errors.Is(err, ErrShortFile) {
		t.Fatalf("short file: %v", err)
	}
}

func TestCheckpointAbortAndLock(t *testing.T) {
	dir := t.TempDir()
	abort := filepath.Join(dir, "abort")
	if AbortFileExists(abort) {
		t.Fatal("abort exists")
	}
	if err := CreateAbortFile(abort); err != nil || !AbortFileExists(abort) {
		t.Fatal("create abort")
	}
	if err := RemoveAbortFile(abort); err != nil || AbortFileExists(abort) {
		t.Fatal("remove abort")
	}
	lp := filepath.Join(dir, "lock")
	l, err := TryLock(lp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(lp); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: %v", err)
	}
	if b, _ := os.ReadFile(lp); string(b) != "lock" {
		t.Fatalf("lock content %q", b)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := TryLock(lp)
	if err != nil {
		t.Fatal(err)
	}
	_ = l2.Unlock()
}
