package index

import (
	"bufio"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/internal/wait"
)

func goldenDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("RMQ_GOLDEN_DIR"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			g := filepath.Join(filepath.Dir(d), "shared", "golden")
			if _, err := os.Stat(g); err == nil {
				return g
			}
			break
		}
	}
	t.Skip("golden data absent: set RMQ_GOLDEN_DIR or put it at ../shared/golden")
	return ""
}

// copyIndexDir copies the golden index files into a writable temp dir.
func copyIndexDir(t *testing.T, g string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(g, "store-clean", "store", "index")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type goldenMsg struct {
	phy          int64
	topic, keys  string
	uniq         string
	storeTS      int64
	sysFlag      int32
	kind, labelS string
}

func readGoldenMessages(t *testing.T, g string) []goldenMsg {
	t.Helper()
	f, err := os.Open(filepath.Join(g, "store-clean", "messages.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenMsg
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	sc.Scan()
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if c[4] == "" { // blank / end-of-data rows
			continue
		}
		phy, _ := strconv.ParseInt(c[0], 10, 64)
		ts, _ := strconv.ParseInt(c[19], 10, 64)
		sf, _ := strconv.ParseInt(c[13], 10, 32)
		out = append(out, goldenMsg{phy: phy, topic: c[4], keys: c[10], uniq: c[23], storeTS: ts,
			sysFlag: int32(sf), kind: c[8], labelS: c[9]})
	}
	return out
}

func newService(t *testing.T, dir string, slots, num int) *Service {
	t.Helper()
	s := NewService(Config{Dir: dir, HashSlotNum: slots, IndexNum: num, MaxMsgsNumBatch: 64}, nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = s.Shutdown() })
	return s
}

func TestIndexGoldenQuery(t *testing.T) {
	g := goldenDir(t)
	msgs := readGoldenMessages(t, g)
	s := newService(t, copyIndexDir(t, g), 64, 256)
	if err := s.Load(true, 0); err != nil {
		t.Fatal(err)
	}
	files := s.Files()
	if len(files) != 2 || files[0].Header.IndexCount != 256 || files[1].Header.IndexCount != 72 ||
		files[0].Header.HashSlotCount != 63 || files[1].Header.EndPhyOffset != 1377856 {
		t.Fatalf("headers: %+v", files)
	}
	checked := 0
	for _, m := range msgs {
		var keys []string
		if m.uniq != "" {
			keys = append(keys, m.uniq)
		}
		keys = append(keys, strings.Fields(m.keys)...)
		for _, k := range keys {
			res := s.QueryOffset(m.topic, k, 64, 0, math.MaxInt64)
			if !slices.Contains(res.PhyOffsets, m.phy) {
				t.Fatalf("%s#%s: %v lacks %d", m.topic, k, res.PhyOffsets, m.phy)
			}
			checked++
		}
	}
	if checked != 326 {
		t.Fatalf("checked %d keys, golden index holds 326", checked)
	}
	// time range excludes: key-3 was stored long before the end of the index
	res := s.QueryOffset("StoreTopic", "many-7", 64, files[1].Header.EndTimestamp+1000, math.MaxInt64)
	if len(res.PhyOffsets) != 0 || res.IndexLastUpdatePhyoffset != 1377856 {
		t.Fatalf("out of range query: %+v", res)
	}
}

func TestIndexGoldenAbnormalLoadDropsNewerFiles(t *testing.T) {
	g := goldenDir(t)
	s := newService(t, copyIndexDir(t, g), 64, 256)
	// checkpoint indexMsgTimestamp of the golden store = end of the first file
	if err := s.Load(false, 1795969607957); err != nil {
		t.Fatal(err)
	}
	if files := s.Files(); len(files) != 1 || files[0].Header.EndTimestamp != 1795969607957 {
		t.Fatalf("files after abnormal load: %+v", files)
	}
}

// TestIndexAbnormalLoadDeletesDroppedFiles: the files an abnormal load
// drops are gone once WaitRemoved returns, and a failure to delete one is
// reported there.
func TestIndexAbnormalLoadDeletesDroppedFiles(t *testing.T) {
	g := goldenDir(t)
	dir := copyIndexDir(t, g)
	s := newService(t, dir, 64, 256)
	if err := s.Load(false, 1795969607957); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitRemoved(); err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 1 || filepath.Join(dir, ents[0].Name()) != s.Files()[0].Path {
		t.Fatalf("index dir after abnormal load: %v %v", ents, err)
	}

	failing := newService(t, copyIndexDir(t, g), 64, 256)
	failing.remove = func(string) error { return os.ErrPermission }
	if err := failing.Load(false, 1795969607957); err != nil {
		t.Fatal(err)
	}
	if err := failing.WaitRemoved(); !errors.Is(err, os.ErrPermission) {
		t.Fatalf("WaitRemoved with a failing remove: %v", err)
	}
}

type fakeCkpt struct{ ts chan int64 }

func (c *fakeCkpt) SetIndexMsgTimestamp(v int64) { c.ts <- v }
func (c *fakeCkpt) Flush() error                 { return nil }

func TestIndexBuildRollQueryReopen(t *testing.T) {
	dir := t.TempDir()
	ck := &fakeCkpt{ts: make(chan int64, 16)}
	now := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.Local)
	s := NewService(Config{Dir: dir, HashSlotNum: 8, IndexNum: 10, Now: func() time.Time { return now }}, ck, zaptest.NewLogger(t))
	base := int64(1_700_000_000_000)
	for i := int64(0); i < 20; i++ {
		req := &Request{Topic: "T", Keys: "k" + strconv.FormatInt(i%5, 10) + " all", UniqKey: "U" + strconv.FormatInt(i, 10),
			CommitLogOffset: i * 100, StoreTimestamp: base + i*1000}
		if err := s.BuildIndex(req); err != nil {
			t.Fatal(err)
		}
	}
	// rollback records and already-indexed offsets are skipped
	_ = s.BuildIndex(&Request{Topic: "T", Keys: "rb", CommitLogOffset: 5000, StoreTimestamp: base, SysFlag: 0xC})
	_ = s.BuildIndex(&Request{Topic: "T", Keys: "old", CommitLogOffset: 0, StoreTimestamp: base})
	files := s.Files()
	// 60 keys, 9 entries per file
	if len(files) != 7 || filepath.Base(files[0].Path) != "20260102030405006" || filepath.Base(files[1].Path) != "20260102030405007" {
		t.Fatalf("files: %d %v", len(files), files[0].Path)
	}
	// the six full files are flushed in the background; the checkpoint
	// only moves forward and ends at the end of the last full file
	last := int64(0)
	for last != files[5].Header.EndTimestamp {
		select {
		case ts := <-ck.ts:
			if ts <= last {
				t.Fatalf("checkpoint went back from %d to %d", last, ts)
			}
			last = ts
		case <-time.After(wait.Scale(5 * time.Second)):
			t.Fatalf("checkpoint at %d, want %d", last, files[5].Header.EndTimestamp)
		}
	}
	check := func(s *Service) {
		t.Helper()
		res := s.QueryOffset("T", "k2", 64, 0, math.MaxInt64)
		slices.Sort(res.PhyOffsets)
		if !slices.Equal(res.PhyOffsets, []int64{200, 700, 1200, 1700}) {
			t.Fatalf("k2 -> %v", res.PhyOffsets)
		}
		if r := s.QueryOffset("T", "U13", 64, 0, math.MaxInt64); !slices.Equal(r.PhyOffsets, []int64{1300}) {
			t.Fatalf("U13 -> %v", r.PhyOffsets)
		}
		if r := s.QueryOffset("T", "all", 3, 0, math.MaxInt64); len(r.PhyOffsets) != 3 || r.PhyOffsets[0] != 1900 {
			t.Fatalf("all max 3 -> %v", r.PhyOffsets)
		}
		if r := s.QueryOffset("T", "rb", 64, 0, math.MaxInt64); len(r.PhyOffsets) != 0 {
			t.Fatalf("rollback indexed: %v", r.PhyOffsets)
		}
		r := s.QueryOffset("T", "all", 64, base+5000, base+8000)
		slices.Sort(r.PhyOffsets)
		if !slices.Equal(r.PhyOffsets, []int64{500, 600, 700, 800}) {
			t.Fatalf("time range -> %v", r.PhyOffsets)
		}
	}
	check(s)
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	s2 := newService(t, dir, 8, 10)
	if err := s2.Load(true, 0); err != nil {
		t.Fatal(err)
	}
	check(s2)
	s2.DeleteExpiredFile(1000)
	if n := len(s2.Files()); n != 4 {
		t.Fatalf("after delete expired: %d files", n)
	}
}

