package store

// Crash tests of the store's recovery (recover.go): write a store, shut it
// down, damage the CommitLog tail (torn record, bad CRC, garbage file,
// wrong size) and/or leave the abort file and a chosen checkpoint behind,
// reopen with Open and assert what a client would see: the recovered end,
// every acknowledged message served, nothing beyond it served, appends
// continuing at the end; storecheck runs at cleanup.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/broker/store/checkpoint"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

// crashConfig is a fresh store with CommitLog files of fs bytes.
func crashConfig(t testing.TB, fs int) *MessageStoreConfig {
	cfg := smallConfig(t)
	cfg.MappedFileSizeCommitLog = fs
	return cfg
}

// writeStore puts n messages into queues 0..3 of topic R, shuts the store
// down cleanly and returns the put results and the CommitLog end.
func writeStore(t testing.TB, cfg *MessageStoreConfig, n int) ([]commitlog.PutMessageResult, int64) {
	t.Helper()
	s := startStore(t, cfg)
	res := writeQueues(t, s, n)
	end := s.MaxPhyOffset()
	shutdownStore(t, s)
	return res, end
}

// fileOf is the CommitLog file holding offset and the position in it.
func fileOf(cfg *MessageStoreConfig, offset int64) (string, int) {
	fs := int64(cfg.MappedFileSizeCommitLog)
	return filepath.Join(cfg.CommitLogDir(), mmap.OffsetToFileName(offset-offset%fs)), int(offset % fs)
}

func patchFile(t testing.TB, path string, at int, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, int64(at)); err != nil {
		t.Fatal(err)
	}
}

func createAbortFile(t testing.TB, cfg *MessageStoreConfig) {
	t.Helper()
	if err := checkpoint.CreateAbortFile(cfg.AbortPath()); err != nil {
		t.Fatal(err)
	}
}

// writeCheckpoint replaces the checkpoint file (physic, logics, index ms).
func writeCheckpoint(t testing.TB, cfg *MessageStoreConfig, physic, logics, index int64) {
	t.Helper()
	page := make([]byte, checkpoint.FileSize)
	binary.BigEndian.PutUint64(page[0:], uint64(physic))
	binary.BigEndian.PutUint64(page[8:], uint64(logics))
	binary.BigEndian.PutUint64(page[16:], uint64(index))
	if err := os.WriteFile(cfg.CheckpointPath(), page, 0o644); err != nil {
		t.Fatal(err)
	}
}

// walkLog walks the CommitLog with the store's record parser (CRC
// checked) from its min offset, following blank records, and returns the
// number of valid records and where the walk stopped.
func walkLog(t testing.TB, s *DefaultMessageStore) (int, int64) {
	t.Helper()
	n, off := 0, s.MinPhyOffset()
	for {
		buf := s.GetCommitLogData(off)
		if buf == nil {
			return n, off
		}
		next, more := walkBuffer(s, buf, &n)
		buf.Release()
		if !more || next == off {
			return n, next
		}
		off = next
	}
}

func walkBuffer(s *DefaultMessageStore, buf *commitlog.Buffer, n *int) (int64, bool) {
	pos := 0
	for pos < len(buf.Bytes) {
		at := buf.StartOffset + int64(pos)
		v, st := parseRecord(buf.Bytes[pos:], true)
		switch {
		case st == recordBlank:
			return s.CommitLog().RollNextFile(at), true
		case st != recordValid || v.commitLogOffset != at:
			return at, false
		}
		*n++
		pos += int(v.size)
	}
	return buf.StartOffset + int64(pos), true
}

