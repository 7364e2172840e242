package broker_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// BenchmarkBrokerPopAck: pop batches of up to 32 from one queue over
// loopback and ack every message (one ACK_MESSAGE each); one op = one
// message popped and acked.
func BenchmarkBrokerPopAck(b *testing.B) {
	br := testutil.StartBroker(b, "")
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zap.NewNop())
	b.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	addr := br.Addr().String()
	call := func(req *codec.RemotingCommand) *codec.RemotingCommand {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := c.InvokeSync(ctx, addr, req)
		if err != nil {
			b.Fatal(err)
		}
		return resp
	}
	body := make([]byte, 256)
	for range b.N {
		h := &header.SendMessageRequestHeader{ProducerGroup: "pg", Topic: "PopBench", DefaultTopic: "TBW102",
			DefaultTopicQueueNums: 1, QueueID: 0, BornTimestamp: time.Now().UnixMilli()}
		if resp := call(codec.NewRequest(code.SendMessage, h.ToExtFields(), body)); resp.Code != code.Success {
			b.Fatalf("send: %s", code.ResponseName(resp.Code))
		}
	}
	testutil.Eventually(b, 30*time.Second, func() error {
		if br.Store().MaxOffsetInQueue("PopBench", 0) < int64(b.N) {
			return context.DeadlineExceeded
		}
		return nil
	})
	b.ReportAllocs()
	b.ResetTimer()
	begin := time.Now()
	done := 0
	for done < b.N {
		resp := call(popReq("benchg", "PopBench", 0, 32, 60_000, 0))
		if resp.Code != code.Success {
			b.Fatalf("pop: %s %q", code.ResponseName(resp.Code), resp.Remark)
		}
		var rh header.PopMessageResponseHeader
		_ = rh.FromExtFields(resp.ExtFields)
		starts, _ := pop.ParseStartOffsetInfo(*rh.StartOffsetInfo)
		ms, err := message.DecodeRecords(resp.Body, false)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range ms {
			hd := pop.BuildExtraInfo(starts[pop.InfoKey(m.Topic, m.QueueID)], rh.PopTime, rh.InvisibleTime, rh.ReviveQid,
				m.Topic, "broker-a", m.QueueID, m.QueueOffset)
			ah := &header.AckMessageRequestHeader{ConsumerGroup: "benchg", Topic: "PopBench", QueueID: 0, ExtraInfo: hd, Offset: m.QueueOffset}
			if r := call(codec.NewRequest(code.AckMessage, ah.ToExtFields(), nil)); r.Code != code.Success {
				b.Fatalf("ack: %s", code.ResponseName(r.Code))
			}
		}
		done += len(ms)
	}
	b.ReportMetric(float64(done)/time.Since(begin).Seconds(), "msgs/s")
}
