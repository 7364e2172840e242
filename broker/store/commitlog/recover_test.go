package commitlog

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/store/checkpoint"
	"github.com/rocketmq-go/rmq/internal/message"
)

// writeLog appends n messages across several small files, shuts down
// cleanly and returns the record offsets and the end.
func writeLog(t testing.TB, cfg Config, n int) ([]int64, int64) {
	t.Helper()
	c, err := New(cfg, nil, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Load(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RecoverNormally(); err != nil {
		t.Fatal(err)
	}
	c.Start()
	var offs []int64
	for i := 0; i < n; i++ {
		r := mustPut(t, c, newMsg("R", int32(i%3), strings.Repeat("r", 100+i), "KEYS\x01k"))
		offs = append(offs, r.Append.WroteOffset)
	}
	end := c.MaxOffset()
	if err := c.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return offs, end
}

func lastFile(t testing.TB, dir string, end int64, fs int) (string, int) {
	start := end - end%int64(fs)
	return filepath.Join(dir, strings.Repeat("0", 20-len(itoa(start)))+itoa(start)), int(end % int64(fs))
}

func patchFile(t testing.TB, path string, at int, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b, int64(at)); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
}

// assertAllReadable checks that every offset decodes and the scan stops
// exactly at want.
func assertRecovered(t *testing.T, c *CommitLog, offs []int64, want int64) {
	t.Helper()
	if c.MaxOffset() != want {
		t.Fatalf("max offset %d want %d", c.MaxOffset(), want)
	}
	for _, off := range offs {
		if off >= want {
			continue
		}
		if _, err := c.LookMessageByOffset(off); err != nil {
			t.Fatalf("offset %d lost: %v", off, err)
		}
	}
	n := 0
	if end := c.Scan(0, true, func(*DispatchRequest) bool { n++; return true }); end != want {
		t.Fatalf("scan end %d want %d", end, want)
	}
	// the log accepts appends after recovery and they land at the end
	r := mustPut(t, c, newMsg("R", 0, "after", ""))
	if r.Append.WroteOffset != want && r.Append.WroteOffset%int64(c.cfg.FileSize) != 0 {
		t.Fatalf("append after recovery at %d, want %d", r.Append.WroteOffset, want)
	}
}

func TestCommitLogCrashTornTail(t *testing.T) {
	for _, abnormal := range []bool{false, true} {
		dir := t.TempDir()
		cfg := testConfig(dir, 8192)
		offs, end := writeLog(t, cfg, 100)
		path, pos := lastFile(t, dir, end, cfg.FileSize)
		// half of a record written after the last good one: valid header, torn body
		rec, _ := message.EncodeRecord(nil, newMsg("R", 0, strings.Repeat("t", 500), ""))
		binary.BigEndian.PutUint64(rec[message.PosPhysOffset:], uint64(end))
		patchFile(t, path, pos, rec[:len(rec)/2])
		c, res := openLog(t, cfg, nil, abnormal)
		if res.MaxOffset != end {
			t.Fatalf("abnormal=%v recovered %d want %d", abnormal, res.MaxOffset, end)
		}
		b, _ := os.ReadFile(path)
		for i := pos; i < pos+len(rec)/2; i++ {
			if b[i] != 0 {
				t.Fatalf("torn byte at %d not cleared", i)
			}
		}
		assertRecovered(t, c, offs, end)
	}
}

func TestCommitLogCrashCorruptLastRecordCRC(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir, 8192)
	offs, end := writeLog(t, cfg, 50)
	last := offs[len(offs)-1]
	path, _ := lastFile(t, dir, last, cfg.FileSize)
	// flip a body byte of the last record (body starts at 84+4)
	b, _ := os.ReadFile(path)
	p := int(last%int64(cfg.FileSize)) + 90
	patchFile(t, path, p, []byte{b[p] ^ 0xFF})
	c, res := openLog(t, cfg, nil, true)
	if res.MaxOffset != last {
		t.Fatalf("recovered %d want %d (end was %d)", res.MaxOffset, last, end)
	}
	assertRecovered(t, c, offs[:len(offs)-1], last)
}

