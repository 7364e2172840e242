package pop

import (
	"errors"
	"reflect"
	"testing"
)

// The strings below are what 5.3.3's ExtraInfoUtil builds for the same
// inputs (worked out from its source: fields joined by one space, entries
// by ';').
func TestPopExtraInfoFormats(t *testing.T) {
	if got := BuildExtraInfo(5, 1700000000000, 60000, 3, "T", "broker-a", 2, 7); got != "5 1700000000000 60000 3 0 broker-a 2 7" {
		t.Fatalf("normal: %q", got)
	}
	if got := BuildExtraInfo(0, 1, 2, 999, "%RETRY%g_T", "b", 0, 0); got != "0 1 2 999 1 b 0 0" {
		t.Fatalf("retry v1: %q", got)
	}
	if got := BuildExtraInfo(0, 1, 2, 0, "%RETRY%g+T", "b", 0, 0); got != "0 1 2 0 2 b 0 0" {
		t.Fatalf("retry v2: %q", got)
	}
	var s, m, o OffsetInfo
	s.AddStart("T", 1, 10)
	s.AddStart("%RETRY%g_T", 0, 3)
	m.AddMsgOffsets("T", 1, []int64{10, 12})
	m.AddMsgOffsets("%RETRY%g_T", 0, []int64{3})
	o.AddOrderCount("T", 1, 2)
	if s.String() != "0 1 10;1 0 3" || m.String() != "0 1 10,12;1 0 3" || o.String() != "0 1 2" {
		t.Fatalf("infos %q %q %q", s.String(), m.String(), o.String())
	}
	starts, err := ParseStartOffsetInfo(s.String())
	if err != nil || !reflect.DeepEqual(starts, map[string]int64{"0@1": 10, "1@0": 3}) {
		t.Fatalf("parse starts %v %v", starts, err)
	}
	offs, err := ParseMsgOffsetInfo(m.String())
	if err != nil || !reflect.DeepEqual(offs, map[string][]int64{"0@1": {10, 12}, "1@0": {3}}) {
		t.Fatalf("parse msg offsets %v %v", offs, err)
	}
	if _, err := ParseStartOffsetInfo("0 1 2;0 1 3"); !errors.Is(err, ErrExtraInfo) {
		t.Fatalf("duplicate key accepted: %v", err)
	}
	if InfoKey("%RETRY%g_T", 4) != "1@4" || NormalTopic("%RETRY%g_T", "g") != "T" || NormalTopic("%RETRY%g+T", "g") != "T" {
		t.Fatal("keys")
	}
}

func TestPopParseExtraInfo(t *testing.T) {
	e, err := ParseExtraInfo("5 1700000000000 60000 3 1 broker-a 2 7 123456")
	if err != nil {
		t.Fatal(err)
	}
	want := ExtraInfo{CkQueueOffset: 5, PopTime: 1700000000000, InvisibleTime: 60000, ReviveQid: 3, Retry: "1",
		BrokerName: "broker-a", QueueID: 2, QueueOffset: 7}
	if e != want {
		t.Fatalf("got %+v", e)
	}
	if e, err = ParseExtraInfo("5 1 2 999 0 b 1"); err != nil || e.QueueOffset != -1 || !e.IsOrder() {
		t.Fatalf("seven fields: %+v %v", e, err)
	}
	for _, bad := range []string{"", "1 2 3", "x 1 2 3 0 b 1", "1 2 3 99999999999 0 b 1", "1 2 3 4 0 b 1 z"} {
		if _, err := ParseExtraInfo(bad); !errors.Is(err, ErrExtraInfo) {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}

// FuzzParseExtraInfo: the receipt-handle parsers never panic, and a handle
// that parses with all eight fields rebuilds to itself.
func FuzzParseExtraInfo(f *testing.F) {
	for _, s := range []string{"5 1700000000000 60000 3 0 broker-a 2 7", "0 1 2 999 1 b 0", "", " ", "1 2 3 4 5 6 7 8 9",
		"0 1 10;1 0 3", "0 1 10,12;1 0 3", "-1 -1 -1 -1 2 x -1 -1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExtraInfo(s)
		_, _ = ParseStartOffsetInfo(s)
		_, _ = ParseMsgOffsetInfo(s)
		_, _ = ParseOrderCountInfo(s)
		if err != nil || e.QueueOffset < 0 {
			return
		}
		if _, err := RealTopic("T", "g", e.Retry); err != nil {
			return
		}
		topic := map[string]string{RetryNormal: "T", RetryV1: "%RETRY%g_T", RetryV2: "%RETRY%g+T"}[e.Retry]
		again, err := ParseExtraInfo(BuildExtraInfo(e.CkQueueOffset, e.PopTime, e.InvisibleTime, e.ReviveQid, topic,
			e.BrokerName, e.QueueID, e.QueueOffset))
		if err == nil && again != e && e.BrokerName != "" {
			t.Fatalf("round trip %+v → %+v", e, again)
		}
	})
}
