package namesrv

import (
	"fmt"
	"testing"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// benchTable registers brokers masters that each hold the same topics.
func benchTable(brokers, topics int) *RouteInfoManager {
	r := NewRouteInfoManager(zap.NewNop())
	w := wrapper(1)
	for i := 0; i < topics; i++ {
		w.TopicConfigTable[fmt.Sprintf("BenchTopic%d", i)] = body.NewTopicConfig(fmt.Sprintf("BenchTopic%d", i))
	}
	for b := 0; b < brokers; b++ {
		reg(r, fmt.Sprintf("broker-%d", b), fmt.Sprintf("127.0.0.%d:10911", b+1), 0, w, nil, 1)
	}
	return r
}

// BenchmarkNamesrvRouteInfo measures the GET_ROUTEINFO_BY_TOPIC handler
// (header decode, table lookup, body encode) without the network.
func BenchmarkNamesrvRouteInfo(b *testing.B) {
	ns := &Namesrv{lg: zap.NewNop(), route: benchTable(10, 100), kv: NewKVConfigManager(b.TempDir()+"/kv.json", nil)}
	ns.cfg.Store(NewNamesrvConfig())
	p := newDefaultRequestProcessor(ns)
	reqs := make([]*codec.RemotingCommand, 100)
	for i := range reqs {
		reqs[i] = codec.NewRequest(code.GetRouteinfoByTopic, (&header.GetRouteInfoRequestHeader{Topic: fmt.Sprintf("BenchTopic%d", i)}).ToExtFields(), nil)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			resp, err := p.ProcessRequest(nil, reqs[i%len(reqs)])
			if err != nil || resp.Code != code.Success {
				b.Fatal(err)
			}
			i++
		}
	})
}