func TestIndexKeyHash(t *testing.T) {
	// "polygenelubricants".hashCode() == Integer.MIN_VALUE
	if KeyHash("polygenelubricants") != 0 {
		t.Fatal("MIN_VALUE hash must map to 0")
	}
	if KeyHash("a") != 97 || KeyHash("StoreTopic#key-3") < 0 {
		t.Fatal("bad hash")
	}
}

// TestIndexTopicKeyHash: hashing topic and key part by part equals hashing
// the built "topic#key" string, ASCII or not.
func TestIndexTopicKeyHash(t *testing.T) {
	cases := [][2]string{{"T", "k"}, {"StoreTopic", "key-3"}, {"", ""}, {"主题", "键"}, {"T", "é"},
		{"T\xff", "\xbf"}, {"polygenelubricant", "s"}, {"TopicTest", "7F0000010B1418B4AAC2069E71AE0000"}}
	for _, c := range cases {
		if got, want := topicKeyHash(c[0], c[1]), KeyHash(c[0]+"#"+c[1]); got != want {
			t.Errorf("topicKeyHash(%q, %q) = %d, want %d", c[0], c[1], got, want)
		}
	}
}

// TestIndexBuildAlternatingTopics: records of different topics (ASCII or
// not, the empty one too) interleaved, each found again by every key.
func TestIndexBuildAlternatingTopics(t *testing.T) {
	s := NewService(Config{Dir: t.TempDir(), HashSlotNum: 1024, IndexNum: 4096}, nil, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = s.Shutdown() })
	topics := []string{"A", "B", "主题", "", "A", "A", "C#x", "主题", "B"}
	base := int64(1_700_000_000_000)
	for i, topic := range topics {
		req := &Request{Topic: topic, Keys: "k" + strconv.Itoa(i) + " é" + strconv.Itoa(i), UniqKey: "U" + strconv.Itoa(i),
			CommitLogOffset: int64(i+1) * 100, StoreTimestamp: base + int64(i)}
		if err := s.BuildIndex(req); err != nil {
			t.Fatal(err)
		}
	}
	for i, topic := range topics {
		for _, k := range []string{"k" + strconv.Itoa(i), "é" + strconv.Itoa(i), "U" + strconv.Itoa(i)} {
			res := s.QueryOffset(topic, k, 8, 0, math.MaxInt64)
			if !slices.Contains(res.PhyOffsets, int64(i+1)*100) {
				t.Errorf("%q#%q: %v lacks %d", topic, k, res.PhyOffsets, (i+1)*100)
			}
		}
	}
}
