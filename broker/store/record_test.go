package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
)

// parseStore is a store with just what dispatchRequest needs.
func parseStore() *DefaultMessageStore {
	table, maxLevel, _ := commitlog.ParseDelayLevels(NewMessageStoreConfig().MessageDelayLevel)
	return &DefaultMessageStore{cqTable: nil, delayLevels: table, maxDelayLevel: maxLevel}
}

// refCheck is the reference parser the in-place one is compared with:
// Java checkMessageAndReturnSize written over message.DecodeRecord, which
// decodes the whole record into a message. size is the record size for
// recordValid and recordMismatch.
func refCheck(b []byte, checkCRC bool, delay map[int]int64, maxLevel int) (commitlog.DispatchRequest, recordStatus, int32) {
	var d commitlog.DispatchRequest
	if len(b) < 8 {
		return d, recordBad, 0
	}
	total := int32(binary.BigEndian.Uint32(b))
	switch int32(binary.BigEndian.Uint32(b[4:])) {
	case message.BlankMagicCode:
		return d, recordBlank, 0
	case message.MagicCode:
	default:
		return d, recordBad, 0
	}
	if total < 8 || int(total) > len(b) {
		return d, recordBad, 0
	}
	m, err := message.DecodeRecord(b[:total], checkCRC)
	switch {
	case errors.Is(err, message.ErrBadRecordSize):
		return d, recordMismatch, total
	case err != nil, checkCRC && message.BodyCRC(m.Body) != m.BodyCRC:
		return d, recordBad, 0
	}
	d = commitlog.DispatchRequest{Topic: m.Topic, QueueID: m.QueueID, CommitLogOffset: m.CommitLogOffset, MsgSize: total,
		TagsCode: message.TagsCode(m.Properties[message.PropertyTags]), StoreTimestamp: m.StoreTimestamp,
		ConsumeQueueOffset: m.QueueOffset, Keys: m.Properties[message.PropertyKeys],
		UniqKey: m.Properties[message.PropertyUniqClientMessageIDKeyidx], SysFlag: m.SysFlag,
		PreparedTransactionOffset: m.PreparedTransactionOffset, BornTimestamp: m.BornTimestamp, Properties: m.Properties}
	if lv, err := strconv.Atoi(m.Properties[message.PropertyDelayTimeLevel]); err == nil && lv > 0 && m.Topic == message.ScheduleTopic {
		d.TagsCode = m.StoreTimestamp + 1000 // Java's fallback for an unknown level
		if ms, ok := delay[min(lv, maxLevel)]; ok {
			d.TagsCode = m.StoreTimestamp + ms
		}
	}
	return d, recordValid, total
}

// compareWithReference asserts that parseRecord (+ dispatchRequest)
// classifies b and extracts the same dispatch fields as the reference
// parser refCheck.
func compareWithReference(t *testing.T, s *DefaultMessageStore, b []byte, checkCRC bool) {
	t.Helper()
	want, wantSt, wantSize := refCheck(b, checkCRC, s.delayLevels, s.maxDelayLevel)
	v, st := parseRecord(b, checkCRC)
	if st != wantSt {
		t.Fatalf("status %d, want %d", st, wantSt)
	}
	switch st {
	case recordValid:
		got := s.dispatchRequest(&v, true)
		if !maps.Equal(got.Properties, want.Properties) {
			t.Fatalf("properties %v, want %v", got.Properties, want.Properties)
		}
		got.Properties, want.Properties = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("dispatch request\n got %+v\nwant %+v", got, want)
		}
		// without the map (slave, no listener) the same fields
		if got := s.dispatchRequest(&v, false); !reflect.DeepEqual(got, want) {
			t.Fatalf("dispatch request without properties\n got %+v\nwant %+v", got, want)
		}
	case recordMismatch:
		if v.size != wantSize {
			t.Fatalf("mismatch size %d, want %d", v.size, wantSize)
		}
	}
}

// storeRecords writes a variety of records (tags, several keys, non-ASCII
// tags, a delayed message, an empty body) and returns the CommitLog bytes.
func storeRecords(t *testing.T) []byte {
	s := startStore(t, smallConfig(t))
	body := []byte("hello")
	mustPut(t, s, newMsg("TopicA", 0, "TagA", "k1 k2  k3", body))
	mustPut(t, s, newMsg("TopicA", 1, "", "", nil))
	mustPut(t, s, newMsg("TopicB", 2, "标签", "键", body))
	d := newMsg("TopicA", 0, "TagD", "", body)
	d.Properties[message.PropertyDelayTimeLevel] = "3"
	d.PropertiesString = message.MarshalProperties(d.Properties)
	mustPut(t, s, d)
	dup := newMsg("TopicA", 0, "x", "", body)
	dup.PropertiesString += "\x02TAGS\x01second\x02KEYS\x01\x02\x01v"
	mustPut(t, s, dup)
	waitDispatched(t, s)
	buf := s.GetCommitLogData(0)
	if buf == nil {
		t.Fatal("no commitlog data")
	}
	defer buf.Release()
	return bytes.Clone(buf.Bytes)
}