// assertRecovered checks a store recovered to want: the acknowledged
// messages before want are all served at their queue offsets and nothing
// else is (exact queue max offsets), the log walks exactly to want, and a
// new message lands at want (or at the start of the next file).
func assertRecovered(t testing.TB, s *DefaultMessageStore, res []commitlog.PutMessageResult, want int64) {
	t.Helper()
	if s.MaxPhyOffset() != want {
		t.Fatalf("recovered max offset %d, want %d", s.MaxPhyOffset(), want)
	}
	kept := 0
	for kept < len(res) && res[kept].Append.WroteOffset < want {
		kept++
	}
	checkAllReadable(t, s, res[:kept])
	if n, end := walkLog(t, s); n != kept || end != want {
		t.Fatalf("log walk: %d records up to %d, want %d up to %d", n, end, kept, want)
	}
	q := int32(kept % 4)
	r := mustPut(t, s, newMsg("R", q, "", "after", []byte("after recovery")))
	fs := int64(s.cfg.MappedFileSizeCommitLog)
	if r.Append.WroteOffset != want && (r.Append.WroteOffset%fs != 0 || r.Append.WroteOffset < want) {
		t.Fatalf("append after recovery at %d, want %d", r.Append.WroteOffset, want)
	}
	if r.Append.LogicsOffset != int64(kept/4) {
		t.Fatalf("append after recovery got queue offset %d, want %d", r.Append.LogicsOffset, kept/4)
	}
	waitDispatched(t, s)
}

