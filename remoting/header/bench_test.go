package header

import (
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func BenchmarkHeaderSendV2Decode(b *testing.B) {
	b.ReportAllocs()
	var h SendMessageRequestHeaderV2
	for i := 0; i < b.N; i++ {
		if err := h.FromExtFields(javaSendV2); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHeaderSendResponseEncode(b *testing.B) {
	b.ReportAllocs()
	h := &SendMessageResponseHeader{MsgID: "7F00000100002A9F0000000000000000", QueueID: 3, QueueOffset: 42}
	for i := 0; i < b.N; i++ {
		_ = h.ToExtFields()
	}
}

func BenchmarkHeaderPullDecode(b *testing.B) {
	b.ReportAllocs()
	ext := (&PullMessageRequestHeader{ConsumerGroup: "g", Topic: "t", QueueID: 1, MaxMsgNums: 32, SysFlag: 2,
		CommitOffset: -1, SuspendTimeoutMillis: 15000, SubVersion: 1, ExpressionType: "TAG", Bname: "b"}).ToExtFields()
	var h PullMessageRequestHeader
	for i := 0; i < b.N; i++ {
		if err := h.FromExtFields(ext); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHeaderPullResponseEncode(b *testing.B) {
	b.ReportAllocs()
	h := &PullMessageResponseHeader{NextBeginOffset: 32, MinOffset: 0, MaxOffset: 32}
	for i := 0; i < b.N; i++ {
		_ = h.ToExtFields()
	}
}

// BenchmarkHeaderDecodeSendMessageRequestHeaderV2 is what the broker does
// per SEND_MESSAGE_V2: the one-letter keys to the V1 form processors use.
func BenchmarkHeaderDecodeSendMessageRequestHeaderV2(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeSendMessageRequestHeader(code.SendMessageV2, javaSendV2); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSendLazy is what the broker does per send: the typed header read
// straight from a lazily decoded request (DecodeSendRequestInto).
func benchSendLazy(b *testing.B, c int32, ext map[string]string) {
	frame := sendFrame(b, c, codec.JSON, ext)
	req, err := codec.DecodeLazy(frame)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var h SendMessageRequestHeader
	for b.Loop() {
		if ok, err := DecodeSendRequestInto(&h, req); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkHeaderSendV2Lazy reads a Java client's SEND_MESSAGE_V2 header.
func BenchmarkHeaderSendV2Lazy(b *testing.B) { benchSendLazy(b, code.SendMessageV2, javaSendV2) }

// BenchmarkHeaderSendV1Lazy reads the Go client's SEND_MESSAGE header.
func BenchmarkHeaderSendV1Lazy(b *testing.B) {
	benchSendLazy(b, code.SendMessage, (&SendMessageRequestHeader{ProducerGroup: "pg", Topic: "TopicTest",
		DefaultTopic: "TBW102", DefaultTopicQueueNums: 4, QueueID: 3, BornTimestamp: 1795966620586,
		Properties: "KEYS\x01K1\x02TAGS\x01TagA", ReconsumeTimes: new(int32), MaxReconsumeTimes: new(int32), Bname: "broker-a"}).ToExtFields())
}

// testAnswer is a send answer's header given field by field, as the
// broker's sendAnswer gives it (codec.ExtSource, keys in HashMap order).
type testAnswer struct{ keys []string }

var testAnswerKeys = codec.HashMapOrder("MSG_REGION", "TRACE_ON", "msgId", "queueId", "queueOffset")

func (a *testAnswer) ExtEntry(i int) (codec.ExtEntry, bool) {
	if i >= len(a.keys) {
		return codec.ExtEntry{}, false
	}
	switch k := a.keys[i]; k {
	case "MSG_REGION":
		return codec.ExtEntry{Key: k, Value: "DefaultRegion"}, true
	case "TRACE_ON":
		return codec.ExtEntry{Key: k, Value: "true"}, true
	case "msgId":
		return codec.ExtEntry{Key: k, Value: "7F00000100002A9F00000000000A1B2C"}, true
	case "queueId":
		return codec.ExtEntry{Key: k, Num: 3, IsNum: true}, true
	}
	return codec.ExtEntry{Key: "queueOffset", Num: 1234567, IsNum: true}, true
}

// benchSendHeaderPath is the header codec work of one send in the broker:
// decode the request frame lazily, read its typed header, encode the
// answer's header from an ExtSource; the store's work is left out.
func benchSendHeaderPath(b *testing.B, st codec.SerializeType, c int32, ext map[string]string) {
	frame := sendFrame(b, c, st, ext)
	ans := &testAnswer{keys: testAnswerKeys}
	out := make([]byte, 0, 512)
	b.ReportAllocs()
	var h SendMessageRequestHeader
	for b.Loop() {
		req, err := codec.DecodeLazy(frame)
		if err != nil {
			b.Fatal(err)
		}
		if ok, err := DecodeSendRequestInto(&h, req); !ok || err != nil {
			b.Fatal(ok, err)
		}
		resp := codec.NewResponse(code.Success, "")
		resp.Opaque, resp.SerializeType, resp.ExtSource = req.Opaque, req.SerializeType, ans
		codec.Release(req)
		if out, err = codec.AppendFrame(out[:0], resp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHeaderSendPathV2JSON is a Java client's SEND_MESSAGE_V2 in JSON.
func BenchmarkHeaderSendPathV2JSON(b *testing.B) {
	benchSendHeaderPath(b, codec.JSON, code.SendMessageV2, javaSendV2)
}

// BenchmarkHeaderSendPathV2RocketMQ is the same in ROCKETMQ.
func BenchmarkHeaderSendPathV2RocketMQ(b *testing.B) {
	benchSendHeaderPath(b, codec.RocketMQ, code.SendMessageV2, javaSendV2)
}

// BenchmarkHeaderSendPathV1JSON is the Go client's SEND_MESSAGE in JSON.
func BenchmarkHeaderSendPathV1JSON(b *testing.B) {
	benchSendHeaderPath(b, codec.JSON, code.SendMessage, (&SendMessageRequestHeader{ProducerGroup: "pg", Topic: "TopicTest",
		DefaultTopic: "TBW102", DefaultTopicQueueNums: 4, QueueID: 3, BornTimestamp: 1795966620586,
		Properties:     "KEYS\x01K1\x02UNIQ_KEY\x01FD000000000000000000000000000002000000\x02WAIT\x01true\x02TAGS\x01TagA",
		ReconsumeTimes: new(int32), MaxReconsumeTimes: new(int32), Bname: "broker-a"}).ToExtFields())
}
