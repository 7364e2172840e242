package broker_test

import (
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func lockReq(c int32, group, clientID string, mqs ...body.MessageQueue) *codec.RemotingCommand {
	rb := body.LockBatchRequestBody{ConsumerGroup: group, ClientID: clientID, MqSet: mqs}
	return codec.NewRequest(c, nil, rb.Encode())
}

func lockedSet(t *testing.T, resp *codec.RemotingCommand) map[int32]bool {
	t.Helper()
	wantCode(t, resp, code.Success)
	lb, err := body.DecodeLockBatchResponseBody(resp.Body)
	if err != nil {
		t.Fatalf("decode %q: %v", resp.Body, err)
	}
	out := map[int32]bool{}
	for _, mq := range lb.LockOKMQSet {
		out[mq.QueueID] = true
	}
	return out
}

func TestBrokerLockBatchMQ(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "A")
	mq := func(q int32) body.MessageQueue {
		return body.MessageQueue{Topic: "TopicL", BrokerName: "broker-a", QueueID: q}
	}
	got := lockedSet(t, cc.call(lockReq(code.LockBatchMq, "cgL", "A", mq(0), mq(1))))
	if !got[0] || !got[1] || len(got) != 2 {
		t.Fatalf("A locked %v", got)
	}
	// B gets only the queue nobody holds.
	got = lockedSet(t, cc.call(lockReq(code.LockBatchMq, "cgL", "B", mq(1), mq(2))))
	if len(got) != 1 || !got[2] {
		t.Fatalf("B locked %v", got)
	}
	// Another group is independent.
	if got = lockedSet(t, cc.call(lockReq(code.LockBatchMq, "cgOther", "B", mq(0)))); !got[0] {
		t.Fatalf("other group locked %v", got)
	}
	// B cannot unlock A's queue; A's unlock (oneway, as the Java client
	// sometimes sends it) frees it for B.
	resp := cc.call(lockReq(code.UnlockBatchMq, "cgL", "B", mq(1)))
	wantCode(t, resp, code.Success)
	if got = lockedSet(t, cc.call(lockReq(code.LockBatchMq, "cgL", "B", mq(1)))); len(got) != 0 {
		t.Fatalf("B took A's queue: %v", got)
	}
	un := lockReq(code.UnlockBatchMq, "cgL", "A", mq(1))
	un.MarkOneway()
	if err := cc.c.InvokeOneway(t.Context(), cc.addr, un); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, func() error {
		if got := lockedSet(t, cc.call(lockReq(code.LockBatchMq, "cgL", "B", mq(1)))); !got[1] {
			return errStatusf("B still refused")
		}
		return nil
	})
}

func TestBrokerLockBatchBadBody(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "A")
	wantCode(t, cc.call(codec.NewRequest(code.LockBatchMq, nil, []byte("]"))), code.SystemError)
}

func errStatusf(s string) error { return statusErr(s) }
