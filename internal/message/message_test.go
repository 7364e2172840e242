package message

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"
)

func sampleExt(born, store string) *MessageExt {
	return &MessageExt{
		Message:                   Message{Topic: "TopicA", Flag: 7, Body: []byte("hello body")},
		PropertiesString:          "TAGS\x01tg\x02KEYS\x01k1 k2",
		QueueID:                   3,
		QueueOffset:               42,
		CommitLogOffset:           123456,
		SysFlag:                   SysFlagTransCommit,
		BornTimestamp:             1700000000000,
		BornHost:                  netip.MustParseAddrPort(born),
		StoreTimestamp:            1700000000123,
		StoreHost:                 netip.MustParseAddrPort(store),
		ReconsumeTimes:            2,
		PreparedTransactionOffset: 99,
	}
}

func TestMessageRecordRoundTripIPv4AndIPv6(t *testing.T) {
	for _, tc := range []struct {
		born, store string
		size        int
		flags       int32
	}{
		{"10.0.0.1:5000", "127.0.0.1:10911", 84 + 4 + 10 + 1 + 6 + 2 + 18, 0},
		{"[2001:db8::1]:5000", "127.0.0.1:10911", 96 + 4 + 10 + 1 + 6 + 2 + 18, SysFlagBornHostV6},
		{"10.0.0.1:5000", "[::1]:10911", 96 + 4 + 10 + 1 + 6 + 2 + 18, SysFlagStoreHostV6},
		{"[fe80::2]:1", "[::1]:10911", 108 + 4 + 10 + 1 + 6 + 2 + 18, SysFlagBornHostV6 | SysFlagStoreHostV6},
	} {
		m := sampleExt(tc.born, tc.store)
		b, err := EncodeRecord(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != tc.size || int(binary.BigEndian.Uint32(b)) != tc.size {
			t.Fatalf("%s/%s: size %d want %d", tc.born, tc.store, len(b), tc.size)
		}
		got, err := DecodeRecord(b, true)
		if err != nil {
			t.Fatal(err)
		}
		if got.SysFlag != SysFlagTransCommit|tc.flags || got.BornHost.String() != tc.born ||
			got.StoreHost.String() != tc.store || got.Topic != "TopicA" || string(got.Body) != "hello body" ||
			got.Properties["KEYS"] != "k1 k2" || got.QueueOffset != 42 || got.ReconsumeTimes != 2 ||
			got.PreparedTransactionOffset != 99 || got.StoreTimestamp != 1700000000123 {
			t.Fatalf("round trip mismatch: %+v", got)
		}
		ts := int64(binary.BigEndian.Uint64(b[StoreTimestampPos(got.SysFlag):]))
		if ts != m.StoreTimestamp {
			t.Fatalf("StoreTimestampPos wrong: %d", ts)
		}
		if ts, ok := StoreTimestampOf(b); !ok || ts != m.StoreTimestamp {
			t.Fatalf("StoreTimestampOf = %d, %v", ts, ok)
		}
		if _, ok := StoreTimestampOf(b[:StoreTimestampPos(got.SysFlag)+7]); ok {
			t.Fatal("StoreTimestampOf read a truncated record")
		}
		if got.MsgID != OffsetMsgID(m.StoreHost, 123456) {
			t.Fatalf("msgId %s", got.MsgID)
		}
	}
}

func TestMessageRecordRejectsBadInput(t *testing.T) {
	b, _ := EncodeRecord(nil, sampleExt("1.2.3.4:1", "5.6.7.8:2"))
	for i := 0; i < len(b); i++ {
		if _, err := DecodeRecord(b[:i], true); err == nil {
			t.Fatalf("truncated at %d decoded", i)
		}
	}
	bad := bytes.Clone(b)
	binary.BigEndian.PutUint32(bad[4:], 0x12345678)
	if _, err := DecodeRecord(bad, true); !errors.Is(err, ErrBadMagic) {
		t.Fatalf("bad magic: %v", err)
	}
	bad = bytes.Clone(b)
	binary.BigEndian.PutUint32(bad, uint32(len(b)+4))
	if _, err := DecodeRecord(append(bad, 0, 0, 0, 0), true); !errors.Is(err, ErrBadRecordSize) {
		t.Fatalf("size mismatch: %v", err)
	}
	long := sampleExt("1.2.3.4:1", "5.6.7.8:2")
	long.Topic = string(bytes.Repeat([]byte("t"), 128))
	if _, err := EncodeRecord(nil, long); !errors.Is(err, ErrTopicTooLong) {
		t.Fatalf("long topic: %v", err)
	}
}

func TestMessagePropertiesJavaRules(t *testing.T) {
	m := UnmarshalProperties("A\x011\x02B\x01\x02\x01x\x02C\x013\x02\x02D\x01d=e\x02")
	if len(m) != 3 || m["A"] != "1" || m["C"] != "3" || m["D"] != "d=e" {
		t.Fatalf("parsed %v", m)
	}
	if s := MarshalProperties(map[string]string{"b": "2", "a": "1"}); s != "a\x011\x02b\x012" {
		t.Fatalf("marshal %q", s)
	}
	s := AppendProperty("a\x011\x02", "CLUSTER", "c")
	if s != "a\x011\x02CLUSTER\x01c" || AppendProperty("a\x011", "x", "y") != "a\x011\x02x\x01y" {
		t.Fatalf("append %q", s)
	}
	if r := RemoveProperty("WAIT\x01true\x02a\x011\x02WAITX\x012", "WAIT"); r != "a\x011\x02WAITX\x012" {
		t.Fatalf("remove %q", r)
	}
	if PropertyValue("TAGSX\x01no\x02TAGS\x01yes", "TAGS") != "yes" || PropertyValue("A\x011", "TAGS") != "" {
		t.Fatal("PropertyValue")
	}
}

func TestMessageJavaStringHash(t *testing.T) {
	for s, want := range map[string]int32{
		"": 0, "TagA": 2598919, "d": 100, "hello": 99162322,
		"é":                  233,              // one UTF-16 unit
		"😀":                  55357*31 + 56832, // surrogate pair 0xD83D 0xDE00
		"polygenelubricants": -2147483648,
	} {
		if got := JavaStringHash(s); got != want {
			t.Fatalf("hash(%q) = %d want %d", s, got, want)
		}
	}
}

func TestMessageBodyCRCTopBitCleared(t *testing.T) {
	// crc32("123456789") = 0xCBF43926; stored value clears the top bit.
	if got := BodyCRC([]byte("123456789")); got != 0x4BF43926 {
		t.Fatalf("crc %#x", got)
	}
}

func TestMessageOffsetMsgID(t *testing.T) {
	h := netip.MustParseAddrPort("127.0.0.1:28911")
	id := OffsetMsgID(h, 2928)
	if id != "7F000001000070EF0000000000000B70" {
		t.Fatalf("id %s", id)
	}
	gh, off, err := DecodeOffsetMsgID(id)
	if err != nil || gh != h || off != 2928 {
		t.Fatalf("decode %v %d %v", gh, off, err)
	}
	h6 := netip.MustParseAddrPort("[2001:db8::5]:10911")
	id6 := OffsetMsgID(h6, 1<<40)
	if len(id6) != 56 {
		t.Fatalf("ipv6 id %s", id6)
	}
	if gh, off, err := DecodeOffsetMsgID(id6); err != nil || gh != h6 || off != 1<<40 {
		t.Fatalf("decode6 %v %d %v", gh, off, err)
	}
	for _, bad := range []string{"", "7F00", "ZZ000001000070EF0000000000000B70"} {
		if _, _, err := DecodeOffsetMsgID(bad); !errors.Is(err, ErrBadMsgID) {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}

// TestMessageOffsetMsgIDPortOutOfRange: the port is an i32 on the wire;
// Java's InetSocketAddress refuses one outside 0..65535, so such an id is
// malformed rather than naming another port (0x128EF is not 0x28EF).
func TestMessageOffsetMsgIDPortOutOfRange(t *testing.T) {
	for _, bad := range []string{
		"7F000001000128EF0000000000000B70",                                   // port 0x128EF
		"7F000001000100000000000000000B70",                                   // port 65536
		"7F000001FFFFFFFF0000000000000B70",                                   // port -1
		"20010DB8000000000000000000000005" + "00010000" + "0000000000000B70", // IPv6, port 65536
	} {
		if h, _, err := DecodeOffsetMsgID(bad); !errors.Is(err, ErrBadMsgID) {
			t.Fatalf("%q: decoded as %v, err %v; want ErrBadMsgID", bad, h, err)
		}
	}
	h, off, err := DecodeOffsetMsgID("7F0000010000FFFF0000000000000B70")
	if err != nil || h != netip.MustParseAddrPort("127.0.0.1:65535") || off != 2928 {
		t.Fatalf("port 65535: %v %d %v", h, off, err)
	}
}

func TestMessageParseUniqKey(t *testing.T) {
	k, err := ParseUniqKey("FD0000000000000000000000000000027DE430946E0993B953360000")
	if err != nil || k.IP.String() != "fd00::2" || k.PID != 0x7DE4 || k.ClassLoaderHash != 0x30946E09 ||
		uint32(k.MonthMillis) != 0x93B95336 || k.Counter != 0 {
		t.Fatalf("%+v %v", k, err)
	}
	k, err = ParseUniqKey("7F0000010F0100000000abcdef010002")
	if err != nil || k.IP.String() != "127.0.0.1" || k.PID != 0x0F01 || uint32(k.MonthMillis) != 0xabcdef01 || k.Counter != 2 {
		t.Fatalf("%+v %v", k, err)
	}
}

func TestMessageBatchRoundTrip(t *testing.T) {
	items := []BatchItem{{Flag: 1, Body: []byte("a"), PropertiesString: "UNIQ_KEY\x01x"}, {Body: []byte("bb")}}
	b := EncodeBatch(nil, items)
	got, err := DecodeBatch(b)
	if err != nil || len(got) != 2 || got[0].Flag != 1 || string(got[1].Body) != "bb" || got[0].PropertiesString != "UNIQ_KEY\x01x" {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := DecodeBatch(b[:len(b)-1]); err == nil {
		t.Fatal("truncated batch accepted")
	}
}

func FuzzDecodeMessage(f *testing.F) {
	b, _ := EncodeRecord(nil, sampleExt("1.2.3.4:1", "[::1]:2"))
	f.Add(b)
	f.Add(b[:50])
	f.Add(EncodeBatch(nil, []BatchItem{{Body: []byte("x")}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if m, err := DecodeRecord(data, true); err == nil {
			if int(m.StoreSize) > len(data) {
				t.Fatal("consumed more than input")
			}
			// Ports are i32 on disk but uint16 in memory and IPv4-mapped
			// addresses shrink, so compare after one normalising pass.
			again, err := EncodeRecord(nil, m)
			if err != nil {
				return
			}
			m2, err := DecodeRecord(again, true)
			if err != nil {
				t.Fatalf("re-encoded record does not decode: %v", err)
			}
			third, _ := EncodeRecord(nil, m2)
			if !bytes.Equal(again, third) {
				t.Fatal("re-encode not stable")
			}
		}
		_, _ = DecodeRecords(data, false)
		_, _ = DecodeBatch(data)
		_ = UnmarshalProperties(string(data))
		_, _ = ParseUniqKey(string(data))
		_, _, _ = DecodeOffsetMsgID(string(data))
	})
}

func TestMessageZeroHostsEncodeAsIPv4Zero(t *testing.T) {
	m := sampleExt("1.2.3.4:1", "5.6.7.8:2")
	m.BornHost, m.StoreHost = netip.AddrPort{}, netip.AddrPort{}
	b, err := EncodeRecord(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRecord(b, true)
	if err != nil || got.BornHost.String() != "0.0.0.0:0" || got.SysFlag&(SysFlagBornHostV6|SysFlagStoreHostV6) != 0 {
		t.Fatalf("%v %v", got.BornHost, err)
	}
	if OffsetMsgID(netip.AddrPort{}, 1) != "00000000000000000000000000000001" {
		t.Fatal("zero host msgId")
	}
}

// TestMessagePutRecordInPlaceOverwritesEveryByte: rendering in place into a
// dirty buffer (as the CommitLog does into its mapping) gives exactly the
// bytes EncodeRecord appends, for every host family combination.
func TestMessagePutRecordInPlaceOverwritesEveryByte(t *testing.T) {
	for _, hosts := range [][2]string{{"10.0.0.1:5000", "127.0.0.1:10911"}, {"[2001:db8::1]:5000", "[::1]:10911"}} {
		m := sampleExt(hosts[0], hosts[1])
		want, err := EncodeRecord(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		n, sys, err := RecordSize(m)
		if err != nil || n != len(want) {
			t.Fatalf("RecordSize %d %v, want %d", n, err, len(want))
		}
		b := bytes.Repeat([]byte{0xAA}, n)
		PutRecord(b, m, sys, BodyCRC(m.Body))
		if !bytes.Equal(b, want) {
			t.Fatalf("%v: in-place record differs\n got %x\nwant %x", hosts, b, want)
		}
	}
	long := sampleExt("10.0.0.1:5000", "127.0.0.1:10911")
	long.Topic = string(bytes.Repeat([]byte{'t'}, MaxTopicLength+1))
	if _, _, err := RecordSize(long); !errors.Is(err, ErrTopicTooLong) {
		t.Fatalf("long topic: %v", err)
	}
}
