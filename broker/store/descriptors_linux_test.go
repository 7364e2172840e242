//go:build linux

package store

import (
	"os"
	"testing"
)

// openDescriptors counts the process's open file descriptors.
func openDescriptors(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestStoreDescriptorsBounded: a store with 2,000 ConsumeQueues (8 topics
// × 250 queues, one message each) holds no descriptor per ConsumeQueue or
// CommitLog file, neither while running nor after a restart that maps
// them all again, and still serves every message (5,000 topics × 8 queues
// must fit a 20,000-descriptor limit).
func TestStoreDescriptorsBounded(t *testing.T) {
	const topics, queues = 8, 250
	const bound = 100 // sockets, logs and the odd file opened for a moment, not thousands
	cfg := smallConfig(t)
	before := openDescriptors(t)
	s := startStore(t, cfg)
	for tp := 0; tp < topics; tp++ {
		for q := int32(0); q < queues; q++ {
			mustPut(t, s, newMsg("FdTopic"+itoa(int64(tp)), q, "", "", []byte("fd")))
		}
	}
	waitDispatched(t, s)
	if n := openDescriptors(t) - before; n > bound {
		t.Errorf("running store with %d consume queues holds %d more descriptors", topics*queues, n)
	}
	shutdownStore(t, s)

	s2 := startStore(t, cfg)
	if n := openDescriptors(t) - before; n > bound {
		t.Errorf("reopened store with %d consume queues holds %d more descriptors", topics*queues, n)
	}
	for tp := 0; tp < topics; tp++ {
		for q := int32(0); q < queues; q += 50 {
			if got := s2.MaxOffsetInQueue("FdTopic"+itoa(int64(tp)), q); got != 1 {
				t.Fatalf("topic %d queue %d max offset %d after reopen", tp, q, got)
			}
		}
	}
}
