package broker_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// TestBrokerHousekeepingChannelClose: a closed connection leaves every
// producer and consumer group (ClientHousekeepingService.onChannelClose);
// an emptied producer group stays known, and the rebalance locks the client
// held are not released (they expire on their own, as in Java).
func TestBrokerHousekeepingChannelClose(t *testing.T) {
	b := testutil.StartBroker(t, "")
	addr := b.Addr().String()
	gone := newCMClient(t, addr, "192.0.2.2@71")
	admin := newCMClient(t, addr, "admin")
	wantCode(t, gone.heartbeat("cgH", "pgH", "TopicH"), code.Success)
	mq := body.MessageQueue{Topic: "TopicH", BrokerName: "broker-a", QueueID: 0}
	if got := lockedSet(t, gone.call(lockReq(code.LockBatchMq, "cgH", "192.0.2.2@71", mq))); !got[0] {
		t.Fatal("lock refused")
	}
	gone.close()
	testutil.Eventually(t, 5*time.Second, func() error {
		if _, r := consumerConnection(t, admin, "cgH"); r.Code != code.ConsumerNotOnline {
			return fmt.Errorf("consumer group still online: %d", r.Code)
		}
		return nil
	})
	ph := header.GetProducerConnectionListRequestHeader{ProducerGroup: "pgH"}
	resp := admin.call(codec.NewRequest(code.GetProducerConnectionList, ph.ToExtFields(), nil))
	wantCode(t, resp, code.Success)
	if pc, err := body.DecodeProducerConnection(resp.Body); err != nil || len(pc.ConnectionSet) != 0 {
		t.Fatalf("producer connections after close %+v %v", pc, err)
	}
	if got := lockedSet(t, admin.call(lockReq(code.LockBatchMq, "cgH", "other", mq))); len(got) != 0 {
		t.Fatalf("lock released by the close: %v", got)
	}
}
