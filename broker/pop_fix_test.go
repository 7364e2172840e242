package broker_test

import (
	"strconv"
	"testing"

	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// TestBrokerPopOrderlyResetOffsetClearsBlock: an admin offset reset
// (INVOKE_BROKER_TO_RESET_OFFSET) releases a FIFO group's block, as 5.x's
// resetPopOffset clears ConsumerOrderInfoManager's entry: the next orderly
// pop hands out the message at the reset offset, counted as a first
// delivery.
func TestBrokerPopOrderlyResetOffsetClearsBlock(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	e.expect(e.call(createTopicReq("PopFifoRs", 1)), code.Success, "")
	for i := range 4 {
		e.send("PopFifoRs", 0, nil, "m"+strconv.Itoa(i))
	}
	e.waitDispatched("PopFifoRs", 0, 4)
	_, got := e.popOrder("frs", "PopFifoRs", 2, 60_000, "a1")
	if popBodies(got) != "m0,m1" {
		t.Fatalf("first orderly pop %q", popBodies(got))
	}
	e.expect(e.ack("frs", got[0]), code.Success, "")
	e.expect(e.ack("frs", got[1]), code.Success, "")
	if _, got = e.popOrder("frs", "PopFifoRs", 2, 60_000, "a2"); popBodies(got) != "m2,m3" {
		t.Fatalf("second orderly pop %q", popBodies(got))
	}
	if _, more := e.popOrder("frs", "PopFifoRs", 2, 60_000, "a3"); len(more) != 0 {
		t.Fatalf("blocked queue handed out %q", popBodies(more))
	}
	// Back to the first message (timestamp 0, forced). 4.9.8's reset
	// needs a consumer of the group online.
	newCMClient(t, e.addr, "c1").heartbeat("frs", "", "PopFifoRs")
	e.expect(e.call(resetReq("PopFifoRs", "frs", 0, true)), code.Success, "")
	rh, again := e.popOrder("frs", "PopFifoRs", 2, 60_000, "a4")
	if popBodies(again) != "m0,m1" {
		t.Fatalf("after the reset the orderly pop got %q, want m0,m1", popBodies(again))
	}
	if rh.OrderCountInfo == nil || *rh.OrderCountInfo != "0 0 0" || rh.ReviveQid != pop.OrderReviveQueue {
		t.Fatalf("after the reset: header %+v", rh)
	}
}
