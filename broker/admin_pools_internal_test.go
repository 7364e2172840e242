package broker

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestBrokerRuntimeInfoPoolQueues: GET_BROKER_RUNTIME_INFO's queue sizes
// count the requests waiting in a pool's timedExecutor, and the pull and
// query head waits are how long the oldest queued request has waited
// (Java's headSlowTimeMills4{Pull,Query}ThreadPoolQueue), not a constant 0.
func TestBrokerRuntimeInfoPoolQueues(t *testing.T) {
	b := &Broker{stopCh: make(chan struct{})}
	b.cfg.Store(NewBrokerConfig())
	b.Pools = newPools(b.Config())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, p := range b.Pools.all() {
			_ = p.Stop(ctx)
		}
	})
	b.initTimedPools() // no workers started: queued requests stay queued
	old := time.Now().Add(-1500 * time.Millisecond)
	for range 3 {
		b.timedPools[b.Pools.Pull].q.push(&timedTask{enq: old})
	}
	b.timedPools[b.Pools.EndTransaction].q.push(&timedTask{enq: old})
	query := b.timedPools[b.Pools.Query]
	if query == nil {
		t.Fatal("query requests have no timedExecutor: their wait cannot be measured")
	}
	query.q.push(&timedTask{enq: old})
	query.q.push(&timedTask{enq: time.Now()})

	m := map[string]string{}
	b.poolRuntimeInfo(m)
	for k, want := range map[string]string{
		"pullThreadPoolQueueSize":              "3",
		"EndTransactionQueueSize":              "1",
		"sendThreadPoolQueueSize":              "0",
		"queryThreadPoolQueueSize":             "2",
		"sendThreadPoolQueueHeadWaitTimeMills": "0",
		"pullThreadPoolQueueCapacity":          strconv.Itoa(b.Config().PullThreadPoolQueueCapacity),
	} {
		if m[k] != want {
			t.Errorf("%s = %q, want %q", k, m[k], want)
		}
	}
	for _, k := range []string{"pullThreadPoolQueueHeadWaitTimeMills", "queryThreadPoolQueueHeadWaitTimeMills"} {
		if w, err := strconv.ParseInt(m[k], 10, 64); err != nil || w < 1500 || w > 60_000 {
			t.Errorf("%s = %q, want the head's wait (>= 1500)", k, m[k])
		}
	}
}