func TestCommitLogCrashAbortWithoutCheckpoint(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir, 8192)
	offs, end := writeLog(t, cfg, 120)
	cp, err := checkpoint.Open(filepath.Join(t.TempDir(), "missing-checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	c, res := openLog(t, cfg, cp, true)
	if res.StartOffset != 0 || res.MaxOffset != end {
		t.Fatalf("recover %+v want start 0 end %d", res, end)
	}
	assertRecovered(t, c, offs, end)
}

func TestCommitLogCrashAbortUsesCheckpoint(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir, 8192)
	offs, end := writeLog(t, cfg, 120)
	cp, _ := checkpoint.Open(filepath.Join(t.TempDir(), "cp"))
	cp.SetPhysicMsgTimestamp(1 << 62)
	cp.SetLogicsMsgTimestamp(1 << 62)
	c, res := openLog(t, cfg, cp, true)
	lastStart := end - end%int64(cfg.FileSize)
	if res.StartOffset != lastStart || res.MaxOffset != end {
		t.Fatalf("recover %+v want start %d end %d", res, lastStart, end)
	}
	assertRecovered(t, c, offs, end)
}

func TestCommitLogCrashGarbageAfterBlankAndExtraFile(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir, 4096)
	offs, end := writeLog(t, cfg, 30)
	// an extra, garbage-filled file after the last one
	next := end - end%4096 + 4096
	junk := []byte(strings.Repeat("\xde\xad\xbe\xef", 1024))
	if err := os.WriteFile(filepath.Join(dir, strings.Repeat("0", 20-len(itoa(next)))+itoa(next)), junk, 0o644); err != nil {
		t.Fatal(err)
	}
	c, res := openLog(t, cfg, nil, false)
	if res.MaxOffset != end {
		t.Fatalf("recovered %d want %d", res.MaxOffset, end)
	}
	if n := len(c.MappedFileQueue().Files()); int64(n) != end/4096+1 {
		t.Fatalf("%d files left", n)
	}
	assertRecovered(t, c, offs, end)
}

func TestCommitLogRecoverEmptyAndWrongSize(t *testing.T) {
	dir := t.TempDir()
	c, res := openLog(t, testConfig(dir, 4096), nil, true)
	if res.MaxOffset != 0 || c.MaxOffset() != 0 || c.MinOffset() != 0 {
		t.Fatalf("empty: %+v", res)
	}
	_ = c.Shutdown(context.Background())
	if err := os.WriteFile(filepath.Join(dir, "00000000000000004096"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c2, _ := New(testConfig(dir, 4096), nil, nil)
	if err := c2.Load(); err == nil {
		t.Fatal("wrong-size file loaded")
	}
}

func TestCommitLogSlaveAppendAndTruncate(t *testing.T) {
	mcfg := testConfig(t.TempDir(), 4096)
	master, _ := openLog(t, mcfg, nil, false)
	for i := 0; i < 40; i++ {
		mustPut(t, master, newMsg("H", 0, strings.Repeat("h", 200), ""))
	}
	slave, _ := openLog(t, testConfig(t.TempDir(), 4096), nil, false)
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
	var offs []int64
	slave.Scan(0, true, func(d *DispatchRequest) bool { offs = append(offs, d.CommitLogOffset); return true })
	if len(offs) != 40 {
		t.Fatalf("slave has %d records", len(offs))
	}
	cut := offs[30]
	if err := slave.Truncate(cut); err != nil {
		t.Fatal(err)
	}
	if slave.MaxOffset() != cut {
		t.Fatalf("after truncate %d want %d", slave.MaxOffset(), cut)
	}
	if _, err := slave.LookMessageByOffset(offs[31]); err == nil {
		t.Fatal("truncated record still readable")
	}
}