// TestStoreParseRecordMatchesReference walks real records (ours and the
// golden Java 4.9.8 CommitLog when present) and corrupted variants of them.
func TestStoreParseRecordMatchesReference(t *testing.T) {
	s := parseStore()
	logs := [][]byte{storeRecords(t)}
	if b, err := os.ReadFile(filepath.Join(goldenDirOrEmpty(), "store-clean", "store", "commitlog", "00000000000000000000")); err == nil {
		logs = append(logs, b)
	}
	records := 0
	for _, log := range logs {
		for pos := 0; pos+8 <= len(log); {
			rec := log[pos:]
			size := int(int32(binary.BigEndian.Uint32(rec)))
			if int32(binary.BigEndian.Uint32(rec[4:])) != message.MagicCode || size <= 0 || size > len(rec) {
				compareWithReference(t, s, rec, true)
				break
			}
			records++
			for _, crc := range []bool{true, false} {
				compareWithReference(t, s, rec, crc)
				compareWithReference(t, s, rec[:size], crc)
				compareWithReference(t, s, rec[:size-1], crc)
			}
			c := bytes.Clone(rec[:size])
			for i := 0; i < size; i++ {
				if i >= 128 && i < size-96 && i%509 != 0 {
					continue // every header and tail byte, sampled body bytes
				}
				c[i] ^= 0x5a
				compareWithReference(t, s, c, true)
				compareWithReference(t, s, c, false)
				c[i] ^= 0x5a
			}
			pos += size
		}
	}
	if records < 5 {
		t.Fatalf("only %d records checked", records)
	}
}

// goldenDirOrEmpty is goldenDir without skipping.
func goldenDirOrEmpty() string {
	if d := os.Getenv("RMQ_GOLDEN_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "golden")
}

// FuzzStoreParseRecord: parseRecord never panics and agrees with
// the reference parser refCheck on any input.
func FuzzStoreParseRecord(f *testing.F) {
	s := parseStore()
	f.Add([]byte{0, 0, 0, 8, 0xcb, 0xd4, 0x33, 0x1e}, true)
	if b, err := os.ReadFile(filepath.Join(goldenDirOrEmpty(), "store-clean", "store", "commitlog", "00000000000000000000")); err == nil {
		for pos, n := 0, 0; n < 8 && pos+4 < len(b); n++ {
			size := int(int32(binary.BigEndian.Uint32(b[pos:])))
			if size <= 0 || pos+size > len(b) {
				break
			}
			f.Add(b[pos:pos+size], true)
			pos += size
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, checkCRC bool) {
		compareWithReference(t, s, b, checkCRC)
	})
}

// TestStorePropValue pins scanDispatchProps to the property lookup rules of
// message.UnmarshalProperties.
func TestStorePropValue(t *testing.T) {
	cases := []struct{ props, name, want string }{
		{"KEYS\x01a b\x02TAGS\x01t", "KEYS", "a b"},
		{"KEYS\x01a b\x02TAGS\x01t", "TAGS", "t"},
		{"TAGS\x01one\x02TAGS\x01two", "TAGS", "two"},
		{"TAGS\x01one\x02TAGS\x01", "TAGS", "one"},
		{"TAGSX\x01one\x02XTAGS\x01two", "TAGS", ""},
		{"TAGS\x01a\x01b", "TAGS", "a\x01b"},
		{"", "TAGS", ""},
		{"\x02\x02TAGS\x01z\x02", "TAGS", "z"},
	}
	for _, c := range cases {
		p := scanDispatchProps([]byte(c.props))
		got := string(map[string][]byte{"KEYS": p.keys, "TAGS": p.tags}[c.name])
		want := message.UnmarshalProperties(c.props)[c.name]
		if got != c.want || got != want {
			t.Errorf("scanDispatchProps(%q).%s = %q, want %q (map says %q)", c.props, c.name, got, c.want, want)
		}
	}
}

// TestStoreDispatchDelayClampedTagsCode: a DELAY level above the highest
// is stored at the highest (queue 17 of SCHEDULE_TOPIC_XXXX) and its unit's
// tagsCode is the delivery time of that level (2 h by default).
func TestStoreDispatchDelayClampedTagsCode(t *testing.T) {
	s := startStore(t, smallConfig(t))
	m := newMsg("D", 0, "", "", []byte("much later"))
	m.Properties[message.PropertyDelayTimeLevel] = "99"
	m.PropertiesString = message.MarshalProperties(m.Properties)
	r := mustPut(t, s, m)
	waitDispatched(t, s)
	cq := s.ConsumeQueue(message.ScheduleTopic, 17)
	if cq == nil {
		t.Fatal("no queue 17 in SCHEDULE_TOPIC_XXXX")
	}
	u := cq.Units(r.Append.LogicsOffset)
	if u == nil || u.Len() != 1 {
		t.Fatal("no unit")
	}
	defer u.Release()
	if phy, _, tc := u.At(0); phy != r.Append.WroteOffset || tc != r.Append.StoreTimestamp+2*3600*1000 {
		t.Fatalf("unit at %d tagsCode %d, want %d / store time + 2h (%d)", phy, tc, r.Append.WroteOffset, r.Append.StoreTimestamp+2*3600*1000)
	}
}
