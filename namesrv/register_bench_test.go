package namesrv

import (
	"fmt"
	"hash/crc32"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// registerTopicCounts are the topic-table sizes the registration
// benchmarks and the linearity test use.
var registerTopicCounts = []int{1000, 5000, 10000}

// registerRequest is REGISTER_BROKER as a master holding topics topics of 8
// queues sends it every 30 s: uncompressed RegisterBrokerBody (Java's
// compressedRegister default), bodyCrc32 set, data version counter.
func registerRequest(tb testing.TB, topics int, counter int64) *codec.RemotingCommand {
	tb.Helper()
	w := body.TopicConfigSerializeWrapper{DataVersion: body.DataVersion{Timestamp: 1700000000000, Counter: counter},
		TopicConfigTable: make(map[string]body.TopicConfig, topics)}
	for i := range topics {
		tc := body.NewTopicConfig(fmt.Sprintf("BenchTopic%05d", i))
		tc.ReadQueueNums, tc.WriteQueueNums = 8, 8
		w.TopicConfigTable[tc.TopicName] = tc
	}
	data, err := (&body.RegisterBrokerBody{TopicConfigSerializeWrapper: w, FilterServerList: []string{}}).Encode(false)
	if err != nil {
		tb.Fatal(err)
	}
	h := header.RegisterBrokerRequestHeader{BrokerName: "broker-a", BrokerAddr: "127.0.0.1:10911", ClusterName: "DefaultCluster",
		HAServerAddr: "127.0.0.1:10912", BodyCrc32: int32(crc32.ChecksumIEEE(data) & 0x7FFFFFFF)}
	return codec.NewRequest(code.RegisterBroker, h.ToExtFields(), data)
}

func benchProcessor(tb testing.TB) *DefaultRequestProcessor {
	ns := &Namesrv{lg: zap.NewNop(), route: NewRouteInfoManager(zap.NewNop()), kv: NewKVConfigManager(tb.TempDir()+"/kv.json", nil)}
	ns.cfg.Store(NewNamesrvConfig())
	return newDefaultRequestProcessor(ns)
}

// benchRegister runs b.N registrations of one broker with topics topics;
// with changed the data version differs every round, so the name server
// rebuilds the broker's queue data (a topic was created or updated), else
// only the body is checked and decoded (the periodic re-registration).
func benchRegister(b *testing.B, topics int, changed bool) {
	p := benchProcessor(b)
	reqs := []*codec.RemotingCommand{registerRequest(b, topics, 1), registerRequest(b, topics, 2)}
	if !changed {
		reqs = reqs[:1]
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := range b.N {
		resp, err := p.ProcessRequest(nil, reqs[i%len(reqs)])
		if err != nil || resp.Code != code.Success {
			b.Fatalf("register: %v %+v", err, resp)
		}
	}
	reportPerTopic(b, processCPU()-cpu0, topics, len(reqs[0].Body))
}

// reportPerTopic adds the body size and the wall and CPU time per topic of
// one round. CPU time (getrusage of the whole process, GC included) stays
// meaningful on a loaded machine, where wall time mostly measures waiting.
func reportPerTopic(b *testing.B, cpu time.Duration, topics, bodyBytes int) {
	b.ReportMetric(float64(bodyBytes), "body-bytes")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(topics), "ns/topic")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(topics), "cpu-ns/topic")
}

// processCPU is the user+system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkNamesrvRegisterBroker measures the name server's REGISTER_BROKER
// handler (CRC, body decode, route-table update) per registration round for
// 1k, 5k and 10k topics; ns/topic shows whether the cost is linear.
func BenchmarkNamesrvRegisterBroker(b *testing.B) {
	for _, n := range registerTopicCounts {
		for _, changed := range []bool{true, false} {
			b.Run(fmt.Sprintf("topics=%d/changed=%v", n, changed), func(b *testing.B) { benchRegister(b, n, changed) })
		}
	}
}

// BenchmarkNamesrvRegisterBodyEncode is the broker's side of a round:
// encoding the RegisterBrokerBody (fastjson field and map order).
func BenchmarkNamesrvRegisterBodyEncode(b *testing.B) {
	for _, n := range registerTopicCounts {
		b.Run(fmt.Sprintf("topics=%d", n), func(b *testing.B) {
			w := body.TopicConfigSerializeWrapper{TopicConfigTable: make(map[string]body.TopicConfig, n)}
			for i := range n {
				tc := body.NewTopicConfig(fmt.Sprintf("BenchTopic%05d", i))
				w.TopicConfigTable[tc.TopicName] = tc
			}
			rb := &body.RegisterBrokerBody{TopicConfigSerializeWrapper: w, FilterServerList: []string{}}
			b.ReportAllocs()
			var size int
			cpu0 := processCPU()
			for range b.N {
				data, err := rb.Encode(false)
				if err != nil {
					b.Fatal(err)
				}
				size = len(data)
			}
			reportPerTopic(b, processCPU()-cpu0, n, size)
		})
	}
}

// TestNamesrvRegisterBodyLinear: the REGISTER_BROKER body a broker sends
// grows by the same number of bytes per topic at every size.
func TestNamesrvRegisterBodyLinear(t *testing.T) {
	s0, s1, s10 := len(registerRequest(t, 0, 1).Body), len(registerRequest(t, 1000, 1).Body), len(registerRequest(t, 10000, 1).Body)
	if diff := (s10 - s0) - 10*(s1-s0); diff < -10 || diff > 10 { // separators: a byte per topic at most
		t.Fatalf("body %d bytes at 0 topics, %d at 1k, %d at 10k: not linear", s0, s1, s10)
	}
}
