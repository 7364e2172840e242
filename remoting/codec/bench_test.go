package codec

import (
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// sendV2Request is a SEND_MESSAGE_V2 request as the Java 4.9.8 client sends it,
// with a 1 KiB body.
func sendV2Request(st SerializeType) *RemotingCommand {
	ext := map[string]string{
		"a": "jpg1", "b": "TopicTest", "c": "TBW102", "d": "4", "e": "0", "f": "0", "g": "1795966620586",
		"h": "0", "i": "KEYS\x01K1 K2\x02UNIQ_KEY\x01FD000000000000000000000000000002000000000000000000\x02WAIT\x01true\x02TAGS\x01TagA",
		"j": "0", "k": "false", "l": "0", "m": "false", "n": "broker-a",
	}
	body := make([]byte, 1024)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	c := NewRequest(code.SendMessageV2, ext, body)
	c.Opaque = 12345
	c.SerializeType = st
	return c
}

func benchRoundTrip(b *testing.B, st SerializeType) {
	c := sendV2Request(st)
	buf, err := AppendFrame(nil, c)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for range b.N {
		buf, err = AppendFrame(buf[:0], c)
		if err != nil {
			b.Fatal(err)
		}
		d, err := Decode(buf)
		if err != nil || d.Opaque != c.Opaque {
			b.Fatal(err)
		}
	}
}

// BenchmarkCodecRoundTripJSON encodes a new SEND_MESSAGE_V2 request into a
// reused buffer and decodes it.
func BenchmarkCodecRoundTripJSON(b *testing.B) { benchRoundTrip(b, JSON) }

// BenchmarkCodecRoundTripRocketMQ is the same with the binary header.
func BenchmarkCodecRoundTripRocketMQ(b *testing.B) { benchRoundTrip(b, RocketMQ) }

func benchReencode(b *testing.B, st SerializeType) {
	frame, _ := AppendFrame(nil, sendV2Request(st))
	d, _ := Decode(frame)
	buf := make([]byte, 0, len(frame))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		buf, _ = AppendFrame(buf[:0], d)
	}
}

// BenchmarkCodecReencodeJSON re-encodes a decoded command (layout path).
func BenchmarkCodecReencodeJSON(b *testing.B) { benchReencode(b, JSON) }

// BenchmarkCodecReencodeRocketMQ re-encodes a decoded binary command.
func BenchmarkCodecReencodeRocketMQ(b *testing.B) { benchReencode(b, RocketMQ) }

func benchDecode(b *testing.B, st SerializeType) {
	frame, _ := AppendFrame(nil, sendV2Request(st))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCodecDecodeJSON decodes a SEND_MESSAGE_V2 request frame.
func BenchmarkCodecDecodeJSON(b *testing.B) { benchDecode(b, JSON) }

// BenchmarkCodecDecodeRocketMQ is the same with the binary header.
func BenchmarkCodecDecodeRocketMQ(b *testing.B) { benchDecode(b, RocketMQ) }

func benchEncodeNew(b *testing.B, st SerializeType) {
	c := sendV2Request(st)
	buf, _ := AppendFrame(nil, c)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		buf, _ = AppendFrame(buf[:0], c)
	}
}

// BenchmarkCodecEncodeNewJSON encodes a new command (HashMap ordering path).
func BenchmarkCodecEncodeNewJSON(b *testing.B) { benchEncodeNew(b, JSON) }

// BenchmarkCodecEncodeNewRocketMQ is the same with the binary header.
func BenchmarkCodecEncodeNewRocketMQ(b *testing.B) { benchEncodeNew(b, RocketMQ) }

func benchRoundTripLazy(b *testing.B, st SerializeType) {
	c := sendV2Request(st)
	buf, err := AppendFrame(nil, c)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for range b.N {
		buf, err = AppendFrame(buf[:0], c)
		if err != nil {
			b.Fatal(err)
		}
		d, err := DecodeLazy(buf)
		if err != nil || d.Opaque != c.Opaque || d.Ext("b") != "TopicTest" {
			b.Fatal(err)
		}
	}
}

// BenchmarkCodecRoundTripLazyJSON is BenchmarkCodecRoundTripJSON decoding
// as the server does (DecodeLazy: no extFields map for a send).
func BenchmarkCodecRoundTripLazyJSON(b *testing.B) { benchRoundTripLazy(b, JSON) }

// BenchmarkCodecRoundTripLazyRocketMQ is the same with the binary header.
func BenchmarkCodecRoundTripLazyRocketMQ(b *testing.B) { benchRoundTripLazy(b, RocketMQ) }

func benchDecodeLazy(b *testing.B, st SerializeType) {
	frame, _ := AppendFrame(nil, sendV2Request(st))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := DecodeLazy(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCodecDecodeLazyJSON decodes a SEND_MESSAGE_V2 request frame as
// the server does.
func BenchmarkCodecDecodeLazyJSON(b *testing.B) { benchDecodeLazy(b, JSON) }

// BenchmarkCodecDecodeLazyRocketMQ is the same with the binary header.
func BenchmarkCodecDecodeLazyRocketMQ(b *testing.B) { benchDecodeLazy(b, RocketMQ) }
