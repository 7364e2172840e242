package trace

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// rec joins fields with CONTENT_SPLITOR and ends the record with
// FIELD_SPLITOR, as the encoders write it.
func rec(fields ...string) string {
	return strings.Join(fields, string(ContentSplitter)) + string(FieldSplitter)
}

// javaBatch is a trace message body as the 4.9.8 Java client's
// AsyncTraceDispatcher writes it for one send, its consumption and a
// transaction commit (field order of TraceDataEncoder.encoderFromContextBean:
// Pub has 14 fields and no client host; SubAfter ends with timestamp and
// group outside the cloud).
var javaBatch = rec("Pub", "1700000000123", "DefaultRegion", "PID-test", "topic-test",
	"AC1415116D1418B4AAC217FE1B4E0000", "Tags", "Keys", "127.0.0.1:10911", "26", "245", "0",
	"0A9A002600002A9F0000000000002329", "true") +
	rec("SubBefore", "1700000000200", "DefaultRegion", "CID-test", "req-1",
		"AC1415116D1418B4AAC217FE1B4E0000", "0", "Keys") +
	rec("SubAfter", "req-1", "AC1415116D1418B4AAC217FE1B4E0000", "7", "true", "Keys", "0",
		"1700000000207", "CID-test") +
	rec("EndTransaction", "1700000000300", "DefaultRegion", "PID-tx", "topic-tx",
		"AC1415116D1418B4AAC217FE1B4E0001", "TagTx", "k1 k2", "127.0.0.1:10911", "1",
		"tx-1", "COMMIT_MESSAGE", "false")

