package proxy_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// benchCtx is a call context carrying a client id.
func benchCtx(ctx context.Context, clientID string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, proxy.MetaClientID, clientID, proxy.MetaLanguage, "GOLANG")
}

// BenchmarkProxyGRPCReceiveAck measures gRPC receive+ack throughput of 1 KiB
// messages: b.N messages are stored first (not timed), then 8 consumers
// receive in batches of 32 and ack each batch, until all are acked.
// Reports msg/s. Run: go test ./proxy -run x -bench ReceiveAck -benchtime 20000x
func BenchmarkProxyGRPCReceiveAck(b *testing.B) {
	for _, mode := range []string{proxy.ModeLocal, proxy.ModeCluster} {
		b.Run(mode, func(b *testing.B) { benchReceiveAck(b, mode) })
	}
}

func benchReceiveAck(b *testing.B, mode string) {
	e := startConsumeEnv(b, mode)
	tc := body.NewTopicConfig("BenchRA")
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 8, 8, 6
	e.b.Topics().UpdateTopicConfig(tc)
	e.b.RegisterBrokerAll(false)
	ctx := b.Context()
	testutil.Eventually(b, 10*time.Second, func() error {
		_, err := e.cli.QueryRoute(benchCtx(ctx, "bench"), &apiv2.QueryRouteRequest{Topic: &apiv2.Resource{Name: "BenchRA"}})
		return err
	})
	payload := make([]byte, 1024)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cli := "bench-p" + strconv.Itoa(w)
			for next.Add(1) <= int64(b.N) {
				m := newMsg("BenchRA", "")
				m.Body = payload
				r, err := e.cli.SendMessage(benchCtx(ctx, cli), &apiv2.SendMessageRequest{Messages: []*apiv2.Message{m}})
				if err != nil || r.GetStatus().GetCode() != apiv2.Code_OK {
					b.Errorf("send: %v %v", r, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.SetBytes(1024)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var acked atomic.Int64
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cli := "bench-c" + strconv.Itoa(w)
			for acked.Load() < int64(b.N) {
				got := benchReceive(b, e, cli)
				if len(got) == 0 {
					continue
				}
				req := &apiv2.AckMessageRequest{Group: &apiv2.Resource{Name: "GBenchRA"}, Topic: &apiv2.Resource{Name: "BenchRA"}}
				for _, m := range got {
					req.Entries = append(req.Entries, &apiv2.AckMessageEntry{MessageId: m.GetSystemProperties().GetMessageId(),
						ReceiptHandle: m.GetSystemProperties().GetReceiptHandle()})
				}
				r, err := e.cli.AckMessage(benchCtx(ctx, cli), req)
				if err != nil || r.GetStatus().GetCode() != apiv2.Code_OK {
					b.Errorf("ack: %v %v", r, err)
					return
				}
				acked.Add(int64(len(got)))
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(acked.Load())/time.Since(start).Seconds(), "msg/s")
}

func benchReceive(b *testing.B, e *env, cli string) []*apiv2.Message {
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	stream, err := e.cli.ReceiveMessage(benchCtx(ctx, cli), &apiv2.ReceiveMessageRequest{
		Group:              &apiv2.Resource{Name: "GBenchRA"},
		MessageQueue:       &apiv2.MessageQueue{Topic: &apiv2.Resource{Name: "BenchRA"}, Broker: &apiv2.Broker{Name: e.b.Config().BrokerName}},
		FilterExpression:   &apiv2.FilterExpression{Type: apiv2.FilterType_TAG, Expression: "*"},
		BatchSize:          32,
		InvisibleDuration:  durationpb.New(60 * time.Second),
		LongPollingTimeout: durationpb.New(200 * time.Millisecond),
	})
	if err != nil {
		b.Error(err)
		return nil
	}
	var out []*apiv2.Message
	for {
		r, err := stream.Recv()
		if err != nil {
			return out
		}
		if m := r.GetMessage(); m != nil {
			out = append(out, m)
		}
	}
}
