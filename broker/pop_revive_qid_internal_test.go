package broker

import "testing"

// Checkpoint sequence numbers past 2^31 still land on revive queues
// 0..n-1 (they went negative, so their checkpoints were never revived).
func TestPopReviveQueueOfStaysInRange(t *testing.T) {
	for _, seq := range []uint64{0, 7, 1<<31 - 1, 1 << 31, 1<<31 + 5, 1<<32 + 3, 1<<63 + 1} {
		for _, n := range []int{0, 1, 8} {
			q := reviveQueueOf(seq, n)
			if q < 0 || q >= int32(max(n, 1)) {
				t.Errorf("reviveQueueOf(%d, %d) = %d, want 0..%d", seq, n, q, max(n, 1)-1)
			}
		}
	}
	if q := reviveQueueOf(1<<31+5, 8); q != 5 {
		t.Errorf("reviveQueueOf(2^31+5, 8) = %d, want 5", q)
	}
}
