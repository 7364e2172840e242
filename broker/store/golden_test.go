package store

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
)

type goldenRow map[string]string

// readTSV reads a golden TSV file into rows keyed by column name.
func readTSV(t *testing.T, name string) []goldenRow {
	t.Helper()
	f, err := os.Open(filepath.Join(goldenDir(t), "store-clean", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	sc.Scan()
	cols := strings.Split(sc.Text(), "\t")
	var rows []goldenRow
	for sc.Scan() {
		r := goldenRow{}
		for i, v := range strings.Split(sc.Text(), "\t") {
			r[cols[i]] = v
		}
		rows = append(rows, r)
	}
	return rows
}

func (r goldenRow) int(col string) int64 {
	v, _ := strconv.ParseInt(r[col], 10, 64)
	return v
}

// TestStoreGoldenServesMessages opens the store written by Java 4.9.8 and
// pulls every queue from offset 0: the records served are exactly those of
// consumequeue.tsv, byte for byte as in the CommitLog files.
func TestStoreGoldenServesMessages(t *testing.T) {
	cfg := goldenConfig(copyGoldenStore(t))
	raw := map[int64][]byte{}
	for _, n := range []string{"00000000000000000000", "00000000000001048576"} {
		b, err := os.ReadFile(filepath.Join(cfg.CommitLogDir(), n))
		if err != nil {
			t.Fatal(err)
		}
		start, _ := strconv.ParseInt(n, 10, 64)
		raw[start] = b
	}
	s := startStore(t, cfg)
	if !s.LastExitOK() || s.MaxPhyOffset() != 1378092 || s.MinPhyOffset() != 0 {
		t.Fatalf("recovered: exitOK %v max %d min %d", s.LastExitOK(), s.MaxPhyOffset(), s.MinPhyOffset())
	}
	type qk struct {
		topic string
		id    int32
	}
	want := map[qk][]goldenRow{}
	for _, r := range readTSV(t, "consumequeue.tsv") {
		k := qk{r["topic"], int32(r.int("queue_id"))}
		want[k] = append(want[k], r)
	}
	for k, rows := range want {
		got := pullAll(t, s, k.topic, k.id)
		if len(got) != len(rows) {
			t.Fatalf("%s-%d: %d messages, want %d", k.topic, k.id, len(got), len(rows))
		}
		for i, rec := range got {
			phy := rows[i].int("physical_offset")
			file := raw[phy-phy%(1<<20)]
			exp := file[phy%(1<<20) : phy%(1<<20)+rows[i].int("size")]
			if !bytes.Equal(rec, exp) {
				t.Fatalf("%s-%d offset %d: record differs from the CommitLog bytes at %d", k.topic, k.id, i, phy)
			}
		}
		if mx := s.MaxOffsetInQueue(k.topic, k.id); mx != int64(len(rows)) {
			t.Fatalf("%s-%d max offset %d", k.topic, k.id, mx)
		}
	}
}

// pullAll reads a whole queue from offset 0 in batches of 32.
func pullAll(t *testing.T, s *DefaultMessageStore, topic string, id int32) [][]byte {
	t.Helper()
	var out [][]byte
	for off := int64(0); ; {
		r := s.GetMessage("g", topic, id, off, 32, nil)
		if r.Status == OffsetOverflowOne {
			return out
		}
		if r.Status != Found {
			t.Fatalf("%s-%d@%d: %v", topic, id, off, r.Status)
		}
		out = append(out, r.Messages...)
		if r.NextBeginOffset <= off {
			t.Fatalf("no progress at %d", off)
		}
		off = r.NextBeginOffset
	}
}

// TestStoreGoldenQueryByKey: QUERY_MESSAGE by key and by unique key finds
// what messages.tsv says.
func TestStoreGoldenQueryByKey(t *testing.T) {
	cfg := goldenConfig(copyGoldenStore(t))
	s := startStore(t, cfg)
	rows := readTSV(t, "messages.tsv")
	expect := func(topic, key string) []int64 {
		var offs []int64
		for _, r := range rows {
			if r["topic"] == topic && (slices.Contains(strings.Fields(r["keys"]), key) || r["uniq_key"] == key) {
				offs = append(offs, r.int("physical_offset"))
			}
		}
		return offs
	}
	for _, c := range []struct{ topic, key string }{{"StoreTopic", "key-3"}, {"StoreManyTopic", "many-7"},
		{"StoreTopic", "alt-4"}, {"%RETRY%StoreConsumerGroup", "key-3"}} {
		want := expect(c.topic, c.key)
		got := queryOffsets(t, s, c.topic, c.key)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("%s#%s: got %v want %v", c.topic, c.key, got, want)
		}
	}
	// every unique key finds its record
	for _, r := range rows {
		if r["uniq_key"] == "" || r["topic"] == "" {
			continue
		}
		got := queryOffsets(t, s, r["topic"], r["uniq_key"])
		if !slices.Contains(got, r.int("physical_offset")) {
			t.Fatalf("uniq %s in %s: %v lacks %s", r["uniq_key"], r["topic"], got, r["physical_offset"])
		}
	}
}

// queryOffsets returns the physical offsets of the records QueryMessage
// returns, checking that each really carries the key.
func queryOffsets(t *testing.T, s *DefaultMessageStore, topic, key string) []int64 {
	t.Helper()
	res := s.QueryMessage(topic, key, 32, 0, math.MaxInt64)
	var offs []int64
	for _, rec := range res.Messages {
		m, err := message.DecodeRecord(rec, true)
		if err != nil {
			t.Fatal(err)
		}
		if m.Topic != topic {
			continue // hash collision: the broker filters these out
		}
		keys := strings.Fields(m.Properties[message.PropertyKeys])
		if slices.Contains(keys, key) || m.Properties[message.PropertyUniqClientMessageIDKeyidx] == key {
			offs = append(offs, m.CommitLogOffset)
		}
	}
	return offs
}

// TestStoreGoldenAppendAfterReopen: new messages appended to the Java store
// continue its queue offsets and are readable with the golden ones.
func TestStoreGoldenAppendAfterReopen(t *testing.T) {
	cfg := goldenConfig(copyGoldenStore(t))
	s := startStore(t, cfg)
	before := s.MaxOffsetInQueue("StoreManyTopic", 0)
	r := mustPut(t, s, newMsg("StoreManyTopic", 0, "TagX", "many-new", []byte("appended")))
	if r.Append.LogicsOffset != before || r.Append.WroteOffset != 1378092 {
		t.Fatalf("append at queue offset %d phys %d, want %d / 1378092", r.Append.LogicsOffset, r.Append.WroteOffset, before)
	}
	waitDispatched(t, s)
	g := s.GetMessage("g", "StoreManyTopic", 0, before, 32, nil)
	if g.Status != Found || len(g.Messages) != 1 {
		t.Fatalf("new message: %v %d", g.Status, len(g.Messages))
	}
	if offs := queryOffsets(t, s, "StoreManyTopic", "many-new"); !slices.Equal(offs, []int64{1378092}) {
		t.Fatalf("query new key: %v", offs)
	}
}

// TestStoreGoldenAbnormalRecovery: the Java store opened as after a crash
// (abort file present): the index file newer than the checkpoint is dropped
// and rebuilt by re-dispatching, every queue and key is still served.
func TestStoreGoldenAbnormalRecovery(t *testing.T) {
	cfg := goldenConfig(copyGoldenStore(t))
	if err := os.WriteFile(cfg.AbortPath(), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := startStore(t, cfg)
	if s.LastExitOK() || s.MaxPhyOffset() != 1378092 {
		t.Fatalf("exitOK %v max %d", s.LastExitOK(), s.MaxPhyOffset())
	}
	counts := map[string]int{}
	for _, r := range readTSV(t, "consumequeue.tsv") {
		counts[r["topic"]+"/"+r["queue_id"]]++
	}
	for k, n := range counts {
		topic, q, _ := strings.Cut(k, "/")
		id, _ := strconv.Atoi(q)
		if got := len(pullAll(t, s, topic, int32(id))); got != n {
			t.Fatalf("%s: %d messages want %d", k, got, n)
		}
	}
	for i := 0; i < 120; i += 17 {
		key := "many-" + strconv.Itoa(i)
		if offs := queryOffsets(t, s, "StoreManyTopic", key); len(offs) != 1 {
			t.Fatalf("%s after abnormal recovery: %v", key, offs)
		}
	}
}
