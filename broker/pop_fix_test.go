package broker_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
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

// storedPropsLen is the properties length of the record at topic/0/offset.
func storedPropsLen(t *testing.T, e *consumeEnv, topic string, offset int64) int {
	t.Helper()
	res := e.b.Store().GetMessage("probe", topic, 0, offset, 1, nil)
	if res == nil || len(res.Messages) != 1 {
		t.Fatalf("no record at %s/0/%d", topic, offset)
	}
	m, err := message.DecodeRecord(res.Messages[0], true)
	if err != nil {
		t.Fatal(err)
	}
	return len(m.PropertiesString)
}

// retried lists the bodies in the group's pop retry topic.
func retried(t *testing.T, e *consumeEnv, retryTopic string) []string {
	t.Helper()
	var out []string
	for off := int64(0); off < e.b.Store().MaxOffsetInQueue(retryTopic, 0); off++ {
		res := e.b.Store().GetMessage("probe", retryTopic, 0, off, 1, nil)
		if res == nil || len(res.Messages) != 1 {
			t.Fatalf("no record at %s/0/%d", retryTopic, off)
		}
		m, err := message.DecodeRecord(res.Messages[0], true)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(m.Body))
	}
	return out
}

// TestBrokerPopReviveFailedPutNoDuplicates: when one message of a
// checkpoint cannot be re-put (here its properties plus 1ST_POP_TIME exceed
// 32767 bytes, so every put of it fails), its siblings are re-put once
// each: later passes neither re-put them again nor hold them back.
func TestBrokerPopReviveFailedPutNoDuplicates(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t, fastRevive)
	e.expect(e.call(createTopicReq("PopRvF", 1)), code.Success, "")
	e.send("PopRvF", 0, map[string]string{"pad": "x"}, "probe")
	e.waitDispatched("PopRvF", 0, 1)
	// The broker's own properties are the same for every send: pad so
	// the stored properties end a few bytes under the limit.
	overhead := storedPropsLen(t, e, "PopRvF", 0) - 1
	pad := strings.Repeat("x", message.MaxPropertiesLength-5-overhead)
	e.send("PopRvF", 0, nil, "m0")
	e.send("PopRvF", 0, map[string]string{"pad": pad}, "big")
	e.send("PopRvF", 0, nil, "m2")
	e.waitDispatched("PopRvF", 0, 4)
	if n := storedPropsLen(t, e, "PopRvF", 2); n > message.MaxPropertiesLength || n+20 <= message.MaxPropertiesLength {
		t.Fatalf("padded properties are %d bytes", n)
	}
	_, _, probe := e.pop("rvf", "PopRvF", 0, 1, 60_000, 0)
	e.expect(e.ack("rvf", probe[0]), code.Success, "")
	_, _, got := e.pop("rvf", "PopRvF", 0, 32, 100, 0)
	if len(got) != 3 {
		t.Fatalf("popped %d", len(got))
	}
	const retryTopic = "%RETRY%rvf_PopRvF"
	testutil.Eventually(t, 10*time.Second, func() error {
		if got := retried(t, e, retryTopic); len(got) < 2 {
			return fmt.Errorf("re-put so far %v", got)
		}
		return nil
	})
	// The failing message is rewritten for a later pass (rePutCK back-off); let three passes go by.
	passes := e.b.PopRevivePasses()
	testutil.Eventually(t, 10*time.Second, func() error {
		if n := e.b.PopRevivePasses(); n < passes+3 {
			return fmt.Errorf("revive passes %d", n-passes)
		}
		return nil
	})
	if got := strings.Join(retried(t, e, retryTopic), ","); got != "m0,m2" {
		t.Fatalf("retry topic holds %s, want m0,m2 (each once)", got)
	}
}

// TestBrokerPopAckRejectsBadReviveQid: an ACK_MESSAGE,
// CHANGE_MESSAGE_INVISIBLETIME or BATCH_ACK_MESSAGE naming a revive queue
// that does not exist is refused with MESSAGE_ILLEGAL (5.x writes it to a
// queue nobody reads: the ack is lost); a valid one still succeeds.
func TestBrokerPopAckRejectsBadReviveQid(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	e.send("PopRq", 0, nil, "x")
	e.waitDispatched("PopRq", 0, 1)
	_, rh, got := e.pop("rqg", "PopRq", 0, 1, 60_000, 0)
	if len(got) != 1 {
		t.Fatalf("popped %d", len(got))
	}
	ei, err := pop.ParseExtraInfo(got[0].handle)
	if err != nil {
		t.Fatal(err)
	}
	illegal := func(resp *codec.RemotingCommand, qid int32) {
		t.Helper()
		want := "reviveQid[" + strconv.Itoa(int(qid)) + "] is illegal, topic:[rmq_sys_REVIVE_LOG_DefaultCluster] reviveQueueNum:[8] consumer:[/"
		if resp.Code != code.MessageIllegal || !strings.HasPrefix(resp.Remark, want) {
			t.Fatalf("reviveQid %d: %s %q", qid, code.ResponseName(resp.Code), resp.Remark)
		}
	}
	for _, qid := range []int32{8, -1, 57} {
		bad := got[0]
		bad.handle = pop.BuildExtraInfo(ei.CkQueueOffset, ei.PopTime, ei.InvisibleTime, qid, "PopRq", "broker-a", 0, ei.QueueOffset)
		illegal(e.ack("rqg", bad), qid)
		resp, _ := e.changeInvisible("rqg", bad, 1000)
		illegal(resp, qid)
		body := `{"acks":[{"b":"AQ==","c":"rqg","it":60000,"pt":` + strconv.FormatInt(rh.PopTime, 10) +
			`,"q":0,"r":"0","rq":` + strconv.Itoa(int(qid)) + `,"so":0,"t":"PopRq"}],"brokerName":"broker-a"}`
		illegal(e.call(codec.NewRequest(code.BatchAckMessage, nil, []byte(body))), qid)
	}
	e.expect(e.ack("rqg", got[0]), code.Success, "")
}
