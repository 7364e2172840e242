package consumequeue

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"
)

// goldenDir finds /work/shared/golden (env RMQ_GOLDEN_DIR or ../shared/golden
// from the repo root) or skips the test.
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

type goldenUnit struct {
	topic           string
	queueID, offset int64
	phy, size, tags int64
}

func readGoldenUnits(t *testing.T, path string) []goldenUnit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenUnit
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		n := func(i int) int64 { v, _ := strconv.ParseInt(c[i], 10, 64); return v }
		out = append(out, goldenUnit{c[0], n(1), n(2), n(3), n(4), n(5)})
	}
	return out
}

func TestConsumeQueueGoldenUnits(t *testing.T) {
	g := goldenDir(t)
	units := readGoldenUnits(t, filepath.Join(g, "store-clean", "consumequeue.tsv"))
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join(g, "store-clean", "store", "consumequeue"))); err != nil {
		t.Fatal(err)
	}
	chmodWritable(t, root)
	queues := map[string]*ConsumeQueue{}
	for _, u := range units {
		key := u.topic + "/" + strconv.FormatInt(u.queueID, 10)
		cq := queues[key]
		if cq == nil {
			cq = New(root, u.topic, int32(u.queueID), 2000, zaptest.NewLogger(t))
			if err := cq.Load(); err != nil {
				t.Fatal(err)
			}
			if err := cq.Recover(); err != nil {
				t.Fatal(err)
			}
			queues[key] = cq
			t.Cleanup(cq.Shutdown)
		}
		v := cq.Units(u.offset)
		if v == nil {
			t.Fatalf("%s offset %d: no units", key, u.offset)
		}
		phy, size, tags := v.At(0)
		v.Release()
		if phy != u.phy || int64(size) != u.size || tags != u.tags {
			t.Fatalf("%s offset %d: got %d/%d/%d want %d/%d/%d", key, u.offset, phy, size, tags, u.phy, u.size, u.tags)
		}
	}
	many := queues["StoreManyTopic/0"]
	if many.MaxOffsetInQueue() != 120 || many.FileCount() != 2 {
		t.Fatalf("StoreManyTopic max %d files %d", many.MaxOffsetInQueue(), many.FileCount())
	}
}

