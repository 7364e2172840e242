//go:build linux

package commitlog

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/zap"
)

// footprint is what the process and the store directory cost, from
// /proc/self/status (RssFile, RssAnon), /proc/self/io (write_bytes: bytes
// this process dirtied for the disk, page-cache stores through a mapping
// included) and the allocated blocks of the directory's files (du).
type footprint struct {
	rssFile, rssAnon, written, du int64
}

func readFootprint(tb testing.TB, dir string) footprint {
	tb.Helper()
	var fp footprint
	fp.rssFile = procField(tb, "/proc/self/status", "RssFile:") << 10
	fp.rssAnon = procField(tb, "/proc/self/status", "RssAnon:") << 10
	fp.written = procField(tb, "/proc/self/io", "write_bytes:")
	fp.du = dirBlocks(tb, dir)
	return fp
}

// procField reads the number after key in a /proc file ("RssFile:  123 kB").
func procField(tb testing.TB, path, key string) int64 {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == key {
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return v
		}
	}
	tb.Fatalf("%s: no %s", path, key)
	return 0
}

// dirBlocks is the allocated size of the regular files under dir (du).
func dirBlocks(tb testing.TB, dir string) int64 {
	tb.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			return err
		}
		n += st.Blocks * 512
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkCommitLogFootprint writes 130 MB of 1 KiB messages into a fresh
// CommitLog with the default 1 GiB files (ASYNC_FLUSH, flush service
// running; started and idle before the first message, like a broker), waits for the background file preparation to settle, and
// reports what that cost the process and the disk, as differences from
// before the log was opened: rssfile-MB and rssanon-MB (resident file-backed
// and anonymous memory), written-MB (write_bytes) and du-MB (allocated
// blocks of the log's files, before shutdown). Run alone, once:
//
//	go test -run '^$' -bench CommitLogFootprint -benchtime 1x ./broker/store/commitlog
func BenchmarkCommitLogFootprint(b *testing.B) {
	const total = 130 << 20
	for i := 0; i < b.N; i++ {
		root := b.TempDir()
		before := readFootprint(b, root)
		dir := filepath.Join(root, "commitlog")
		cfg := DefaultConfig(dir)
		c := loadLog(b, cfg, nil, zap.NewNop(), 0)
		c.Start()
		// A broker is up for a moment before its first message: let the
		// start-up preparation of the first file finish.
		c.MappedFileQueue().AwaitPreallocated()
		m := newMsg("FootprintTopic", 0, strings.Repeat("f", benchBody), benchProps)
		for c.MaxOffset() < total {
			if r := c.PutMessage(m); r.Status != PutOK {
				b.Fatal(r.Status)
			}
		}
		c.MappedFileQueue().AwaitPreallocated()
		after := readFootprint(b, dir)
		if err := c.Shutdown(b.Context()); err != nil {
			b.Fatal(err)
		}
		const mb = 1 << 20
		b.ReportMetric(float64(c.MaxOffset())/mb, "msgs-MB")
		b.ReportMetric(float64(after.rssFile-before.rssFile)/mb, "rssfile-MB")
		b.ReportMetric(float64(after.rssAnon-before.rssAnon)/mb, "rssanon-MB")
		b.ReportMetric(float64(after.written-before.written)/mb, "written-MB")
		b.ReportMetric(float64(after.du)/mb, "du-MB")
	}
}
