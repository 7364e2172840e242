package proxy

import (
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
)

// TestProxyConsistentHashMatchesGuava: values printed by Guava 31.1's
// Hashing.consistentHash(group.hashCode(), n), which 5.x's proxy uses to
// pick a FIFO message group's queue.
func TestProxyConsistentHashMatchesGuava(t *testing.T) {
	cases := []struct {
		group   string
		buckets int
		want    int
	}{
		{"g1", 4, 0}, {"g1", 8, 6}, {"order-42", 4, 3}, {"order-42", 8, 3},
		{"groupA", 4, 2}, {"groupA", 8, 5}, {"x", 4, 1}, {"x", 8, 4},
	}
	for _, c := range cases {
		if got := consistentHash(int64(message.JavaStringHash(c.group)), c.buckets); got != c.want {
			t.Errorf("consistentHash(%q, %d) = %d, want %d", c.group, c.buckets, got, c.want)
		}
	}
}