func TestTraceDecodeJavaClientBatch(t *testing.T) {
	got, err := Decode(javaBatch)
	if err != nil {
		t.Fatal(err)
	}
	msgID := "AC1415116D1418B4AAC217FE1B4E0000"
	want := []Context{
		{Type: Pub, TimeStamp: 1700000000123, RegionID: "DefaultRegion", GroupName: "PID-test", CostTime: 245, Success: true,
			Beans: []Bean{{Topic: "topic-test", MsgID: msgID, Tags: "Tags", Keys: "Keys", StoreHost: "127.0.0.1:10911",
				BodyLength: 26, MsgType: NormalMsg, OffsetMsgID: "0A9A002600002A9F0000000000002329"}}},
		{Type: SubBefore, TimeStamp: 1700000000200, RegionID: "DefaultRegion", GroupName: "CID-test", RequestID: "req-1",
			Beans: []Bean{{MsgID: msgID, Keys: "Keys"}}},
		{Type: SubAfter, RequestID: "req-1", CostTime: 7, Success: true, TimeStamp: 1700000000207, GroupName: "CID-test",
			Beans: []Bean{{MsgID: msgID, Keys: "Keys"}}},
		{Type: EndTransaction, TimeStamp: 1700000000300, RegionID: "DefaultRegion", GroupName: "PID-tx",
			Beans: []Bean{{Topic: "topic-tx", MsgID: "AC1415116D1418B4AAC217FE1B4E0001", Tags: "TagTx", Keys: "k1 k2",
				StoreHost: "127.0.0.1:10911", MsgType: TransMsgHalf, TransactionID: "tx-1", TransactionState: "COMMIT_MESSAGE"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got, want)
	}
	// Encoding the decoded records gives the Java bytes back, and the keys
	// AsyncTraceDispatcher indexes the trace message by.
	var sb strings.Builder
	var keys []string
	for i := range got {
		d, k := Encode(&got[i])
		sb.WriteString(d)
		keys = append(keys, k...)
	}
	if sb.String() != javaBatch {
		t.Fatalf("re-encoded %q\nwant %q", sb.String(), javaBatch)
	}
	wantKeys := []string{msgID, "Keys", msgID, "Keys", msgID, "Keys", "AC1415116D1418B4AAC217FE1B4E0001", "k1", "k2"}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Fatalf("keys %q, want %q", keys, wantKeys)
	}
}

// TestTraceDecodeGoClientRecords: rocketmq-client-go writes a 15th Pub
// field (client host), "null" for empty consumer keys and strips the
// namespace from groups and topics.
func TestTraceDecodeGoClientRecords(t *testing.T) {
	data := rec("Pub", "1700000000123", "", "pg", "T", "MSGID", "", "", "127.0.0.1:10911", "5", "3", "0", "OFF", "true", "10.0.0.7") +
		rec("SubBefore", "1700000000200", "", "cg", "req", "MSGID", "0", "null", "10.0.0.8")
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Beans[0].ClientHost != "10.0.0.7" || got[0].Beans[0].OffsetMsgID != "OFF" || !got[0].Success ||
		got[0].Beans[0].Tags != "" || got[1].Beans[0].Keys != "null" || got[1].GroupName != "cg" {
		t.Fatalf("decoded %+v", got)
	}
}

func TestTraceDecodeOldAndOddForms(t *testing.T) {
	// 13-field Pub (no offsetMsgId), 6-field SubAfter (no context code,
	// time or group), a record of unknown type (skipped), Boolean.parseBoolean.
	data := rec("Pub", "1", "r", "g", "T", "M", "", "", "h", "1", "2", "3", "TRUE") +
		rec("SubAfter", "req", "M", "4", "yes", "k") + rec("Other", "x") + "\u0002\u0002"
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got[0].Success || got[0].Beans[0].MsgType != DelayMsg || got[1].Success || got[1].GroupName != "" || got[1].TimeStamp != 0 {
		t.Fatalf("decoded %+v", got)
	}
	if got, err := Decode(""); got != nil || err != nil {
		t.Fatalf("empty body: %v %v", got, err)
	}
	// Java throws on these; we leave the record out, report it and keep the rest.
	for _, bad := range []string{
		rec("Pub", "1", "r"),
		rec("Pub", "x", "r", "g", "T", "M", "", "", "h", "1", "2", "0", "O", "true"),
		rec("Pub", "1", "r", "g", "T", "M", "", "", "h", "1", "2", "4", "O", "true"),
		rec("SubBefore", "1", "r", "g", "q", "M", "notint", "k"),
		rec("SubAfter", "q", "M", "99999999999", "true", "k"),
		rec("EndTransaction", "1", "r", "g", "T", "M", "", "", "h", "1", "tx", "COMMIT", "false"),
	} {
		got, err := Decode(bad + rec("SubAfter", "q", "M", "1", "true", "k"))
		if !errors.Is(err, ErrBadRecord) || len(got) != 1 || got[0].Type != SubAfter {
			t.Errorf("Decode(%q) = %+v, %v", bad, got, err)
		}
	}
}

func TestTraceEncodeCloudSubAfter(t *testing.T) {
	c := Context{Type: SubAfter, RequestID: "q", CostTime: 1, Success: true, ContextCode: 2, TimeStamp: 3, GroupName: "g",
		Cloud: true, Beans: []Bean{{MsgID: "M"}}}
	if d, _ := Encode(&c); d != "SubAfter\x01q\x01M\x011\x01true\x01\x012\x01" {
		t.Fatalf("cloud SubAfter %q", d)
	}
}

func TestTraceJavaSplit(t *testing.T) {
	for in, want := range map[string][]string{
		"": {""}, "a": {"a"}, "a\x01": {"a"}, "a\x01\x01": {"a"}, "\x01a": {"", "a"}, "\x01": {}, "a\x01\x01b": {"a", "", "b"},
	} {
		if got := javaSplit(in, ContentSplitter); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("javaSplit(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzTraceDecode(f *testing.F) {
	f.Add(javaBatch)
	f.Add(rec("Pub", "1", "r", "g", "T", "M", "", "", "h", "1", "2", "3", "TRUE"))
	f.Add("SubAfter\x01q\x01M\x011\x01true\x01\x012\x01")
	f.Add("\x02\x01\x02")
	f.Fuzz(func(t *testing.T, data string) {
		got, _ := Decode(data)
		for i := range got {
			c := &got[i]
			if len(c.Beans) != 1 {
				t.Fatalf("record %d has %d beans", i, len(c.Beans))
			}
			// Re-encoding never panics, and what it gives decodes without
			// panicking too. (It need not decode back: Java's split drops
			// trailing empty fields, so a record ending in empty fields
			// written by Java's own encoder does not decode either.)
			d, _ := Encode(c)
			_, _ = Decode(d)
		}
	})
}
