package schedule

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
)

func goldenConfigDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("RMQ_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "golden")
	}
	dir = filepath.Join(dir, "store-clean", "store", "config")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("golden store not found: %v", err)
	}
	return dir
}

func TestScheduleParseDelayLevelDefault(t *testing.T) {
	got, err := ParseDelayLevel(DefaultMessageDelayLevel)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 3 * time.Minute, 4 * time.Minute, 5 * time.Minute, 6 * time.Minute,
		7 * time.Minute, 8 * time.Minute, 9 * time.Minute, 10 * time.Minute, 20 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour}
	if len(got) != len(want) {
		t.Fatalf("got %d levels", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("level %d: got %v want %v", i+1, got[i], want[i])
		}
	}
	if d, err := ParseDelayLevel("2d 90s"); err != nil || d[0] != 48*time.Hour || d[1] != 90*time.Second {
		t.Fatalf("days: %v %v", d, err)
	}
}

func TestScheduleParseDelayLevelRejects(t *testing.T) {
	for _, s := range []string{"", "1s  5s", "1x", "s", "1.5s", "1s 5"} {
		if _, err := ParseDelayLevel(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestScheduleQueueLevelMapping(t *testing.T) {
	for level := int32(1); level <= 18; level++ {
		q := DelayLevelToQueueID(level)
		if q != level-1 || QueueIDToDelayLevel(q) != level {
			t.Fatalf("level %d <-> queue %d", level, q)
		}
	}
}

func TestScheduleGoldenDelayOffsetRoundTrip(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join(goldenConfigDir(t), "delayOffset.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config", "delayOffset.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, golden, 0o644); err != nil {
		t.Fatal(err)
	}
	tab := NewOffsetTable(path, zaptest.NewLogger(t))
	if err := tab.Load(); err != nil {
		t.Fatal(err)
	}
	if off, ok := tab.Offset(2); !ok || off != 1 {
		t.Fatalf("level 2: %d %v", off, ok)
	}
	if err := tab.Persist(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, golden) {
		t.Fatalf("re-persisted differs:\n%q\n%q", got, golden)
	}
	bak, _ := os.ReadFile(path + ".bak")
	if !bytes.Equal(bak, golden) {
		t.Fatal(".bak must hold the previous content")
	}
}

func TestScheduleCorruptFileFallsBackToBak(t *testing.T) {
	path := filepath.Join(t.TempDir(), "delayOffset.json")
	tab := NewOffsetTable(path, zaptest.NewLogger(t))
	tab.UpdateOffset(1, 10)
	if err := tab.Persist(); err != nil {
		t.Fatal(err)
	}
	tab.UpdateOffset(1, 20)
	if err := tab.Persist(); err != nil { // .bak now holds offset 10
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"offsetTable":{1:`), 0o644); err != nil {
		t.Fatal(err)
	}
	again := NewOffsetTable(path, zaptest.NewLogger(t))
	if err := again.Load(); err != nil {
		t.Fatal(err)
	}
	if off, _ := again.Offset(1); off != 10 {
		t.Fatalf("want offset from .bak 10, got %d", off)
	}
}

func TestScheduleStoreRaw(t *testing.T) {
	path := filepath.Join(t.TempDir(), "delayOffset.json")
	tab := NewOffsetTable(path, zaptest.NewLogger(t))
	if err := tab.StoreRaw([]byte("garbage")); err == nil {
		t.Fatal("garbage accepted")
	}
	raw := []byte(`{"offsetTable":{3:7}}`)
	if err := tab.StoreRaw(raw); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, raw) {
		t.Fatalf("file %q", got)
	}
	if off, _ := tab.Offset(3); off != 7 {
		t.Fatalf("memory not updated: %d", off)
	}
	if got := string(tab.Encode()); got != `{"offsetTable":{3:7}}` {
		t.Fatalf("encode %s", got)
	}
}

func TestScheduleCorrectDelayOffset(t *testing.T) {
	tab := NewOffsetTable(filepath.Join(t.TempDir(), "d.json"), zaptest.NewLogger(t))
	tab.UpdateOffset(1, 5)  // in range
	tab.UpdateOffset(2, 1)  // below min 3
	tab.UpdateOffset(3, 99) // above max 10
	tab.UpdateOffset(4, 7)  // queue missing
	bounds := func(q int32) (int64, int64, bool) {
		if q == 3 {
			return 0, 0, false
		}
		return 3, 10, true
	}
	fixed := tab.CorrectDelayOffset(18, bounds)
	if len(fixed) != 2 || fixed[0] != 2 || fixed[1] != 3 {
		t.Fatalf("fixed %v", fixed)
	}
	want := map[int32]int64{1: 5, 2: 3, 3: 10, 4: 7}
	for l, w := range want {
		if got, _ := tab.Offset(l); got != w {
			t.Errorf("level %d: %d want %d", l, got, w)
		}
	}
}
