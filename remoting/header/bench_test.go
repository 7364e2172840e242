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
