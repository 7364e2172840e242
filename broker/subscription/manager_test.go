package subscription

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/body"
)

func goldenDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("RMQ_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "golden")
	}
	if _, err := os.Stat(filepath.Join(dir, "frames", "manifest.tsv")); err != nil {
		t.Skipf("golden set not found: %v", err)
	}
	return dir
}

// firstGoldenAnswer returns the body of the first SUCCESS answer to reqName.
func firstGoldenAnswer(t *testing.T, reqName string) []byte {
	t.Helper()
	dir := goldenDir(t)
	f, err := os.Open(filepath.Join(dir, "frames", "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	col := map[string]int{}
	names := map[string]string{}
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(col) == 0 {
			for i, n := range c {
				col[n] = i
			}
			continue
		}
		names[c[col["file"]]] = c[col["code_name"]]
		if c[col["type"]] == "response" && names[c[col["pair_file"]]] == reqName {
			frame, err := os.ReadFile(filepath.Join(dir, c[col["file"]]))
			if err != nil {
				t.Fatal(err)
			}
			hl := int(binary.BigEndian.Uint32(frame[4:8]) & 0xFFFFFF)
			return frame[8+hl:]
		}
	}
	t.Fatalf("no answer to %s", reqName)
	return nil
}

func newManager(t *testing.T, autoCreate bool) *Manager {
	return New(filepath.Join(t.TempDir(), "config", "subscriptionGroup.json"), autoCreate, zaptest.NewLogger(t))
}

// TestSubscriptionGroupDefaultsMatchJava compares a fresh manager's
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG body with a fresh Java broker's.
func TestSubscriptionGroupDefaultsMatchJava(t *testing.T) {
	golden := firstGoldenAnswer(t, "GET_ALL_SUBSCRIPTIONGROUP_CONFIG")
	var gw body.SubscriptionGroupWrapper
	if err := gw.Decode(golden); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, true)
	if m.DataVersion().Counter != 0 {
		t.Fatal("fresh version counter must be 0")
	}
	m.tab.Version.Timestamp = gw.DataVersion.Timestamp // the only machine-dependent value
	if got := m.Encode(); !bytes.Equal(got, golden) {
		t.Fatalf("defaults differ:\n got %s\nwant %s", got, golden)
	}
}

func TestSubscriptionGroupGoldenFileRoundTrip(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join(goldenDir(t), "store-clean", "store", "config", "subscriptionGroup.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := newManager(t, true)
	if err := os.MkdirAll(filepath.Dir(m.Path()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m.Path(), golden, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Load(); err != nil {
		t.Fatal(err)
	}
	if v := m.DataVersion(); v.Counter != 1 || v.Timestamp != 1795969596884 {
		t.Fatalf("version not adopted: %+v", v)
	}
	if _, ok := m.Get("StoreConsumerGroup"); !ok {
		t.Fatal("StoreConsumerGroup missing")
	}
	if err := m.Persist(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(m.Path()); !bytes.Equal(got, golden) {
		t.Fatalf("re-persisted differs:\n%s", got)
	}
}

func TestSubscriptionGroupAutoCreate(t *testing.T) {
	m := newManager(t, false)
	if _, ok := m.FindSubscriptionGroupConfig("cg1"); ok {
		t.Fatal("created with autoCreateSubscriptionGroup=false")
	}
	c, ok := m.FindSubscriptionGroupConfig(CIDSysRmqTrans)
	if !ok || c.GroupName != CIDSysRmqTrans || c.RetryMaxTimes != 16 {
		t.Fatalf("system group must always be created: %+v %v", c, ok)
	}
	m.SetAutoCreateSubscriptionGroup(true)
	before := m.DataVersion().Counter
	if _, ok := m.FindSubscriptionGroupConfig("cg1"); !ok {
		t.Fatal("not created")
	}
	if m.DataVersion().Counter != before+1 {
		t.Fatal("auto-create must bump the version")
	}
	reloaded := New(m.Path(), false, zaptest.NewLogger(t))
	if err := reloaded.Load(); err != nil {
		t.Fatal(err)
	}
	if _, ok := reloaded.Get("cg1"); !ok {
		t.Fatal("auto-created group not persisted")
	}
	if reloaded.DataVersion() != m.DataVersion() {
		t.Fatal("version not persisted")
	}
}

func TestSubscriptionGroupUpdateDisableDelete(t *testing.T) {
	m := newManager(t, true)
	c := body.NewSubscriptionGroupConfig("cg")
	c.RetryMaxTimes = 3
	c.ConsumeBroadcastEnable = false
	m.UpdateSubscriptionGroupConfig(c)
	if got, _ := m.Get("cg"); got != c {
		t.Fatalf("got %+v", got)
	}
	v := m.DataVersion()
	m.DisableConsume("cg")
	if got, _ := m.Get("cg"); got.ConsumeEnable {
		t.Fatal("still enabled")
	}
	if m.DataVersion().Counter != v.Counter+1 {
		t.Fatal("disable must bump the version")
	}
	if !m.DeleteSubscriptionGroupConfig("cg") || m.DeleteSubscriptionGroupConfig("cg") {
		t.Fatal("delete must report existence")
	}
	if _, ok := m.Get("cg"); ok {
		t.Fatal("still there")
	}
}

func TestSubscriptionGroupSyncFromMaster(t *testing.T) {
	m := newManager(t, true)
	w := &body.SubscriptionGroupWrapper{
		SubscriptionGroupTable: map[string]body.SubscriptionGroupConfig{"m": body.NewSubscriptionGroupConfig("m")},
		DataVersion:            body.DataVersion{Counter: 9, Timestamp: 5},
	}
	if !m.SyncFromMaster(w) {
		t.Fatal("different version must apply")
	}
	if m.SyncFromMaster(w) {
		t.Fatal("same version must be a no-op")
	}
	if _, ok := m.Get(ToolsConsumerGroup); ok {
		t.Fatal("table must be replaced, not merged")
	}
	if _, ok := m.Get("m"); !ok || m.DataVersion().Counter != 9 {
		t.Fatal("master table not adopted")
	}
	if _, err := os.Stat(m.Path()); err != nil {
		t.Fatalf("not persisted: %v", err)
	}
}

// TestSubscriptionGroupGoldenSlaveSyncBodies: every Java master answer to
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG, applied to a slave, is served back
// byte for byte.
func TestSubscriptionGroupGoldenSlaveSyncBodies(t *testing.T) {
	dir := goldenDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "frames", "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	names := map[string]string{}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		c := strings.Split(line, "\t")
		if len(col) == 0 {
			for i, name := range c {
				col[name] = i
			}
			continue
		}
		names[c[col["file"]]] = c[col["code_name"]]
		if c[col["type"]] != "response" || names[c[col["pair_file"]]] != "GET_ALL_SUBSCRIPTIONGROUP_CONFIG" {
			continue
		}
		frame, err := os.ReadFile(filepath.Join(dir, c[col["file"]]))
		if err != nil {
			t.Fatal(err)
		}
		b := frame[8+int(binary.BigEndian.Uint32(frame[4:8])&0xFFFFFF):]
		var w body.SubscriptionGroupWrapper
		if err := w.Decode(b); err != nil {
			t.Fatal(err)
		}
		slave := newManager(t, true)
		slave.SyncFromMaster(&w)
		if got := slave.Encode(); !bytes.Equal(got, b) {
			t.Fatalf("%s differs:\n got %s\nwant %s", c[col["file"]], got, b)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d answers", n)
	}
}
