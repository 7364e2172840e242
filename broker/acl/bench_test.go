package acl

import (
	"bytes"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// BenchmarkACLParseValidate: the broker's check of one signed 1 KiB
// SEND_MESSAGE_V2 (parse, signature, permissions).
func BenchmarkACLParseValidate(b *testing.B) {
	p, _ := newTestPlain(b, "")
	payload := bytes.Repeat([]byte("x"), 1024)
	req := signed(code.SendMessageV2, map[string]string{"a": "bench_acl_pg", "b": "AclTopic", "c": "TBW102", "d": "8",
		"e": "3", "f": "0", "g": "1796136143404", "h": "0", "i": "WAIT\x01true\x02", "j": "0", "k": "false", "m": "false"},
		payload, "RocketMQUser", "user-secret-1234")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := Parse(req, "127.0.0.1:40000")
		if err == nil {
			err = p.Validate(r)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
