//go:build !race

package store

import (
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
)

// TestNoRaceStoreGetMessageAllocs: a 32-message pull allocates the result,
// one body and the message slice headers, nothing per message.
func TestNoRaceStoreGetMessageAllocs(t *testing.T) {
	s := hotQueueStore(t, 200)
	filter := tagFilter{message.TagsCode("TagA"): true}
	var r *GetMessageResult
	allocs := testing.AllocsPerRun(50, func() {
		r = s.GetMessage("g", "Bench", 0, 64, 32, filter)
	})
	if r.Status != Found || len(r.Messages) != 32 {
		t.Fatalf("%v %d", r.Status, len(r.Messages))
	}
	if allocs > 4 {
		t.Fatalf("%.0f allocations per GetMessage, want at most 4", allocs)
	}
}
