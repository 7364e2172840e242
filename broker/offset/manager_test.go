package offset

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/body"
)

func goldenConfigDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("RMQ_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "golden")
	}
	dir = filepath.Join(dir, "store-clean", "store", "config")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("golden store not found: %v", err)
	}
	return dir
}

func newManager(t *testing.T) *Manager {
	return New(filepath.Join(t.TempDir(), "config", "consumerOffset.json"), zaptest.NewLogger(t))
}

func TestConsumerOffsetGoldenRoundTrip(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join(goldenConfigDir(t), "consumerOffset.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := newManager(t)
	if err := os.MkdirAll(filepath.Dir(m.Path()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m.Path(), golden, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Load(); err != nil {
		t.Fatal(err)
	}
	if got := m.QueryOffset("StoreConsumerGroup", "StoreTopic", 0); got != 5 {
		t.Fatalf("StoreTopic q0 = %d", got)
	}
	if err := m.Persist(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(m.Path())
	if !bytes.Equal(got, golden) {
		t.Fatalf("re-persisted differs:\n%s\n---\n%s", got, golden)
	}
	// The same table is the GET_ALL_CONSUMER_OFFSET body; it must decode
	// back to the same content.
	var w body.ConsumerOffsetSerializeWrapper
	if err := w.Decode(m.Encode()); err != nil || w.OffsetTable["StoreTopic@StoreConsumerGroup"][3] != 4 {
		t.Fatalf("encode/decode: %v %v", err, w.OffsetTable)
	}
}

func TestConsumerOffsetCommitQuery(t *testing.T) {
	m := newManager(t)
	if got := m.QueryOffset("g", "t", 0); got != -1 {
		t.Fatalf("unknown queue: %d", got)
	}
	m.CommitOffset("127.0.0.1:1", "g", "t", 0, 10)
	m.CommitOffset("127.0.0.1:1", "g", "t", 1, 20)
	m.CommitOffset("127.0.0.1:1", "g", "t", 0, 5) // backwards is accepted
	if got := m.QueryOffset("g", "t", 0); got != 5 {
		t.Fatalf("q0 = %d", got)
	}
	if got := m.QueryOffsets("g", "t"); len(got) != 2 || got[1] != 20 {
		t.Fatalf("offsets %v", got)
	}
	if m.QueryOffsets("g", "other") != nil {
		t.Fatal("unknown topic must give nil")
	}
	if m.Snapshot()[Key("t", "g")][0].ResetAt == 0 {
		t.Fatal("backward commit must set a reset mark")
	}
}

func TestConsumerOffsetWhichAndRemove(t *testing.T) {
	m := newManager(t)
	m.CommitOffset("", "g1", "t1", 0, 1)
	m.CommitOffset("", "g1", "t2", 0, 1)
	m.CommitOffset("", "g2", "t1", 0, 1)
	m.CommitOffset("", "g1x", "t3", 0, 1)
	if got := m.WhichTopicByConsumer("g1"); !slices.Equal(got, []string{"t1", "t2"}) {
		t.Fatalf("topics of g1: %v", got)
	}
	if got := m.WhichGroupByTopic("t1"); !slices.Equal(got, []string{"g1", "g2"}) {
		t.Fatalf("groups of t1: %v", got)
	}
	m.CloneOffset("g1", "g3", "t1")
	if m.QueryOffset("g3", "t1", 0) != 1 {
		t.Fatal("clone failed")
	}
	m.RemoveOffset("g1")
	if m.QueryOffset("g1", "t1", 0) != -1 || m.QueryOffset("g1", "t2", 0) != -1 {
		t.Fatal("g1 offsets must be gone")
	}
	if m.QueryOffset("g1x", "t3", 0) != 1 {
		t.Fatal("removeOffset must match the whole group name")
	}
}

func TestConsumerOffsetMinInAllGroups(t *testing.T) {
	m := newManager(t)
	m.CommitOffset("", "a", "t", 0, 50)
	m.CommitOffset("", "b", "t", 0, 30)
	m.CommitOffset("", "c", "t", 0, 5) // below the store's min offset: ignored
	m.CommitOffset("", "a", "t", 1, 7)
	m.CommitOffset("", "a", "u", 0, 1)
	minOff := func(topic string, q int32) int64 { return 10 }
	got := m.QueryMinOffsetInAllGroup("t", "", minOff)
	if len(got) != 1 || got[0] != 30 {
		t.Fatalf("min: %v", got)
	}
	got = m.QueryMinOffsetInAllGroup("t", "b", minOff)
	if got[0] != 50 {
		t.Fatalf("filtered min: %v", got)
	}
	if m.QueryOffset("b", "t", 0) != 30 {
		t.Fatal("the filter must not delete the filtered group's offsets")
	}
}

func TestConsumerOffsetScanUnsubscribed(t *testing.T) {
	m := newManager(t)
	m.CommitOffset("", "live", "t", 0, 1)
	m.CommitOffset("", "gone", "t", 0, 1)
	m.CommitOffset("", "lagging", "t", 0, 1)
	minOff := func(topic string, q int32) int64 { return 1 }
	subscribed := func(group, topic string) bool { return group == "live" }
	m.CommitOffset("", "lagging", "t", 1, 9) // still has data to consume beyond min
	removed := m.ScanUnsubscribedTopic(subscribed, func(topic string, q int32) int64 {
		if q == 1 {
			return 5
		}
		return minOff(topic, q)
	})
	if !slices.Equal(removed, []string{"t@gone"}) {
		t.Fatalf("removed %v", removed)
	}
}

func TestConsumerOffsetMergeRules(t *testing.T) {
	m := newManager(t)
	clock := int64(1000)
	m.now = func() int64 { return clock }
	m.CommitOffset("", "g", "t", 0, 100)
	m.CommitOffset("", "g", "t", 1, 100)
	m.ResetOffset("g", "t", 2, 3) // reset at 1000

	in := map[string]map[int32]Entry{Key("t", "g"): {
		0: {Offset: 150},              // larger, no resets: wins
		1: {Offset: 50},               // smaller, no resets: loses
		2: {Offset: 90, ResetAt: 999}, // older reset: loses
		3: {Offset: 7, ResetAt: 0},    // new queue: taken
	}}
	if n := m.Merge(in); n != 2 {
		t.Fatalf("changed %d", n)
	}
	want := map[int32]int64{0: 150, 1: 100, 2: 3, 3: 7}
	if got := m.QueryOffsets("g", "t"); !mapsEqual(got, want) {
		t.Fatalf("after merge %v", got)
	}
	// A newer reset elsewhere beats a larger local offset.
	m.Merge(map[string]map[int32]Entry{Key("t", "g"): {0: {Offset: 10, ResetAt: 2000}}})
	if got := m.QueryOffset("g", "t", 0); got != 10 {
		t.Fatalf("newer reset lost: %d", got)
	}
}

func mapsEqual(a, b map[int32]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestConsumerOffsetPutAllLikeSlaveSync(t *testing.T) {
	m := newManager(t)
	m.CommitOffset("", "g", "t", 0, 100)
	m.CommitOffset("", "local", "x", 0, 1)
	m.PutAll(&body.ConsumerOffsetSerializeWrapper{OffsetTable: map[string]map[int32]int64{"t@g": {0: 40}}})
	if m.QueryOffset("g", "t", 0) != 40 {
		t.Fatal("putAll must overwrite, even with a smaller offset")
	}
	if m.QueryOffset("local", "x", 0) != 1 {
		t.Fatal("putAll must keep other keys")
	}
}

func TestConsumerOffsetCorruptFallsBackToBak(t *testing.T) {
	m := newManager(t)
	m.CommitOffset("", "g", "t", 0, 1)
	if err := m.Persist(); err != nil {
		t.Fatal(err)
	}
	m.CommitOffset("", "g", "t", 0, 2)
	if err := m.Persist(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m.Path(), []byte("{\n\t\"offsetTable\":{\n\t\t\"t@g\":{0:"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := New(m.Path(), zaptest.NewLogger(t))
	if err := again.Load(); err != nil {
		t.Fatal(err)
	}
	if got := again.QueryOffset("g", "t", 0); got != 1 {
		t.Fatalf("from .bak: %d", got)
	}
}

func TestConsumerOffsetConcurrentCommitPersist(t *testing.T) {
	m := newManager(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				m.CommitOffset("", fmt.Sprintf("g%d", g), "t", int32(i%4), int64(i))
				if i%50 == 0 {
					if err := m.Persist(); err != nil {
						t.Error(err)
					}
				}
			}
		}(g)
	}
	wg.Wait()
	if err := m.Persist(); err != nil {
		t.Fatal(err)
	}
	again := New(m.Path(), zaptest.NewLogger(t))
	if err := again.Load(); err != nil {
		t.Fatal(err)
	}
	for g := 0; g < 4; g++ {
		if got := again.QueryOffset(fmt.Sprintf("g%d", g), "t", 3); got != 199 {
			t.Fatalf("g%d q3 = %d", g, got)
		}
	}
}

func TestConsumerOffsetCorruptWithoutBakStartsEmpty(t *testing.T) {
	m := newManager(t)
	if err := os.MkdirAll(filepath.Dir(m.Path()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m.Path(), []byte("{garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Load(); err != nil {
		t.Fatalf("Java starts empty here: %v", err)
	}
	if len(m.Snapshot()) != 0 {
		t.Fatal("table must be empty")
	}
}

func TestConsumerOffsetMergePlainBody(t *testing.T) {
	m := newManager(t)
	m.CommitOffset("", "g", "t", 0, 100)
	m.ResetOffset("g", "t", 1, 5)
	in := EntriesFromWrapper(&body.ConsumerOffsetSerializeWrapper{OffsetTable: map[string]map[int32]int64{
		"t@g": {0: 120, 1: 80},
	}})
	if n := m.Merge(in); n != 1 {
		t.Fatalf("changed %d", n)
	}
	if m.QueryOffset("g", "t", 0) != 120 || m.QueryOffset("g", "t", 1) != 5 {
		t.Fatalf("got %v", m.QueryOffsets("g", "t"))
	}
}
