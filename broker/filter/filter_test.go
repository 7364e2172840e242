package filter

import (
	"bufio"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	ifilter "github.com/rocketmq-go/rmq/internal/filter"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/body"
)

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newClock() *testClock { return &testClock{now: time.UnixMilli(1_700_000_000_000)} }

func tagSub(topic, expr string) *body.SubscriptionData {
	ts := ifilter.ParseTags(expr)
	return &body.SubscriptionData{Topic: topic, SubString: ts.SubString, TagsSet: ts.Tags, CodeSet: ts.Codes, ExpressionType: "TAG"}
}

func sqlSub(topic, expr string, version int64) *body.SubscriptionData {
	return &body.SubscriptionData{Topic: topic, SubString: expr, ExpressionType: "SQL92", SubVersion: version}
}

// record builds a stored message record with the given properties.
func record(t *testing.T, topic string, props map[string]string) []byte {
	t.Helper()
	host := netip.MustParseAddrPort("127.0.0.1:10911")
	m := &message.MessageExt{}
	m.Topic = topic
	m.Body = []byte("hello")
	m.Properties = props
	m.PropertiesString = message.MarshalProperties(props)
	m.BornHost, m.StoreHost = host, host
	b, err := message.EncodeRecord(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFilterTagMessageFilter(t *testing.T) {
	f := NewExpressionMessageFilter(tagSub("T", "TagA || TagB"), nil, nil, zaptest.NewLogger(t))
	for tag, want := range map[string]bool{"TagA": true, "TagB": true, "TagC": false, "": false} {
		if got := f.IsMatchedByConsumeQueue(message.TagsCode(tag), nil); got != want {
			t.Errorf("tag %q: %v, want %v", tag, got, want)
		}
	}
	if !f.IsMatchedByCommitLog(nil, map[string]string{"TAGS": "TagC"}) {
		t.Error("TAG subscriptions pass the commit-log check")
	}
	all := NewExpressionMessageFilter(tagSub("T", "*"), nil, nil, nil)
	if !all.IsMatchedByConsumeQueue(12345, nil) {
		t.Error("* matches every tagsCode")
	}
	if !NewExpressionMessageFilter(nil, nil, nil, nil).IsMatchedByConsumeQueue(1, nil) {
		t.Error("no subscription matches everything")
	}
	cf := tagSub("T", "TagA")
	cf.ClassFilterMode = true
	if !NewExpressionMessageFilter(cf, nil, nil, nil).IsMatchedByConsumeQueue(1, nil) {
		t.Error("class filter mode matches everything")
	}
}

func TestFilterSQL92MessageFilter(t *testing.T) {
	clk := newClock()
	data, err := Build("T", "cg", "a > 5 AND color IN ('red', 'blue')", "SQL92", 1, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	f := NewExpressionMessageFilter(sqlSub("T", data.Expression, 1), data, nil, zaptest.NewLogger(t))
	if !f.IsMatchedByConsumeQueue(0, nil) {
		t.Fatal("SQL92 passes the consume-queue check (no bloom bitmaps)")
	}
	cases := []struct {
		props map[string]string
		want  bool
	}{
		{map[string]string{"a": "6", "color": "red"}, true},
		{map[string]string{"a": "6", "color": "green"}, false},
		{map[string]string{"a": "5", "color": "red"}, false},
		{map[string]string{"color": "red"}, false},
		{map[string]string{"a": "x", "color": "red"}, false}, // evaluation error: no match
	}
	for _, c := range cases {
		if got := f.IsMatchedByCommitLog(nil, c.props); got != c.want {
			t.Errorf("properties %v: %v, want %v", c.props, got, c.want)
		}
		if got := f.IsMatchedByCommitLog(record(t, "T", c.props), nil); got != c.want {
			t.Errorf("record with %v: %v, want %v", c.props, got, c.want)
		}
	}
	if f.IsMatchedByCommitLog([]byte{1, 2, 3}, nil) {
		t.Error("a malformed record has no properties and cannot match")
	}
	if !NewExpressionMessageFilter(sqlSub("T", "a > 1", 1), nil, nil, nil).IsMatchedByCommitLog(nil, nil) {
		t.Error("SQL92 without filter data matches everything")
	}
	if _, err := Build("T", "cg", "a >", "SQL92", 1, clk.Now()); err == nil {
		t.Error("Build must report a parse error")
	}
	if d, err := Build("T", "cg", "TagA", "TAG", 1, clk.Now()); d != nil || err != nil {
		t.Error("TAG subscriptions have no filter data")
	}
}

// TestFilterRetryMessageFilter: with filterSupportRetry, retried messages
// are filtered with the SQL92 filter of their original topic.
func TestFilterRetryMessageFilter(t *testing.T) {
	mgr := NewConsumerFilterManager(zaptest.NewLogger(t), newClock().Now)
	mgr.Register("cg", []body.SubscriptionData{*sqlSub("T", "a = 1", 1), *tagSub("%RETRY%cg", "*")})
	retrySub := tagSub("%RETRY%cg", "*")
	f := NewExpressionForRetryMessageFilter(retrySub, nil, mgr, zaptest.NewLogger(t))
	if !f.IsMatchedByCommitLog(nil, map[string]string{"RETRY_TOPIC": "T", "a": "1"}) {
		t.Error("retried message matching the original filter")
	}
	if f.IsMatchedByCommitLog(record(t, "%RETRY%cg", map[string]string{"RETRY_TOPIC": "T", "a": "2"}), nil) {
		t.Error("retried message not matching the original filter")
	}
	if !f.IsMatchedByCommitLog(nil, map[string]string{"RETRY_TOPIC": "Other", "a": "2"}) {
		t.Error("no filter for the original topic: match")
	}
	plain := NewExpressionMessageFilter(retrySub, nil, mgr, nil)
	if !plain.IsMatchedByCommitLog(nil, map[string]string{"RETRY_TOPIC": "T", "a": "2"}) {
		t.Error("without filterSupportRetry retry topics are not SQL-filtered")
	}
}

func TestFilterConsumerFilterManager(t *testing.T) {
	clk := newClock()
	mgr := NewConsumerFilterManager(zaptest.NewLogger(t), clk.Now)
	mgr.Register("cg", []body.SubscriptionData{*sqlSub("T", "a > 1", 10), *tagSub("U", "*")})
	d := mgr.Get("T", "cg")
	if d == nil || d.IsDead() || d.ClientVersion != 10 || d.Compiled == nil || mgr.Get("U", "cg") != nil {
		t.Fatalf("registered %+v", d)
	}
	if mgr.RegisterOne("T", "cg", "a > 2", "SQL92", 9) || mgr.Get("T", "cg").Expression != "a > 1" {
		t.Fatal("an older client version must not replace the filter")
	}
	if !mgr.RegisterOne("T", "cg", "a > 2", "SQL92", 11) || mgr.Get("T", "cg").Expression != "a > 2" {
		t.Fatal("a newer version with a new expression recompiles")
	}
	if mgr.RegisterOne("T", "cg", "a >", "SQL92", 12) || mgr.Get("T", "cg") != nil {
		t.Fatal("a newer expression that fails to compile drops the filter")
	}
	mgr.RegisterOne("T", "cg", "a > 2", "SQL92", 13)

	// The group stops subscribing T: its filter dies.
	clk.Advance(time.Second)
	mgr.Register("cg", []body.SubscriptionData{*tagSub("U", "*")})
	if !mgr.Get("T", "cg").IsDead() {
		t.Fatal("unsubscribed topic must be dead")
	}
	// Same version again revives it.
	if !mgr.RegisterOne("T", "cg", "a > 2", "SQL92", 13) || mgr.Get("T", "cg").IsDead() {
		t.Fatal("re-registering the same version revives")
	}
	mgr.Unregister("cg")
	if !mgr.Get("T", "cg").IsDead() {
		t.Fatal("unregister marks dead")
	}
	mgr.Clean(DefaultFilterDataCleanTimeSpan)
	if mgr.Get("T", "cg") == nil {
		t.Fatal("recently dead data is kept")
	}
	clk.Advance(DefaultFilterDataCleanTimeSpan)
	mgr.Clean(DefaultFilterDataCleanTimeSpan)
	if mgr.Get("T", "cg") != nil || len(mgr.GetByTopic("T")) != 0 {
		t.Fatal("data dead for 24 h is cleaned")
	}
}

func TestFilterConsumerFilterPersist(t *testing.T) {
	clk := newClock()
	mgr := NewConsumerFilterManager(zaptest.NewLogger(t), clk.Now)
	mgr.RegisterOne("T", "cg", "a > 1", "SQL92", 10)
	mgr.RegisterOne("T", "cg2", "b = 'x'", "SQL92", 11)
	enc := mgr.Encode()
	want := `{"filterDataByTopic":{"T":{"groupFilterData":{"cg":{"bornTime":1700000000000,"clientVersion":10,"consumerGroup":"cg",` +
		`"dead":false,"deadTime":0,"expression":"a > 1","expressionType":"SQL92","topic":"T"},"cg2":{"bornTime":1700000000000,` +
		`"clientVersion":11,"consumerGroup":"cg2","dead":false,"deadTime":0,"expression":"b = 'x'","expressionType":"SQL92","topic":"T"}},"topic":"T"}}}`
	if string(enc) != want {
		t.Fatalf("encode\n got %s\nwant %s", enc, want)
	}
	clk.Advance(time.Minute)
	loaded := NewConsumerFilterManager(zaptest.NewLogger(t), clk.Now)
	if err := loaded.Decode(enc); err != nil {
		t.Fatal(err)
	}
	d := loaded.Get("T", "cg2")
	if d == nil || d.Compiled == nil || !d.IsDead() || d.DeadTime != clk.Now().UnixMilli()-30_000 {
		t.Fatalf("loaded %+v", d)
	}
	if ok, _ := d.Compiled.Match(map[string]string{"b": "x"}); !ok {
		t.Fatal("loaded expression must evaluate")
	}
	if !loaded.RegisterOne("T", "cg2", "b = 'x'", "SQL92", 11) || loaded.Get("T", "cg2").IsDead() {
		t.Fatal("a heartbeat revives loaded data")
	}
	if err := loaded.Decode([]byte(`{}`)); err == nil {
		t.Fatal("a body without filterDataByTopic is an error")
	}
	if err := loaded.Decode([]byte(`{"filterDataByTopic":{"T":{"groupFilterData":{"g":{"expression":"a >","expressionType":"SQL92","bornTime":5}}}}}`)); err != nil {
		t.Fatal(err)
	}
	if d := loaded.Get("T", "g"); d == nil || d.Compiled != nil {
		t.Fatal("an uncompilable persisted expression is kept uncompiled")
	}
}

// TestFilterGoldenStoreSQL92 evaluates SQL92 selectors over the properties
// of the messages the Java broker stored (store-clean golden set).
func TestFilterGoldenStoreSQL92(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "golden", "store-clean", "messages.tsv")
	if d := os.Getenv("RMQ_GOLDEN_DIR"); d != "" {
		path = filepath.Join(d, "store-clean", "messages.tsv")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("golden store absent: %v", err)
	}
	defer f.Close()
	data, _ := Build("StoreTopic", "cg", "color = 'red' AND idx >= 4", "SQL92", 1, time.Now())
	flt := NewExpressionMessageFilter(sqlSub("StoreTopic", data.Expression, 1), data, nil, zaptest.NewLogger(t))
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var head []string
	matched, seen := 0, 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if head == nil {
			head = cols
			continue
		}
		row := map[string]string{}
		for i, h := range head {
			if i < len(cols) {
				row[h] = cols[i]
			}
		}
		if row["topic"] != "StoreTopic" || row["kind"] != "plain" {
			continue
		}
		props := map[string]string{}
		for _, kv := range strings.Split(row["properties"], ";") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				props[k] = v
			}
		}
		seen++
		idx, err := strconv.Atoi(props["idx"])
		want := err == nil && props["color"] == "red" && idx >= 4
		if got := flt.IsMatchedByCommitLog(nil, props); got != want {
			t.Errorf("%s: props %v matched=%v want %v", row["label"], props, got, want)
		}
		if want {
			matched++
		}
	}
	if seen == 0 || matched == 0 {
		t.Fatalf("golden check covered %d messages, %d matching", seen, matched)
	}
}

