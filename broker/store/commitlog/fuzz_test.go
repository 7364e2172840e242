package commitlog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
)

// FuzzRecoverCommitLog writes arbitrary bytes after the last good record
// (and optionally as the start of an extra file), recovers both ways and
// checks: no panic, no acknowledged record lost, the scan reaches exactly
// the recovered end, and appending afterwards works.
func FuzzRecoverCommitLog(f *testing.F) {
	tmpl := f.TempDir()
	cfg := testConfig(tmpl, 4096)
	offs, end := writeLog(f, cfg, 25)
	rec, _ := message.EncodeRecord(nil, newMsg("R", 0, "seed", ""))
	f.Add(rec, false, false)
	f.Add(rec[:40], true, true)
	f.Add([]byte{0, 0, 0, 8, 0xCB, 0xD4, 0x31, 0x94}, false, true)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xDA, 0xA3, 0x20, 0xA7}, true, false)
	f.Fuzz(func(t *testing.T, tail []byte, extraFile, abnormal bool) {
		dir := t.TempDir()
		ents, _ := os.ReadDir(tmpl)
		for _, e := range ents {
			copyFile(t, filepath.Join(tmpl, e.Name()), filepath.Join(dir, e.Name()))
		}
		path, pos := lastFile(t, dir, end, cfg.FileSize)
		patchFile(t, path, pos, tail[:min(len(tail), cfg.FileSize-pos)])
		if extraFile {
			next := end - end%4096 + 4096
			data := make([]byte, 4096)
			copy(data, tail)
			name := filepath.Join(dir, mmap.OffsetToFileName(next))
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c, res := openLog(t, testConfig(dir, 4096), nil, abnormal)
		if res.MaxOffset < end {
			t.Fatalf("recovered %d < acknowledged end %d", res.MaxOffset, end)
		}
		for _, off := range offs {
			if _, err := c.LookMessageByOffset(off); err != nil {
				t.Fatalf("offset %d lost: %v", off, err)
			}
		}
		if got := c.Scan(0, true, func(*DispatchRequest) bool { return true }); got != res.MaxOffset {
			t.Fatalf("scan ends at %d, recovered %d", got, res.MaxOffset)
		}
		if r := c.PutMessage(newMsg("R", 0, "after", "")); r.Status != PutOK {
			t.Fatalf("append after recovery: %v", r.Status)
		}
	})
}
