package broker_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// BenchmarkBrokerSendV2PipelinedSyncMaster is the 16 × 16 load of
// BenchmarkBrokerSendV2Pipelined against a SYNC_MASTER whose slave runs in
// the same process: every answer waits for the slave's acknowledgement.
// cpu-ns/msg counts master, slave and senders together.
func BenchmarkBrokerSendV2PipelinedSyncMaster(b *testing.B) {
	master := testutil.StartBroker(b, "", func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) {
		s.BrokerRole = store.SyncMaster
	})
	haAddr := master.HA.Addr().String()
	testutil.StartBroker(b, "", func(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
		c.BrokerID = 1
		s.BrokerRole = store.Slave
		s.HAMasterAddress = haAddr
	})
	h, ok := master.HA.(interface{ SlaveAckOffsets() map[string]int64 })
	if !ok {
		b.Fatalf("HA service %T lists no slaves", master.HA)
	}
	testutil.Eventually(b, 10*time.Second, func() error {
		for _, off := range h.SlaveAckOffsets() {
			if off >= 0 {
				return nil
			}
		}
		return errors.New("slave not connected")
	})
	benchSendPipelinedOn(b, master, codec.RocketMQ)
}