// TestFilterUsesCommitLogProperties: a filter that says it does not read
// the properties accepts any message on the commit log (the long-poll
// service then lets the store skip the properties map); SQL92 and retry
// filters say they do.
func TestFilterUsesCommitLogProperties(t *testing.T) {
	mgr := NewConsumerFilterManager(zaptest.NewLogger(t), newClock().Now)
	mgr.Register("cg", []body.SubscriptionData{*sqlSub("T", "a = 1", 1), *tagSub("%RETRY%cg", "*")})
	data := mgr.Get("T", "cg")
	cf := tagSub("T", "*")
	cf.ClassFilterMode = true
	rejected := map[string]string{"RETRY_TOPIC": "T", "a": "2"}
	for _, c := range []struct {
		name string
		f    *ExpressionMessageFilter
		uses bool
	}{
		{"nil subscription", NewExpressionMessageFilter(nil, nil, nil, nil), false},
		{"tag", NewExpressionMessageFilter(tagSub("T", "TagA"), nil, mgr, nil), false},
		{"class filter", NewExpressionMessageFilter(cf, nil, mgr, nil), false},
		{"tag on retry without filterSupportRetry", NewExpressionMessageFilter(tagSub("%RETRY%cg", "*"), nil, mgr, nil), false},
		{"tag on retry with filterSupportRetry", NewExpressionForRetryMessageFilter(tagSub("%RETRY%cg", "*"), nil, mgr, nil), true},
		{"tag with filterSupportRetry", NewExpressionForRetryMessageFilter(tagSub("T", "*"), nil, mgr, nil), false},
		{"sql92", NewExpressionMessageFilter(sqlSub("T", "a = 1", 1), data, mgr, nil), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.f.UsesCommitLogProperties(); got != c.uses {
				t.Fatalf("UsesCommitLogProperties %v, want %v", got, c.uses)
			}
			if !c.uses && !c.f.IsMatchedByCommitLog(nil, rejected) {
				t.Fatal("says it ignores the properties but rejected a message by them")
			}
			if c.uses && c.f.IsMatchedByCommitLog(nil, rejected) {
				t.Fatal("says it reads the properties but accepted a message they reject")
			}
		})
	}
}
