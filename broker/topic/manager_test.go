package topic

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
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

func defaultOptions(brokerName string) Options {
	return Options{
		BrokerClusterName: "DefaultCluster", BrokerName: brokerName, AutoCreateTopicEnable: true,
		DefaultTopicQueueNums: 8, ClusterTopicEnable: true, BrokerTopicEnable: true,
		MsgTraceTopicName: TraceTopic,
	}
}

func newManager(t *testing.T, opts Options) *Manager {
	return New(opts, filepath.Join(t.TempDir(), "config", "topics.json"), zaptest.NewLogger(t))
}

// TestTopicConfigStartTopicsMatchJava: a fresh 4.9.8 broker-a answered its
// slave's first GET_ALL_TOPIC_CONFIG after the transaction service had
// created RMQ_SYS_TRANS_HALF_TOPIC (version counter 1).
func TestTopicConfigStartTopicsMatchJava(t *testing.T) {
	golden := firstGoldenAnswer(t, "GET_ALL_TOPIC_CONFIG")
	m := newManager(t, defaultOptions("broker-a"))
	if _, created := m.CreateTopicInSendMessageBackMethod(TransHalfTopic, 1, PermRead|PermWrite, 0); !created {
		t.Fatal("half topic not created")
	}
	var gw body.TopicConfigSerializeWrapper
	if err := decodeWrapper(golden, &gw); err != nil {
		t.Fatal(err)
	}
	if m.DataVersion().Counter != gw.DataVersion.Counter {
		t.Fatalf("counter %d want %d", m.DataVersion().Counter, gw.DataVersion.Counter)
	}
	m.tab.Version.Timestamp = gw.DataVersion.Timestamp
	if got := m.Encode(); !bytes.Equal(got, golden) {
		t.Fatalf("differs:\n got %s\nwant %s", got, golden)
	}
}

