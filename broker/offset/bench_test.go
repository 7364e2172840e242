package offset

import (
	"fmt"
	"path/filepath"
	"testing"
)

func BenchmarkConsumerOffsetCommit(b *testing.B) {
	m := New(filepath.Join(b.TempDir(), "consumerOffset.json"), nil)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.CommitOffset("127.0.0.1:1", "cg", "TopicTest", int32(i&15), int64(i))
	}
}

func BenchmarkConsumerOffsetQuery(b *testing.B) {
	m := New(filepath.Join(b.TempDir(), "consumerOffset.json"), nil)
	m.CommitOffset("", "cg", "TopicTest", 3, 42)
	b.ReportAllocs()
	for b.Loop() {
		if m.QueryOffset("cg", "TopicTest", 3) != 42 {
			b.Fatal("wrong offset")
		}
	}
}

// BenchmarkConsumerOffsetEncode: 100 topic@group keys x 16 queues, the
// periodic persist / GET_ALL_CONSUMER_OFFSET body.
func BenchmarkConsumerOffsetEncode(b *testing.B) {
	m := New(filepath.Join(b.TempDir(), "consumerOffset.json"), nil)
	for k := 0; k < 100; k++ {
		for q := int32(0); q < 16; q++ {
			m.CommitOffset("", fmt.Sprintf("cg%d", k), "TopicTest", q, int64(k*1000)+int64(q))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = m.Encode()
	}
}
