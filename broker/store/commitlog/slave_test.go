package commitlog

import (
	"strings"
	"testing"
)

// TestCommitLogSlaveAppendAndTruncate: a slave copies the master's bytes in
// arbitrary chunks (AppendData), refuses a gap, and Truncate (HA: a tail
// that diverged from the master) cuts it so that later records are gone.
func TestCommitLogSlaveAppendAndTruncate(t *testing.T) {
	master := openLog(t, testConfig(t.TempDir(), 4096), nil)
	for i := 0; i < 40; i++ {
		mustPut(t, master, newMsg("H", 0, strings.Repeat("h", 200), ""))
	}
	slave := openLog(t, testConfig(t.TempDir(), 4096), nil)
	for off := int64(0); off < master.MaxOffset(); {
		b := master.GetData(off)
		chunk := b.Bytes[:min(len(b.Bytes), 1000)]
		if err := slave.AppendData(off, chunk); err != nil {
			t.Fatal(err)
		}
		off += int64(len(chunk))
		b.Release()
	}
	if slave.MaxOffset() != master.MaxOffset() {
		t.Fatalf("slave at %d, master %d", slave.MaxOffset(), master.MaxOffset())
	}
	if err := slave.AppendData(5, []byte("x")); err == nil {
		t.Fatal("gap accepted")
	}
	recs, end := records(t, slave, 0)
	if len(recs) != 40 || end != master.MaxOffset() {
		t.Fatalf("slave has %d records up to %d", len(recs), end)
	}
	cut := recs[30].CommitLogOffset
	if err := slave.Truncate(cut); err != nil {
		t.Fatal(err)
	}
	if slave.MaxOffset() != cut {
		t.Fatalf("after truncate %d want %d", slave.MaxOffset(), cut)
	}
	if _, err := slave.LookMessageByOffset(recs[31].CommitLogOffset); err == nil {
		t.Fatal("truncated record still readable")
	}
	if recs, end := records(t, slave, 0); len(recs) != 30 || end != cut {
		t.Fatalf("after truncate %d records up to %d", len(recs), end)
	}
}
