package integration

import (
	"bytes"
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// End-to-end send benchmarks against in-process servers (1 KiB bodies,
// ASYNC_FLUSH, 8 queues), run in parallel by b.RunParallel (GOMAXPROCS
// goroutines; use -cpu to vary). cmd/mqbench measures the same over
// separate processes with chosen thread counts.

const benchTopic = "IntegBenchTopic"

func benchBroker(b *testing.B) (nsAddr string, br *broker.Broker) {
	b.Helper()
	ns := testutil.StartNamesrv(b)
	br = testutil.StartBroker(b, ns.Addr().String())
	tc := body.NewTopicConfig(benchTopic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 8, 8, 6
	br.Topics().UpdateTopicConfig(tc)
	br.RegisterBrokerAll(false)
	return ns.Addr().String(), br
}

// BenchmarkIntegrationSendRaw: SEND_MESSAGE_V2 through this repository's
// remoting client, one sync request per op.
func BenchmarkIntegrationSendRaw(b *testing.B) {
	_, br := benchBroker(b)
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(b))
	b.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	addr := br.BrokerAddr()
	payload := bytes.Repeat([]byte("x"), 1024)
	var seq atomic.Int64
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := seq.Add(1)
			props := message.MarshalProperties(map[string]string{message.PropertyWaitStoreMsgOK: "true", message.PropertyKeys: "k" + strconv.FormatInt(n, 10)})
			req := codec.NewRequest(code.SendMessageV2, map[string]string{
				"a": "bench_pg", "b": benchTopic, "c": "TBW102", "d": "4", "e": strconv.FormatInt(n%8, 10), "f": "0",
				"g": strconv.FormatInt(time.Now().UnixMilli(), 10), "h": "0", "i": props, "j": "0", "k": "false", "m": "false",
			}, payload)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			resp, err := c.InvokeSync(ctx, addr, req)
			cancel()
			if err != nil || resp.Code != code.Success {
				b.Errorf("send: %v %+v", err, resp)
				return
			}
		}
	})
}

// BenchmarkIntegrationSendGoClient: SendSync of the official Go producer.
func BenchmarkIntegrationSendGoClient(b *testing.B) {
	rlog.SetLogLevel("error")
	nsAddr, _ := benchBroker(b)
	p, err := producer.NewDefaultProducer(producer.WithNsResolver(primitive.NewPassthroughResolver([]string{nsAddr})),
		producer.WithGroupName("integ_bench_pg"), producer.WithInstanceName("integ_bench_"+strconv.Itoa(b.N)), producer.WithRetry(2))
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Shutdown() })
	payload := bytes.Repeat([]byte("x"), 1024)
	if _, err := p.SendSync(context.Background(), primitive.NewMessage(benchTopic, payload)); err != nil {
		b.Fatal(err) // route warm-up
	}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r, err := p.SendSync(context.Background(), primitive.NewMessage(benchTopic, payload))
			if err != nil || r.Status != primitive.SendOK {
				b.Errorf("send: %v %+v", err, r)
				return
			}
		}
	})
}
