package body

import (
	"bytes"
	"compress/zlib"
	"errors"
	"testing"
)

func TestBodyNormalize(t *testing.T) {
	cases := map[string]string{
		`{"brokerAddrs":{0:"a",1:"b"}}`:                                  `{"brokerAddrs":{"0":"a","1":"b"}}`,
		`{"offsetTable":{{"brokerName":"b","queueId":1,"topic":"t"}:5}}`: `{"offsetTable":{"{\"brokerName\":\"b\",\"queueId\":1,\"topic\":\"t\"}":5}}`,
		`{ a : 'x\'y' , "n":-1.5e3, "l":[true,false,null] }`:             `{"a":"x'y","n":-1.5e3,"l":[true,false,null]}`,
		`{2:1,-3:0}`: `{"2":1,"-3":0}`,
		`"\u00e9\n"`: "\"\u00e9\\n\"",
	}
	for in, want := range cases {
		got, err := Normalize([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if string(got) != want {
			t.Errorf("Normalize(%s)\n got %s\nwant %s", in, got, want)
		}
	}
}

func TestBodyNormalizeRejects(t *testing.T) {
	deep := bytes.Repeat([]byte("["), 10000)
	for _, in := range []string{``, `{`, `{"a"}`, `{"a":}`, `[1,]x`, `"abc`, `{"a":1}}`, `tru`, `{"a":"\u12"}`, string(deep)} {
		if _, err := Normalize([]byte(in)); !errors.Is(err, ErrBadJSON) {
			t.Errorf("Normalize(%.20q) err = %v, want ErrBadJSON", in, err)
		}
	}
}

func TestBodyAppendStringEscapes(t *testing.T) {
	if got := string(AppendString(nil, "a\"\\\x01/é", false)); got != `"a\"\\\u0001/é"` {
		t.Fatalf("plain: %s", got)
	}
	if got := string(AppendString(nil, "/é😀", true)); got != `"\/\u00E9\uD83D\uDE00"` {
		t.Fatalf("browser: %s", got)
	}
}

func TestBodyRouteLegacyAndStandard(t *testing.T) {
	r := &TopicRouteData{
		QueueDatas:        []QueueData{{BrokerName: "b", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6}},
		BrokerDatas:       []BrokerData{{Cluster: "c", BrokerName: "b", BrokerAddrs: map[int64]string{1: "s:1", 0: "m:1"}}},
		FilterServerTable: map[string][]string{},
		OrderTopicConf:    "b:4",
	}
	legacy := `{"brokerDatas":[{"brokerAddrs":{0:"m:1",1:"s:1"},"brokerName":"b","cluster":"c"}],"filterServerTable":{},"orderTopicConf":"b:4","queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}`
	if got := string(r.Encode(false)); got != legacy {
		t.Fatalf("legacy:\n got %s\nwant %s", got, legacy)
	}
	std := r.Encode(true)
	back, err := DecodeTopicRouteData(std)
	if err != nil || back.BrokerDatas[0].BrokerAddrs[1] != "s:1" || back.OrderTopicConf != "b:4" {
		t.Fatalf("standard round trip: %v %+v", err, back)
	}
	back, err = DecodeTopicRouteData([]byte(legacy))
	if err != nil || back.BrokerDatas[0].BrokerAddrs[0] != "m:1" || back.QueueDatas[0].Perm != 6 {
		t.Fatalf("legacy decode: %v %+v", err, back)
	}
}

func TestBodyRegisterCompressedRoundTrip(t *testing.T) {
	in := &RegisterBrokerBody{
		TopicConfigSerializeWrapper: TopicConfigSerializeWrapper{
			DataVersion:      DataVersion{Timestamp: 1700000000000, Counter: 3},
			TopicConfigTable: map[string]TopicConfig{"T1": NewTopicConfig("T1"), "T2": {TopicName: "T2", ReadQueueNums: 2, WriteQueueNums: 1, Perm: 4, TopicFilterType: "MULTI_TAG"}},
		},
		FilterServerList: []string{"1.2.3.4:1"},
	}
	data, err := in.Encode(true)
	if err != nil {
		t.Fatal(err)
	}
	if data[0] != 0x78 || data[1] != 0xDA {
		t.Fatalf("not a BEST_COMPRESSION zlib stream: % x", data[:2])
	}
	out, err := DecodeRegisterBrokerBody(data, true)
	if err != nil {
		t.Fatal(err)
	}
	w := out.TopicConfigSerializeWrapper
	if w.DataVersion != in.TopicConfigSerializeWrapper.DataVersion || len(w.TopicConfigTable) != 2 ||
		w.TopicConfigTable["T2"].Perm != 4 || w.TopicConfigTable["T2"].ReadQueueNums != 2 || out.FilterServerList[0] != "1.2.3.4:1" {
		t.Fatalf("round trip: %+v", out)
	}
}

func TestBodyRegisterCompressed5xSixFields(t *testing.T) {
	var raw bytes.Buffer
	item := func(s string) {
		raw.Write([]byte{0, 0, 0, byte(len(s))})
		raw.WriteString(s)
	}
	item(`{"counter":1,"stateVersion":0,"timestamp":5}`)
	raw.Write([]byte{0, 0, 0, 1})
	item(`T 8 8 6 SINGLE_TAG {"+a":"b"}`)
	item(`[]`)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(raw.Bytes())
	_ = zw.Close()
	out, err := DecodeRegisterBrokerBody(z.Bytes(), true)
	if err != nil || out.TopicConfigSerializeWrapper.TopicConfigTable["T"].ReadQueueNums != 8 {
		t.Fatalf("5.x compressed: %v %+v", err, out)
	}
}

func TestBodyRegisterMalformed(t *testing.T) {
	good, _ := (&RegisterBrokerBody{TopicConfigSerializeWrapper: TopicConfigSerializeWrapper{TopicConfigTable: map[string]TopicConfig{"T": NewTopicConfig("T")}}}).Encode(true)
	bad := [][]byte{nil, {1, 2, 3}, good[:len(good)/2], []byte("not zlib at all")}
	for _, b := range bad {
		if _, err := DecodeRegisterBrokerBody(b, true); err == nil {
			t.Errorf("compressed %x: want error", b)
		}
	}
	for _, s := range []string{"", "{", `{"topicConfigSerializeWrapper":5}`, `[1,2]`} {
		if _, err := DecodeRegisterBrokerBody([]byte(s), false); err == nil {
			t.Errorf("json %q: want error", s)
		}
	}
	var huge bytes.Buffer
	zw := zlib.NewWriter(&huge)
	_, _ = zw.Write([]byte{0x7F, 0xFF, 0xFF, 0xFF})
	_ = zw.Close()
	if _, err := DecodeRegisterBrokerBody(huge.Bytes(), true); !errors.Is(err, ErrBadRegisterBody) {
		t.Fatalf("huge length: %v", err)
	}
}

func TestBodyKVTableAndTopicList(t *testing.T) {
	kv := &KVTable{Table: map[string]string{"TopicA": "broker-a:4"}}
	if got := string(kv.Encode()); got != `{"table":{"TopicA":"broker-a:4"}}` {
		t.Fatal(got)
	}
	back, err := DecodeKVTable(kv.Encode())
	if err != nil || back.Table["TopicA"] != "broker-a:4" {
		t.Fatal(err)
	}
	tl := &TopicList{TopicList: []string{"a"}, BrokerAddr: "x:1"}
	if got := string(tl.Encode()); got != `{"brokerAddr":"x:1","topicList":["a"]}` {
		t.Fatal(got)
	}
	if got := string((&TopicList{}).Encode()); got != `{"topicList":[]}` {
		t.Fatal(got)
	}
}
