package broker_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// BenchmarkBrokerPull measures PULL_MESSAGE round trips over one
// connection: 32 messages of 128 bytes per answer, from memory.
func BenchmarkBrokerPull(b *testing.B) {
	const total = 1024
	brk := testutil.StartBroker(b, "", func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) {
		s.FlushDiskType = store.AsyncFlush
	})
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zap.NewNop())
	defer func() { _ = c.Shutdown(context.Background()) }()
	addr := brk.Addr().String()
	payload := make([]byte, 128)
	for i := range total {
		h := &header.SendMessageRequestHeader{ProducerGroup: "pg", Topic: "BenchPull", DefaultTopic: "TBW102",
			DefaultTopicQueueNums: 1, QueueID: 0, BornTimestamp: time.Now().UnixMilli(),
			Properties: message.MarshalProperties(map[string]string{"TAGS": "T"})}
		resp, err := c.InvokeSync(context.Background(), addr, codec.NewRequest(code.SendMessage, h.ToExtFields(), payload))
		if err != nil || resp.Code != code.Success {
			b.Fatalf("send %d: %v %v", i, err, resp)
		}
	}
	testutil.Eventually(b, 10*time.Second, func() error {
		if brk.Store().MaxOffsetInQueue("BenchPull", 0) != total {
			return errNoAnswer
		}
		return nil
	})
	b.ReportAllocs()
	b.ResetTimer()
	var bytes int64
	for i := 0; b.Loop(); i++ {
		req := pullReq("bg", "BenchPull", 0, int64(i*32%total), 0, "*", "TAG")
		resp, err := c.InvokeSync(context.Background(), addr, req)
		if err != nil || resp.Code != code.Success {
			b.Fatalf("pull: %v %v", err, resp)
		}
		bytes += int64(len(resp.Body))
	}
	b.SetBytes(bytes / int64(max(b.N, 1)))
}