func TestTopicConfigGoldenFileRoundTrip(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join(goldenDir(t), "store-clean", "store", "config", "topics.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := newManager(t, defaultOptions("broker-store"))
	if err := os.MkdirAll(filepath.Dir(m.Path()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m.Path(), golden, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Load(); err != nil {
		t.Fatal(err)
	}
	if v := m.DataVersion(); v.Counter != 8 || v.Timestamp != 1795969607556 {
		t.Fatalf("version %+v", v)
	}
	if tc := m.SelectTopicConfig("StoreTopic"); tc == nil || tc.WriteQueueNums != 4 {
		t.Fatalf("StoreTopic %+v", tc)
	}
	if err := m.Persist(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(m.Path()); !bytes.Equal(got, golden) {
		t.Fatalf("re-persisted differs:\n%s", got)
	}
}

func TestTopicConfigSystemTopicsAtStart(t *testing.T) {
	o := defaultOptions("b1")
	o.ClusterTopicEnable, o.BrokerTopicEnable, o.TraceTopicEnable = false, false, true
	m := newManager(t, o)
	want := map[string][2]int32{ // queues, perm
		SelfTestTopic: {1, 6}, AutoCreateTopicKeyTopic: {8, 7}, BenchmarkTopic: {1024, 6},
		"DefaultCluster": {16, 1}, "b1": {1, 1}, OffsetMovedEventTopic: {1, 6}, ScheduleTopic: {18, 6},
		TraceTopic: {1, 6}, "DefaultCluster_REPLY_TOPIC": {1, 6},
	}
	snap := m.Snapshot()
	if len(snap) != len(want) {
		t.Fatalf("%d topics: %v", len(snap), snap)
	}
	for name, w := range want {
		tc := snap[name]
		if tc.ReadQueueNums != w[0] || tc.WriteQueueNums != w[0] || tc.Perm != w[1] || tc.TopicFilterType != "SINGLE_TAG" {
			t.Errorf("%s: %+v", name, tc)
		}
		if !m.IsSystemTopic(name) {
			t.Errorf("%s must be a system topic", name)
		}
	}
	if m.IsSystemTopic("TopicTest") || !m.IsSystemTopic("rmq_sys_x") {
		t.Fatal("system topic rule")
	}
	if m.DataVersion().Counter != 0 {
		t.Fatal("start-up topics must not bump the version")
	}
	o.AutoCreateTopicEnable = false
	if newManager(t, o).SelectTopicConfig(AutoCreateTopicKeyTopic) != nil {
		t.Fatal("TBW102 without autoCreateTopicEnable")
	}
}

func TestTopicConfigAutoCreateOnSend(t *testing.T) {
	m := newManager(t, defaultOptions("b1"))
	var calls atomic.Int32
	m.SetChangeListener(func() { calls.Add(1) })
	tc, created := m.CreateTopicInSendMessageMethod("NewTopic", AutoCreateTopicKeyTopic, "1.2.3.4:5", 4, 0)
	if !created || tc == nil || tc.ReadQueueNums != 4 || tc.WriteQueueNums != 4 || tc.Perm != 6 {
		t.Fatalf("created %v %+v", created, tc)
	}
	tc, created = m.CreateTopicInSendMessageMethod("Big", AutoCreateTopicKeyTopic, "", 64, 0)
	if !created || tc.WriteQueueNums != 8 {
		t.Fatalf("queue nums must be capped by TBW102's 8: %+v", tc)
	}
	if _, created = m.CreateTopicInSendMessageMethod("NewTopic", AutoCreateTopicKeyTopic, "", 4, 0); created {
		t.Fatal("existing topic created again")
	}
	if tc, _ := m.CreateTopicInSendMessageMethod("X", "NoSuchDefault", "", 4, 0); tc != nil {
		t.Fatal("created from a missing default topic")
	}
	if tc, _ := m.CreateTopicInSendMessageMethod("Y", SelfTestTopic, "", 4, 0); tc != nil {
		t.Fatal("created from a non-inheritable default topic")
	}
	if calls.Load() != 2 || m.DataVersion().Counter != 2 {
		t.Fatalf("listener %d, counter %d", calls.Load(), m.DataVersion().Counter)
	}
	reloaded := New(defaultOptions("b1"), m.Path(), zaptest.NewLogger(t))
	if err := reloaded.Load(); err != nil {
		t.Fatal(err)
	}
	if reloaded.SelectTopicConfig("Big") == nil || reloaded.DataVersion() != m.DataVersion() {
		t.Fatal("auto-created topic not persisted")
	}
}

func TestTopicConfigAutoCreateDisabledLive(t *testing.T) {
	m := newManager(t, defaultOptions("b1"))
	m.SetAutoCreateTopicEnable(false)
	if tc, created := m.CreateTopicInSendMessageMethod("T", AutoCreateTopicKeyTopic, "", 4, 0); tc != nil || created {
		t.Fatal("auto-create must stop once autoCreateTopicEnable is off")
	}
	if m.SelectTopicConfig(AutoCreateTopicKeyTopic).Perm != 6 {
		t.Fatal("TBW102 must lose INHERIT")
	}
}

func TestTopicConfigSendBackUpdateDelete(t *testing.T) {
	m := newManager(t, defaultOptions("b1"))
	tc, created := m.CreateTopicInSendMessageBackMethod(RetryTopic("cg"), 1, 6, 0)
	if !created || tc.TopicName != "%RETRY%cg" || tc.ReadQueueNums != 1 {
		t.Fatalf("%+v", tc)
	}
	if _, created := m.CreateTopicOfTranCheckMaxTime(1, 6); !created {
		t.Fatal("check-max-time topic")
	}
	upd := body.NewTopicConfig("T")
	upd.ReadQueueNums, upd.WriteQueueNums = 2, 2
	m.UpdateTopicConfig(upd)
	if got := m.SelectTopicConfig("T"); got == nil || *got != upd {
		t.Fatalf("update: %+v", got)
	}
	if !m.UpdateTopicUnitFlag("T", true) || m.SelectTopicConfig("T").TopicSysFlag != FlagUnit {
		t.Fatal("unit flag")
	}
	m.UpdateTopicUnitSubFlag("T", true)
	m.UpdateTopicUnitFlag("T", false)
	if m.SelectTopicConfig("T").TopicSysFlag != FlagUnitSub {
		t.Fatal("unit sub flag")
	}
	m.UpdateOrderTopicConfig(map[string]string{"T": "b1:2"})
	if !m.IsOrderTopic("T") {
		t.Fatal("order topic")
	}
	m.UpdateOrderTopicConfig(map[string]string{})
	if m.IsOrderTopic("T") {
		t.Fatal("order flag must clear")
	}
	v := m.DataVersion().Counter
	if !m.DeleteTopicConfig("T") || m.DeleteTopicConfig("T") || m.SelectTopicConfig("T") != nil {
		t.Fatal("delete")
	}
	if m.DataVersion().Counter != v+1 {
		t.Fatal("delete of a missing topic must not bump the version")
	}
}

func TestTopicConfigValidate(t *testing.T) {
	m := newManager(t, defaultOptions("b1"))
	cases := []struct {
		topic  string
		code   int32
		remark string
	}{
		{" ", code.SystemError, "The specified topic is blank."},
		{"a b", code.SystemError, "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		{"ü", code.SystemError, "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		{strings.Repeat("a", 128), code.SystemError, "The specified topic is longer than topic max length."},
	}
	for _, c := range cases {
		var ve *ValidationError
		if err := ValidateTopic(c.topic); !errors.As(err, &ve) || ve.Code != c.code || ve.Remark != c.remark {
			t.Errorf("%q: %v", c.topic, err)
		}
	}
	for _, ok := range []string{strings.Repeat("a", 127), "%RETRY%g|x-_9"} {
		if err := ValidateTopic(ok); err != nil {
			t.Errorf("%q rejected: %v", ok, err)
		}
	}
	var ve *ValidationError
	if err := CheckSendAllowed(ScheduleTopic); !errors.As(err, &ve) || ve.Code != code.NoPermission ||
		ve.Remark != "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden." {
		t.Fatalf("send to schedule topic: %v", err)
	}
	if CheckSendAllowed("TBW102") != nil {
		t.Fatal("TBW102 is sendable")
	}
	if err := m.CheckSystemTopicConflict("b1"); !errors.As(err, &ve) || ve.Remark != "The topic[b1] is conflict with system topic." {
		t.Fatalf("conflict: %v", err)
	}
}

func TestTopicConfigSyncFromMaster(t *testing.T) {
	master := newManager(t, defaultOptions("m"))
	master.CreateTopicInSendMessageBackMethod("T", 3, 6, 0)
	slave := newManager(t, defaultOptions("s"))
	w := master.BuildTopicConfigSerializeWrapper()
	if !slave.SyncFromMaster(w) || slave.SyncFromMaster(w) {
		t.Fatal("sync must apply once")
	}
	if slave.SelectTopicConfig("s") != nil || slave.SelectTopicConfig("T") == nil {
		t.Fatal("slave table must be the master's")
	}
	if !bytes.Equal(slave.Encode(), master.Encode()) {
		t.Fatal("slave body differs from master's")
	}
	var back body.TopicConfigSerializeWrapper
	if err := decodeWrapper(master.Encode(), &back); err != nil || back.TopicConfigTable["T"].WriteQueueNums != 3 {
		t.Fatalf("decode: %v", err)
	}
}

func TestTopicConfigCorruptFileFallsBackToBak(t *testing.T) {
	m := newManager(t, defaultOptions("b1"))
	m.CreateTopicInSendMessageBackMethod("First", 1, 6, 0)
	m.CreateTopicInSendMessageBackMethod("Second", 1, 6, 0) // .bak holds First only
	if err := os.WriteFile(m.Path(), []byte("{\n\t\"dataVersion\":{"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := New(defaultOptions("b1"), m.Path(), zaptest.NewLogger(t))
	if err := again.Load(); err != nil {
		t.Fatal(err)
	}
	if again.SelectTopicConfig("First") == nil || again.SelectTopicConfig("Second") != nil || again.DataVersion().Counter != 1 {
		t.Fatalf("want the .bak state, got version %+v", again.DataVersion())
	}
}

// goldenAnswers returns the bodies of every SUCCESS answer to reqName.
func goldenAnswers(t *testing.T, reqName string) map[string][]byte {
	t.Helper()
	dir := goldenDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "frames", "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	names := map[string]string{}
	out := map[string][]byte{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		c := strings.Split(line, "\t")
		if len(col) == 0 {
			for i, n := range c {
				col[n] = i
			}
			continue
		}
		names[c[col["file"]]] = c[col["code_name"]]
		if c[col["type"]] == "response" && c[col["code_name"]] == "SUCCESS" && names[c[col["pair_file"]]] == reqName {
			frame, err := os.ReadFile(filepath.Join(dir, c[col["file"]]))
			if err != nil {
				t.Fatal(err)
			}
			hl := int(binary.BigEndian.Uint32(frame[4:8]) & 0xFFFFFF)
			out[c[col["file"]]] = frame[8+hl:]
		}
	}
	return out
}

// TestTopicConfigGoldenSlaveSyncBodies: every GET_ALL_TOPIC_CONFIG answer
// a Java master gave, applied to a slave, is served back byte for byte.
func TestTopicConfigGoldenSlaveSyncBodies(t *testing.T) {
	answers := goldenAnswers(t, "GET_ALL_TOPIC_CONFIG")
	if len(answers) < 10 {
		t.Fatalf("only %d answers", len(answers))
	}
	for file, b := range answers {
		var w body.TopicConfigSerializeWrapper
		if err := decodeWrapper(b, &w); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		slave := newManager(t, defaultOptions("slave"))
		slave.SyncFromMaster(&w)
		if got := slave.Encode(); !bytes.Equal(got, b) {
			t.Fatalf("%s differs:\n got %s\nwant %s", file, got, b)
		}
	}
}

func TestTopicConfigGoldenBakFileRoundTrip(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join(goldenDir(t), "store-clean", "store", "config", "topics.json.bak"))
	if err != nil {
		t.Fatal(err)
	}
	m := newManager(t, defaultOptions("broker-store"))
	if err := os.MkdirAll(filepath.Dir(m.Path()), 0o755); err != nil {
		t.Fatal(err)
	}
	// Only the .bak exists: Load must use it, and persisting reproduces it.
	if err := os.WriteFile(m.Path()+".bak", golden, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Load(); err != nil {
		t.Fatal(err)
	}
	if err := m.Persist(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(m.Path()); !bytes.Equal(got, golden) {
		t.Fatalf("differs:\n%s", got)
	}
}

// TestTopicConfigOrderAfterJavaTableGrowth: past 1536 entries Java's
// ConcurrentHashMap(1024) doubles to 4096 slots and never shrinks, which
// changes the order fastjson writes the topics in.
func TestTopicConfigOrderAfterJavaTableGrowth(t *testing.T) {
	m := New(defaultOptions("b1"), filepath.Join(t.TempDir(), "topics.json"), zaptest.NewLogger(t))
	m.mu.Lock() // bulk changes without 1600 fsyncs
	for i := 0; i < 1600; i++ {
		m.put(body.NewTopicConfig("T" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i)))
	}
	m.mu.Unlock()
	kept := 0
	for name := range m.Snapshot() {
		if strings.HasPrefix(name, "T") && !strings.HasSuffix(name, "7") {
			m.mu.Lock()
			m.tab.Delete(name)
			m.mu.Unlock()
		} else {
			kept++
		}
	}
	if kept > 200 {
		t.Fatalf("kept %d", kept)
	}
	order := m.BuildTopicConfigSerializeWrapper().Order
	bucket := func(s string) uint32 {
		h := uint32(body.JavaStringHash(s))
		return (h ^ h>>16) & 4095
	}
	for i := 1; i < len(order); i++ {
		if bucket(order[i-1]) > bucket(order[i]) {
			t.Fatalf("not in 4096-slot bucket order at %d: %s %s", i, order[i-1], order[i])
		}
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
