package proxy_test

import (
	"bytes"
	"context"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// benchParallelism multiplies GOMAXPROCS into the number of sending
// goroutines of each sub-benchmark.
const benchParallelism = 8

// BenchmarkProxySend compares, in one run, sync sends of 1 KiB messages
// straight to the broker over remoting (SEND_MESSAGE_V2) with SendMessage
// through the gRPC proxy in cluster and in local mode. Each line reports
// msg/s; the gRPC lines also report their rate as a percentage of the
// remoting line's (%remoting):
//
//	go test -run '^$' -bench BenchmarkProxySend -benchtime 5s ./proxy
func BenchmarkProxySend(b *testing.B) {
	payload := bytes.Repeat([]byte("x"), 1024)
	tps := map[string]float64{}
	run := func(name string, f func(b *testing.B) func() error) {
		b.Run(name, func(b *testing.B) {
			send := f(b)
			b.SetBytes(int64(len(payload)))
			b.SetParallelism(benchParallelism)
			b.ResetTimer()
			cpu0 := processCPU()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := send(); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			tps[name] = float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(tps[name], "msg/s")
			// CPU per message (client, proxy and broker: all in this
			// process) is steadier than the rate on a shared machine.
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/msg")
			if r := tps["remoting"]; r > 0 && name != "remoting" {
				b.ReportMetric(100*tps[name]/r, "%remoting")
			}
		})
	}
	run("remoting", func(b *testing.B) func() error {
		e := startEnv(b, proxy.ModeCluster)
		e.createTopic(b, "BenchTopic", 8)
		c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
		b.Cleanup(func() { _ = c.Shutdown(context.Background()) })
		addr := e.b.BrokerAddr()
		var seq atomic.Int64
		return func() error {
			n := seq.Add(1)
			h := &header.SendMessageRequestHeaderV2{ProducerGroup: "bench_pg", Topic: "BenchTopic", DefaultTopic: "TBW102",
				DefaultTopicQueueNums: 4, QueueID: int32(n % 8), BornTimestamp: time.Now().UnixMilli(),
				Properties: message.MarshalProperties(map[string]string{message.PropertyUniqClientMessageIDKeyidx: strconv.FormatInt(n, 16), message.PropertyWaitStoreMsgOK: "true"})}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			resp, err := c.InvokeSync(ctx, addr, codec.NewRequest(code.SendMessageV2, h.ToExtFields(), payload))
			if err == nil && resp.Code != code.Success {
				err = remoting.NewError(resp.Code, resp.Remark)
			}
			return err
		}
	})
	for _, mode := range []string{proxy.ModeCluster, proxy.ModeLocal} {
		run("grpc-"+mode, func(b *testing.B) func() error {
			e := startEnv(b, mode)
			e.createTopic(b, "BenchTopic", 8)
			ctx := metadata.AppendToOutgoingContext(context.Background(), proxy.MetaClientID, "bench@1")
			return func() error {
				m := newMsg("BenchTopic", "")
				m.Body = payload
				resp, err := e.cli.SendMessage(ctx, &apiv2.SendMessageRequest{Messages: []*apiv2.Message{m}})
				if err == nil && resp.GetStatus().GetCode() != apiv2.Code_OK {
					err = proxyStatusError{resp.GetStatus()}
				}
				return err
			}
		})
	}
}

type proxyStatusError struct{ st *apiv2.Status }

func (e proxyStatusError) Error() string { return e.st.String() }

// processCPU is the user+system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
