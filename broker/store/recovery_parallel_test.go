package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
)

// storeFiles reads every file under dir (relative path -> content).
func storeFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// indexContents is the content of the index files in name (creation)
// order; the names are creation times, so they differ between runs.
func indexContents(t testing.TB, dir string) [][]byte {
	files := storeFiles(t, dir)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([][]byte, len(names))
	for i, n := range names {
		out[i] = files[n]
	}
	return out
}

// putVaried writes messages i in [from, to) over 12 topics of 3 queues with
// several keys (some not ASCII, some shared), delayed, prepared and rolled
// back ones among them.
func putVaried(t testing.TB, s *DefaultMessageStore, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		keys := fmt.Sprintf("k%d shared%d", i, i%5)
		switch i % 4 {
		case 1:
			keys += " ключ" + itoa(int64(i%3))
		case 2:
			keys = ""
		}
		m := newMsg(fmt.Sprintf("PT%d", i%12), int32(i%3), "tag"+itoa(int64(i%7)), keys,
			bytes.Repeat([]byte{byte(i)}, 40+i%200))
		switch i % 23 {
		case 5:
			m.Properties[message.PropertyDelayTimeLevel] = itoa(int64(1 + i%18))
		case 9:
			m.SysFlag = message.SysFlagTransPrepared
		case 13:
			m.SysFlag = message.SysFlagTransRollback
		}
		m.PropertiesString = message.MarshalProperties(m.Properties)
		mustPut(t, s, m)
	}
}

// TestStoreRecoveryParallelMatchesOnline: after a crash with a zeroed
// checkpoint and a torn record, the abnormal recovery's parallel scan
// rebuilds consume queues and index files byte for byte as the dispatcher
// wrote them online up to the torn record, whatever the number of
// scanners and the batch size, with the consume queues deleted or kept
// (then holding units past the tear that must go).
func TestStoreRecoveryParallelMatchesOnline(t *testing.T) {
	cases := []struct {
		name           string
		workers, batch int
		keepCQ         bool
	}{
		{"serial", 1, 1, false},
		{"3x7", 3, 7, false},
		{"4x256", 4, 256, false},
		{"default", 0, 0, false},
		{"2x5-keepCQ", 2, 5, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := smallConfig(t) // 64 KiB CommitLog files, 20-unit CQ files, 64x256 index files
			s := startStore(t, cfg)
			putVaried(t, s, 0, 1500)
			waitDispatched(t, s)
			cut := s.MaxPhyOffset()
			wantCQ := storeFiles(t, cfg.ConsumeQueueDir())
			wantIndex := indexContents(t, cfg.IndexDir())
			putVaried(t, s, 1500, 1700)
			waitDispatched(t, s)
			shutdownStore(t, s)
			if len(wantIndex) < 3 || cut < 5*int64(cfg.MappedFileSizeCommitLog) {
				t.Fatalf("store too small to test: %d index files, %d bytes", len(wantIndex), cut)
			}

			tearRecord(t, cfg, cut)
			createAbortFile(t, cfg)
			writeCheckpoint(t, cfg, 0, 0, 0)
			if !tc.keepCQ {
				if err := os.RemoveAll(cfg.ConsumeQueueDir()); err != nil {
					t.Fatal(err)
				}
			}
			s2 := openStore(t, cfg, withRecoveryScan(tc.workers, tc.batch))
			if s2.abnormalScanFrom != 0 || s2.MaxPhyOffset() != cut {
				t.Fatalf("recovered from %d to %d, want 0 to %d", s2.abnormalScanFrom, s2.MaxPhyOffset(), cut)
			}
			if err := s2.Start(); err != nil {
				t.Fatal(err)
			}
			gotCQ := storeFiles(t, cfg.ConsumeQueueDir())
			for name, want := range wantCQ {
				if !bytes.Equal(gotCQ[name], want) {
					t.Errorf("consume queue file %s differs from the one written online", name)
				}
			}
			for name := range gotCQ {
				if _, ok := wantCQ[name]; !ok {
					t.Errorf("extra consume queue file %s", name)
				}
			}
			gotIndex := indexContents(t, cfg.IndexDir())
			if len(gotIndex) != len(wantIndex) {
				t.Fatalf("%d index files, want %d", len(gotIndex), len(wantIndex))
			}
			for i := range wantIndex {
				if !bytes.Equal(gotIndex[i], wantIndex[i]) {
					t.Errorf("index file %d differs from the one written online", i)
				}
			}
			if q := s2.QueryMessage("PT1", "ключ1", 32, 0, 1<<62); len(q.Messages) == 0 {
				t.Error("non-ASCII key not found after recovery")
			}
		})
	}
}
