package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

// FuzzRecoverCommitLog writes arbitrary bytes after the last acknowledged
// record of a cleanly shut down store (optionally also as the start of an
// extra CommitLog file, optionally with the abort file as after a crash),
// reopens it and checks what clients would see: no panic and Open
// succeeds; no acknowledged message lost (each served at its queue offset,
// readable by its physical offset); every record served by GetMessage
// decodes with a good CRC and lies below the recovered end; the log walks
// exactly to the recovered end; appending continues there; storecheck
// passes at cleanup.
func FuzzRecoverCommitLog(f *testing.F) {
	tmpl := crashConfig(f, 4096)
	res, end := writeStore(f, tmpl, 25)
	m := newMsg("R", 0, "", "", []byte("seed"))
	rec, _ := message.EncodeRecord(nil, m)
	f.Add(rec, false, false)
	f.Add(rec[:40], true, true)
	f.Add([]byte{0, 0, 0, 8, 0xCB, 0xD4, 0x31, 0x94}, false, true)                     // blank record
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xDA, 0xA3, 0x20, 0xA7}, true, false)         // magic, size -1
	f.Add([]byte{0, 0, 0x10, 0, 0xDA, 0xA3, 0x20, 0xA7, 1, 2, 3, 4, 5, 6}, true, true) // magic, size past the file
	f.Fuzz(func(t *testing.T, tail []byte, extraFile, abnormal bool) {
		cfg := crashConfig(t, 4096)
		if err := os.CopyFS(cfg.StorePathRootDir, os.DirFS(tmpl.StorePathRootDir)); err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(cfg.LockPath())
		path, pos := fileOf(cfg, end)
		patchFile(t, path, pos, tail[:min(len(tail), cfg.MappedFileSizeCommitLog-pos)])
		if extraFile {
			data := make([]byte, cfg.MappedFileSizeCommitLog)
			copy(data, tail)
			next := filepath.Join(cfg.CommitLogDir(), mmap.OffsetToFileName(end-end%4096+4096))
			if err := os.WriteFile(next, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if abnormal {
			createAbortFile(t, cfg)
		}
		s := startStore(t, cfg)
		maxOff := s.MaxPhyOffset()
		if maxOff < end {
			t.Fatalf("recovered %d < acknowledged end %d", maxOff, end)
		}
		for i, r := range res {
			g := s.GetMessage("g", "R", int32(i%4), r.Append.LogicsOffset, 1, nil)
			if g.Status != Found || len(s.SelectOneMessageByOffset(r.Append.WroteOffset)) == 0 {
				t.Fatalf("message %d lost: %v", i, g.Status)
			}
		}
		checkServedRecords(t, s, maxOff)
		if n, walked := walkLog(t, s); walked != maxOff || (maxOff == end && n != len(res)) {
			t.Fatalf("log walk: %d records up to %d, recovered %d", n, walked, maxOff)
		}
		if maxOff == end {
			assertRecovered(t, s, res, end)
		} else {
			mustPut(t, s, newMsg("R", 0, "", "", []byte("after")))
		}
	})
}

// checkServedRecords pulls every queue of topic R from 0: each record
// decodes with a good CRC, below maxOff, in its queue.
func checkServedRecords(t *testing.T, s *DefaultMessageStore, maxOff int64) {
	t.Helper()
	for q := int32(0); q < 4; q++ {
		for off := s.MinOffsetInQueue("R", q); off < s.MaxOffsetInQueue("R", q); off++ {
			g := s.GetMessage("g", "R", q, off, 1, nil)
			if g.Status != Found || len(g.Messages) != 1 {
				t.Fatalf("queue %d offset %d below max %d: %v", q, off, s.MaxOffsetInQueue("R", q), g.Status)
			}
			m, err := message.DecodeRecord(g.Messages[0], true)
			if err != nil || m.CommitLogOffset+int64(len(g.Messages[0])) > maxOff || m.QueueID != q || m.QueueOffset != off {
				t.Fatalf("queue %d offset %d serves a bad record (%v)", q, off, err)
			}
		}
	}
}