// chmodWritable makes a copied golden tree writable (the originals are 0444).
func chmodWritable(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return os.Chmod(p, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func newQueue(t *testing.T, dir string, fileSize int) *ConsumeQueue {
	t.Helper()
	cq := New(dir, "T", 1, fileSize, zaptest.NewLogger(t))
	if err := cq.Load(); err != nil {
		t.Fatal(err)
	}
	if err := cq.Recover(); err != nil {
		t.Fatal(err)
	}
	return cq
}

func mustPut(t *testing.T, cq *ConsumeQueue, phy int64, size int32, tags, off int64) {
	t.Helper()
	ok, err := cq.Put(phy, size, tags, off)
	if err != nil || !ok {
		t.Fatalf("put %d: %v %v", off, ok, err)
	}
}

func TestConsumeQueuePutReadRecover(t *testing.T) {
	dir := t.TempDir()
	cq := newQueue(t, dir, 5*UnitSize)
	for i := int64(0); i < 12; i++ {
		mustPut(t, cq, i*100, 100, i, i)
	}
	// duplicates (re-dispatch) are ignored
	mustPut(t, cq, 500, 100, 5, 5)
	if cq.MaxOffsetInQueue() != 12 || cq.FileCount() != 3 || cq.MaxPhysicOffset() != 1200 {
		t.Fatalf("max %d files %d maxPhy %d", cq.MaxOffsetInQueue(), cq.FileCount(), cq.MaxPhysicOffset())
	}
	u := cq.Units(7)
	if u == nil || u.Len() != 3 || u.StartOffset != 7*UnitSize {
		t.Fatalf("units(7) = %+v", u)
	}
	if phy, size, tags := u.At(2); phy != 900 || size != 100 || tags != 9 {
		t.Fatalf("unit 9 = %d %d %d", phy, size, tags)
	}
	u.Release()
	if cq.Units(12) != nil {
		t.Fatal("units beyond max")
	}
	if cq.LastOffset() != 1200 {
		t.Fatalf("last offset %d", cq.LastOffset())
	}
	if _, err := cq.Flush(0); err != nil {
		t.Fatal(err)
	}
	cq.Shutdown()

	// torn tail: garbage (invalid unit) then a stale valid unit
	f := filepath.Join(dir, "T", "1", "00000000000000000200")
	b, _ := os.ReadFile(f)
	b[40+8] = 0 // unit 12: size 0 => invalid
	copy(b[60:], b[0:20])
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cq = newQueue(t, dir, 5*UnitSize)
	defer cq.Shutdown()
	if cq.MaxOffsetInQueue() != 12 || cq.MaxPhysicOffset() != 1200 {
		t.Fatalf("recovered max %d maxPhy %d", cq.MaxOffsetInQueue(), cq.MaxPhysicOffset())
	}
	mustPut(t, cq, 1200, 100, 12, 12)
	if cq.MaxOffsetInQueue() != 13 {
		t.Fatalf("after put max %d", cq.MaxOffsetInQueue())
	}
}

func TestConsumeQueueFillPreBlank(t *testing.T) {
	cq := newQueue(t, t.TempDir(), 5*UnitSize)
	defer cq.Shutdown()
	mustPut(t, cq, 1000, 50, 0, 7)
	if cq.MinOffsetInQueue() != 7 || cq.MaxOffsetInQueue() != 8 {
		t.Fatalf("min %d max %d", cq.MinOffsetInQueue(), cq.MaxOffsetInQueue())
	}
	if cq.Units(6) != nil {
		t.Fatal("offset below min readable")
	}
	// the blank units before 7 in the same file are {0, MaxInt32, 0}
	mf := cq.q.FirstMappedFile()
	if mf.FileFromOffset() != 5*UnitSize {
		t.Fatalf("first file at %d", mf.FileFromOffset())
	}
	phy, size, tags := decodeUnit(mf.Data()[UnitSize:])
	if phy != 0 || size != math.MaxInt32 || tags != 0 {
		t.Fatalf("blank = %d %d %d", phy, size, tags)
	}
}

func TestConsumeQueueTruncateDirty(t *testing.T) {
	cq := newQueue(t, t.TempDir(), 4*UnitSize)
	defer cq.Shutdown()
	for i := int64(0); i < 10; i++ {
		mustPut(t, cq, i*10, 10, 0, i)
	}
	if err := cq.TruncateDirtyLogicFiles(55); err != nil {
		t.Fatal(err)
	}
	// units 0..5 point below 55 (unit 5 = 50..60 starts below 55)
	if cq.MaxOffsetInQueue() != 6 || cq.MaxPhysicOffset() != 60 || cq.FileCount() != 2 {
		t.Fatalf("max %d maxPhy %d files %d", cq.MaxOffsetInQueue(), cq.MaxPhysicOffset(), cq.FileCount())
	}
	if err := cq.TruncateDirtyLogicFiles(40); err != nil {
		t.Fatal(err)
	}
	if cq.MaxOffsetInQueue() != 4 || cq.FileCount() != 1 {
		t.Fatalf("max %d files %d", cq.MaxOffsetInQueue(), cq.FileCount())
	}
	mustPut(t, cq, 40, 10, 0, 4)
	if cq.MaxOffsetInQueue() != 5 {
		t.Fatalf("max %d", cq.MaxOffsetInQueue())
	}
}

func TestConsumeQueueDeleteExpiredAndMinOffset(t *testing.T) {
	cq := newQueue(t, t.TempDir(), 4*UnitSize)
	defer cq.Shutdown()
	for i := int64(0); i < 10; i++ {
		mustPut(t, cq, i*10, 10, 0, i)
	}
	if n := cq.DeleteExpiredFile(45); n != 1 {
		t.Fatalf("deleted %d files", n)
	}
	if cq.MinOffsetInQueue() != 5 {
		t.Fatalf("min %d", cq.MinOffsetInQueue())
	}
	if cq.Units(4) != nil {
		t.Fatal("unit 4 still readable")
	}
	if u := cq.Units(5); u == nil {
		t.Fatal("unit 5 unreadable")
	} else {
		u.Release()
	}
	if cq.RollNextFile(5) != 8 {
		t.Fatalf("roll %d", cq.RollNextFile(5))
	}
}

func TestConsumeQueueOffsetByTime(t *testing.T) {
	cq := newQueue(t, t.TempDir(), 100*UnitSize)
	defer cq.Shutdown()
	times := map[int64]int64{}
	for i := int64(0); i < 10; i++ {
		mustPut(t, cq, i*10, 10, 0, i)
		times[i*10] = 1000 + i*100 // store time of message i
	}
	st := func(phy int64, _ int32) int64 { return times[phy] }
	cases := []struct{ ts, want int64 }{
		{1000, 0}, {1300, 3}, {1340, 3}, {1360, 4}, {500, 0}, {99999, 9},
	}
	for _, c := range cases {
		if got := cq.OffsetInQueueByTime(c.ts, 0, st); got != c.want {
			t.Errorf("ts %d: got %d want %d", c.ts, got, c.want)
		}
	}
	// units below the CommitLog minimum count as older
	if got := cq.OffsetInQueueByTime(1000, 50, st); got != 5 {
		t.Errorf("with min phy: got %d", got)
	}
	bad := func(int64, int32) int64 { return -1 }
	if got := cq.OffsetInQueueByTime(1300, 0, bad); got != 0 {
		t.Errorf("unreadable: got %d", got)
	}
}

// TestConsumeQueueFillPreBlankManyChunks starts a queue past several blank
// chunks of one file and many pages in: every unit before the first is a
// blank, the written units read back, and a reopened queue recovers them.
func TestConsumeQueueFillPreBlankManyChunks(t *testing.T) {
	const fileSize, first = 30_000 * UnitSize, 2*blankChunkUnits + 123
	dir := t.TempDir()
	cq := newQueue(t, dir, fileSize)
	for i := int64(0); i < 1000; i++ {
		mustPut(t, cq, 5000+i*100, 100, i, first+i)
	}
	if cq.MinOffsetInQueue() != first || cq.MaxOffsetInQueue() != first+1000 {
		t.Fatalf("min %d max %d", cq.MinOffsetInQueue(), cq.MaxOffsetInQueue())
	}
	data := cq.q.FirstMappedFile().Data()
	for i := 0; i < first; i++ {
		if phy, size, tags := decodeUnit(data[i*UnitSize:]); phy != 0 || size != math.MaxInt32 || tags != 0 {
			t.Fatalf("blank %d = %d %d %d", i, phy, size, tags)
		}
	}
	cq.Shutdown()
	cq = newQueue(t, dir, fileSize) // loads and recovers
	defer cq.Shutdown()
	if cq.MaxOffsetInQueue() != first+1000 || cq.MaxPhysicOffset() != 5000+999*100+100 {
		t.Fatalf("recovered max %d phy %d", cq.MaxOffsetInQueue(), cq.MaxPhysicOffset())
	}
	u := cq.Units(first + 500)
	if u == nil {
		t.Fatal("no units at 500")
	}
	defer u.Release()
	if phy, size, tags := u.At(0); phy != 5000+500*100 || size != 100 || tags != 500 {
		t.Fatalf("unit 500 = %d %d %d", phy, size, tags)
	}
}