// TestStoreCrashTornTail: half a record (sane header, torn body) after the
// last good one is cut and zeroed, after a clean shutdown and a crash.
func TestStoreCrashTornTail(t *testing.T) {
	for _, abnormal := range []bool{false, true} {
		cfg := crashConfig(t, 8192)
		res, end := writeStore(t, cfg, 100)
		path, pos := fileOf(cfg, end)
		m := newMsg("R", 0, "", "", []byte(strings.Repeat("t", 500)))
		m.CommitLogOffset = end
		rec, err := message.EncodeRecord(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		torn := rec[:min(len(rec)/2, cfg.MappedFileSizeCommitLog-pos)]
		patchFile(t, path, pos, torn)
		if abnormal {
			createAbortFile(t, cfg)
		}
		s := startStore(t, cfg)
		if s.LastExitOK() == abnormal {
			t.Fatalf("abnormal=%v: lastExitOK %v", abnormal, s.LastExitOK())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.IndexFunc(b[pos:pos+len(torn)], func(r rune) bool { return r != 0 }); i >= 0 {
			t.Fatalf("abnormal=%v: torn byte at %d not cleared", abnormal, pos+i)
		}
		assertRecovered(t, s, res, end)
	}
}

// TestStoreCrashCorruptLastRecordCRC: a flipped body byte in the last
// record cuts the log before it; its queue unit is not served.
func TestStoreCrashCorruptLastRecordCRC(t *testing.T) {
	for _, abnormal := range []bool{false, true} {
		cfg := crashConfig(t, 8192)
		// A normal recovery leaves the index alone, as in Java; it would
		// keep pointing at the cut record.
		cfg.MessageIndexEnable = abnormal
		res, _ := writeStore(t, cfg, 50)
		last := res[len(res)-1].Append.WroteOffset
		path, pos := fileOf(cfg, last)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p := pos + message.PosBodyCRC + 80 // inside the body (born/store hosts are before it)
		patchFile(t, path, p, []byte{b[p] ^ 0xFF})
		if abnormal {
			createAbortFile(t, cfg)
		}
		s := startStore(t, cfg)
		lastQ := int32((len(res) - 1) % 4)
		if g := s.GetMessage("g", "R", lastQ, res[len(res)-1].Append.LogicsOffset, 1, nil); g.Status == Found {
			t.Fatalf("abnormal=%v: corrupt record served", abnormal)
		}
		assertRecovered(t, s, res, last)
	}
}

// TestStoreCrashAbortWithoutCheckpoint: abort file and no checkpoint: the
// walk starts at the first file and loses nothing.
func TestStoreCrashAbortWithoutCheckpoint(t *testing.T) {
	cfg := crashConfig(t, 8192)
	res, end := writeStore(t, cfg, 120)
	if err := os.Remove(cfg.CheckpointPath()); err != nil {
		t.Fatal(err)
	}
	createAbortFile(t, cfg)
	s := startStore(t, cfg)
	if s.LastExitOK() || s.abnormalScanFrom != 0 {
		t.Fatalf("lastExitOK %v, scan from %d, want a crash scanned from 0", s.LastExitOK(), s.abnormalScanFrom)
	}
	assertRecovered(t, s, res, end)
}

// TestStoreCrashAbortUsesCheckpoint: abort file with a checkpoint newer
// than every record: the walk starts at the last file.
func TestStoreCrashAbortUsesCheckpoint(t *testing.T) {
	cfg := crashConfig(t, 8192)
	res, end := writeStore(t, cfg, 120)
	writeCheckpoint(t, cfg, 1<<62, 1<<62, 1<<62)
	createAbortFile(t, cfg)
	s := startStore(t, cfg)
	lastStart := end - end%int64(cfg.MappedFileSizeCommitLog)
	if lastStart == 0 || s.abnormalScanFrom != lastStart {
		t.Fatalf("scan from %d, want %d (the last file)", s.abnormalScanFrom, lastStart)
	}
	assertRecovered(t, s, res, end)
}

// TestStoreCrashGarbageExtraFile: a garbage-filled file after the last one
// is deleted and nothing of it is served.
func TestStoreCrashGarbageExtraFile(t *testing.T) {
	for _, abnormal := range []bool{false, true} {
		cfg := crashConfig(t, 4096)
		res, end := writeStore(t, cfg, 30)
		next := end - end%4096 + 4096
		junk := []byte(strings.Repeat("\xde\xad\xbe\xef", 1024))
		path := filepath.Join(cfg.CommitLogDir(), mmap.OffsetToFileName(next))
		if err := os.WriteFile(path, junk, 0o644); err != nil {
			t.Fatal(err)
		}
		if abnormal {
			createAbortFile(t, cfg)
		}
		s := startStore(t, cfg)
		if n := len(s.CommitLog().MappedFileQueue().Files()); int64(n) != end/4096+1 {
			t.Fatalf("abnormal=%v: %d files left, want %d", abnormal, n, end/4096+1)
		}
		assertRecovered(t, s, res, end)
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, junk[:8]) {
			t.Fatalf("abnormal=%v: garbage file kept", abnormal)
		}
	}
}

// TestStoreCrashEmptyStore: an empty store recovers to 0 either way and
// takes messages.
func TestStoreCrashEmptyStore(t *testing.T) {
	for _, abnormal := range []bool{false, true} {
		cfg := crashConfig(t, 4096)
		if err := os.MkdirAll(cfg.StorePathRootDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if abnormal {
			createAbortFile(t, cfg)
		}
		s := startStore(t, cfg)
		if s.MaxPhyOffset() != 0 || s.MinPhyOffset() != 0 || s.LastExitOK() == abnormal {
			t.Fatalf("abnormal=%v: max %d min %d lastExitOK %v", abnormal, s.MaxPhyOffset(), s.MinPhyOffset(), s.LastExitOK())
		}
		assertRecovered(t, s, nil, 0)
	}
}

// TestStoreCrashWrongFileSize: a CommitLog file of the wrong size fails
// Open (as Java's load does) and leaves the directory unlocked.
func TestStoreCrashWrongFileSize(t *testing.T) {
	cfg := crashConfig(t, 4096)
	res, end := writeStore(t, cfg, 10)
	bad := filepath.Join(cfg.CommitLogDir(), mmap.OffsetToFileName(end-end%4096+4096))
	if err := os.WriteFile(bad, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(cfg, nil); !errors.Is(err, mmap.ErrFileSize) {
		t.Fatalf("open with a 1-byte CommitLog file: %v, want %v", err, mmap.ErrFileSize)
	}
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	s := startStore(t, cfg)
	assertRecovered(t, s, res, end)
}
