package header

import (
	"maps"
	"reflect"
	"strconv"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// javaSendV2 is the extFields of a Java 4.9.8 SEND_MESSAGE_V2 (wire.md §3.1).
var javaSendV2 = map[string]string{
	"a": "jpg1", "b": "TopicTest", "c": "TBW102", "d": "4", "e": "0", "f": "0", "g": "1795966620586", "h": "0",
	"i": "KEYS\x01K1 K2\x02WAIT\x01true\x02TAGS\x01TagA", "j": "0", "k": "false", "m": "false", "n": "broker-a",
}

// goSendV1 is the extFields of a Go client SEND_MESSAGE (wire.md §3.1).
var goSendV1 = map[string]string{
	"topic": "TopicTest", "queueId": "1", "bornTimestamp": "1700000000123", "flag": "0", "reconsumeTimes": "0",
	"unitMode": "false", "defaultTopic": "TBW102", "properties": "TAGS\x01TagA\x02", "producerGroup": "pg1",
	"sysFlag": "0", "maxReconsumeTimes": "0", "defaultTopicQueueNums": "4", "batch": "false", "bname": "broker-a",
}

func TestHeaderSendV2JavaCapture(t *testing.T) {
	var h SendMessageRequestHeaderV2
	if err := h.FromExtFields(javaSendV2); err != nil {
		t.Fatal(err)
	}
	if h.ProducerGroup != "jpg1" || h.Topic != "TopicTest" || h.DefaultTopicQueueNums != 4 ||
		h.BornTimestamp != 1795966620586 || h.BrokerName != "broker-a" || h.MaxReconsumeTimes != nil ||
		h.ReconsumeTimes == nil || *h.ReconsumeTimes != 0 || h.UnitMode || h.Batch {
		t.Fatalf("decoded %+v", h)
	}
	if got := h.ToExtFields(); !reflect.DeepEqual(got, javaSendV2) {
		t.Fatalf("re-encoded %v", got)
	}
}

func TestHeaderSendDecodeByCode(t *testing.T) {
	for _, c := range []int32{code.SendMessageV2, code.SendBatchMessage, code.SendReplyMessageV2} {
		v1, err := DecodeSendMessageRequestHeader(c, javaSendV2)
		if err != nil {
			t.Fatal(err)
		}
		if v1.ProducerGroup != "jpg1" || v1.Bname != "broker-a" || v1.QueueID != 0 || v1.Properties != javaSendV2["i"] {
			t.Fatalf("code %d: %+v", c, v1)
		}
	}
	for _, c := range []int32{code.SendMessage, code.SendReplyMessage} {
		v1, err := DecodeSendMessageRequestHeader(c, goSendV1)
		if err != nil {
			t.Fatal(err)
		}
		if v1.QueueID != 1 || v1.MaxReconsumeTimes == nil || *v1.MaxReconsumeTimes != 0 || v1.Bname != "broker-a" {
			t.Fatalf("code %d: %+v", c, v1)
		}
		if got := v1.ToExtFields(); !reflect.DeepEqual(got, goSendV1) {
			t.Fatalf("re-encoded %v", got)
		}
	}
	if _, err := DecodeSendMessageRequestHeader(code.SendMessage, javaSendV2); err == nil ||
		err.Error() != "the custom field <producerGroup> is null" {
		t.Fatalf("V2 keys under SEND_MESSAGE: err = %v", err)
	}
	if h, err := DecodeSendMessageRequestHeader(code.PullMessage, goSendV1); h != nil || err != nil {
		t.Fatalf("non-send code: %v %v", h, err)
	}
}

func TestHeaderSendV1V2Conversion(t *testing.T) {
	v1 := &SendMessageRequestHeader{}
	fillHeader(v1)
	v2 := CreateSendMessageRequestHeaderV2(v1)
	if v2.BrokerName != v1.Bname || *v2.MaxReconsumeTimes != *v1.MaxReconsumeTimes || !v2.Batch {
		t.Fatalf("v2 = %+v", v2)
	}
	ext := v2.ToExtFields()
	if ext["n"] != v1.Bname || ext["l"] != "-112" || ext["m"] != "true" || len(ext) != 14 {
		t.Fatalf("v2 ext = %v", ext)
	}
	back := CreateSendMessageRequestHeaderV1(v2)
	if !reflect.DeepEqual(back, v1) {
		t.Fatalf("back = %+v, want %+v", back, v1)
	}
	*v2.ReconsumeTimes = 99
	if *back.ReconsumeTimes == 99 {
		t.Fatal("conversion shares pointers")
	}
}

func TestHeaderSendResponseFormatting(t *testing.T) {
	h := &SendMessageResponseHeader{MsgID: "7F00000100002A9F0000000000000000", QueueID: 3, QueueOffset: 42}
	want := map[string]string{"msgId": "7F00000100002A9F0000000000000000", "queueId": "3", "queueOffset": "42"}
	if got := h.ToExtFields(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
	var back SendMessageResponseHeader
	if err := back.FromExtFields(map[string]string{"msgId": "x", "queueId": "1", "queueOffset": "1e3"}); err == nil {
		t.Fatal("1e3 accepted as a Long")
	}
	if err := back.FromExtFields(map[string]string{"msgId": "x", "queueId": "+7", "queueOffset": "-1"}); err != nil ||
		back.QueueID != 7 || back.QueueOffset != -1 {
		t.Fatalf("Integer.parseInt accepts +7: %v %+v", err, back)
	}
	if err := back.FromExtFields(map[string]string{"msgId": "x", "queueId": "2147483648", "queueOffset": "0"}); err == nil {
		t.Fatal("int32 overflow accepted")
	}
	if err := back.FromExtFields(map[string]string{"msgId": "x", "queueId": " 1", "queueOffset": "0"}); err == nil {
		t.Fatal("leading space accepted (Java does not trim)")
	}
}

// TestHeaderSendV2DecodeBoxesSmallOptionals: decoding a Java client's
// SEND_MESSAGE_V2 header allocates only the header (reconsumeTimes and
// maxReconsumeTimes, sent with nearly every message, share boxes), and
// every optional value still decodes to itself, inside the shared range
// and out of it.
func TestHeaderSendV2DecodeBoxesSmallOptionals(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := DecodeSendMessageRequestHeader(code.SendMessageV2, javaSendV2); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("%v allocations per decode, want 1", allocs)
	}
	for _, v := range []int32{-2147483648, -2, -1, 0, 1, 16, 32, 33, 99, 2147483647} {
		ext := maps.Clone(javaSendV2)
		ext["j"], ext["l"] = strconv.Itoa(int(v)), strconv.Itoa(int(v)+1)
		h, err := DecodeSendMessageRequestHeader(code.SendMessageV2, ext)
		if v == 2147483647 {
			if err == nil {
				t.Fatalf("l = %d+1 decoded", v)
			}
			continue
		}
		if err != nil || h.ReconsumeTimes == nil || *h.ReconsumeTimes != v || h.MaxReconsumeTimes == nil || *h.MaxReconsumeTimes != v+1 {
			t.Fatalf("%d: %+v %v", v, h, err)
		}
	}
}
