package message

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// goldenStore is the store recorded from Apache RocketMQ 4.9.8
// (/work/shared/golden/store-clean, README section "Store").
func goldenStore(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("RMQ_GOLDEN_STORE")
	if dir == "" {
		dir = "/work/shared/golden/store-clean"
	}
	if _, err := os.Stat(filepath.Join(dir, "dump.jsonl")); err != nil {
		t.Skipf("golden store not available: %v", err)
	}
	return dir
}

type goldenRecord struct {
	File           string            `json:"file"`
	FileOffset     int64             `json:"fileOffset"`
	PhysicalOffset int64             `json:"physicalOffset"`
	Kind           string            `json:"kind"`
	StoreSize      int32             `json:"storeSize"`
	Size           int64             `json:"size"`
	Topic          string            `json:"topic"`
	QueueID        int32             `json:"queueId"`
	QueueOffset    int64             `json:"queueOffset"`
	CommitLogOff   int64             `json:"commitLogOffsetField"`
	Flag           int32             `json:"flag"`
	SysFlag        int32             `json:"sysFlag"`
	BodyCRC        int32             `json:"bodyCRC"`
	BodyCRCOk      bool              `json:"bodyCRCOk"`
	BornTimestamp  int64             `json:"bornTimestamp"`
	BornHost       string            `json:"bornHost"`
	StoreTimestamp int64             `json:"storeTimestamp"`
	StoreHost      string            `json:"storeHost"`
	Reconsume      int32             `json:"reconsumeTimes"`
	PreparedTx     int64             `json:"preparedTransactionOffset"`
	OffsetMsgID    string            `json:"offsetMsgId"`
	Properties     map[string]string `json:"properties"`
	BodyLength     int               `json:"bodyLength"`
	Body           string            `json:"body"`
	TagsCode       int64             `json:"tagsCode"`
}

func readGolden(t *testing.T, dir string) []goldenRecord {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "dump.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var r goldenRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestMessageGoldenRecords(t *testing.T) {
	dir := goldenStore(t)
	files := map[string][]byte{}
	n := 0
	for _, g := range readGolden(t, dir) {
		if g.Kind != "message" {
			continue
		}
		b, ok := files[g.File]
		if !ok {
			var err error
			if b, err = os.ReadFile(filepath.Join(dir, "store", g.File)); err != nil {
				t.Fatal(err)
			}
			files[g.File] = b
		}
		rec := b[g.FileOffset:]
		m, err := DecodeRecord(rec, true)
		if err != nil {
			t.Fatalf("offset %d: %v", g.PhysicalOffset, err)
		}
		checkGolden(t, g, m)
		again, err := EncodeRecord(nil, m)
		if err != nil || string(again) != string(rec[:m.StoreSize]) {
			t.Fatalf("offset %d: re-encode differs (err %v)", g.PhysicalOffset, err)
		}
		n++
	}
	if n != 164 {
		t.Fatalf("decoded %d records, want 164", n)
	}
}

func checkGolden(t *testing.T, g goldenRecord, m *MessageExt) {
	t.Helper()
	type pair struct {
		name      string
		got, want any
	}
	for _, p := range []pair{
		{"storeSize", m.StoreSize, g.StoreSize},
		{"topic", m.Topic, g.Topic},
		{"queueId", m.QueueID, g.QueueID},
		{"queueOffset", m.QueueOffset, g.QueueOffset},
		{"commitLogOffset", m.CommitLogOffset, g.CommitLogOff},
		{"physicalOffset", m.CommitLogOffset, g.PhysicalOffset},
		{"flag", m.Flag, g.Flag},
		{"sysFlag", m.SysFlag, g.SysFlag},
		{"bodyCRC", m.BodyCRC, g.BodyCRC},
		{"bodyCRCOk", BodyCRC(m.Body) == m.BodyCRC, g.BodyCRCOk},
		{"bornTimestamp", m.BornTimestamp, g.BornTimestamp},
		{"bornHost", m.BornHost.String(), g.BornHost},
		{"storeTimestamp", m.StoreTimestamp, g.StoreTimestamp},
		{"storeHost", m.StoreHost.String(), g.StoreHost},
		{"reconsumeTimes", m.ReconsumeTimes, g.Reconsume},
		{"preparedTransactionOffset", m.PreparedTransactionOffset, g.PreparedTx},
		{"msgId", m.MsgID, g.OffsetMsgID},
		{"bodyLength", len(m.Body), g.BodyLength},
		{"properties", len(m.Properties), len(g.Properties)},
	} {
		if p.got != p.want {
			t.Fatalf("offset %d %s: got %v want %v", g.PhysicalOffset, p.name, p.got, p.want)
		}
	}
	for k, v := range g.Properties {
		if m.Properties[k] != v {
			t.Fatalf("offset %d property %s: got %q want %q", g.PhysicalOffset, k, m.Properties[k], v)
		}
	}
	if len(g.Body) == g.BodyLength && string(m.Body) != g.Body {
		t.Fatalf("offset %d body: got %q want %q", g.PhysicalOffset, m.Body, g.Body)
	}
}

// TestMessageGoldenTagsCode: every consume-queue entry outside
// SCHEDULE_TOPIC_XXXX carries String.hashCode of the message's TAGS.
func TestMessageGoldenTagsCode(t *testing.T) {
	dir := goldenStore(t)
	recs := readGolden(t, dir)
	tags := map[int64]string{}
	for _, g := range recs {
		if g.Kind == "message" {
			tags[g.PhysicalOffset] = g.Properties[PropertyTags]
		}
	}
	n := 0
	for _, g := range recs {
		if g.Kind != "cq" || g.Topic == ScheduleTopic {
			continue
		}
		if got := TagsCode(tags[g.PhysicalOffset]); got != g.TagsCode {
			t.Fatalf("cq %s/%d@%d: tagsCode %d want %d", g.Topic, g.QueueID, g.QueueOffset, got, g.TagsCode)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d cq entries checked", n)
	}
}
