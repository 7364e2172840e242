package integration

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

const (
	tlsBenchConns    = 16
	tlsBenchInflight = 16
)

// BenchmarkIntegrationSendTLSvsPlain: SEND_MESSAGE_V2 of 1 KiB bodies from
// 16 connections with 16 requests in flight on each, to one permissive
// broker, alternately over plain and TLS connections (two rounds each, the
// better round counts); b.N messages per round. Reports tps_plain,
// tps_tls and tls/plain.
//
//	go test ./integration -run '^$' -bench SendTLSvsPlain -benchtime 50000x
func BenchmarkIntegrationSendTLSvsPlain(b *testing.B) {
	tc := remoting.NewTLSConfig()
	cfg, scfg := testutil.NewBrokerConfigs(b, "")
	scfg.StorePathRootDir = filepath.Join(b.TempDir(), "store")
	srv := broker.NewNettyServerConfig()
	srv.ListenAddr, srv.TLS = "127.0.0.1:0", tc
	br, err := broker.New(cfg, scfg, broker.Options{ServerConfig: srv, FastListenAddr: "127.0.0.1:0", Logger: zap.NewNop()})
	if err != nil {
		b.Fatal(err)
	}
	if err := br.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = br.Shutdown(context.Background()) })
	topic := body.NewTopicConfig(benchTopic)
	topic.ReadQueueNums, topic.WriteQueueNums, topic.Perm = 8, 8, 6
	br.Topics().UpdateTopicConfig(topic)
	best := map[bool]float64{}
	b.ResetTimer()
	for range 2 {
		for _, useTLS := range []bool{false, true} {
			best[useTLS] = max(best[useTLS], sendRound(b, br.BrokerAddr(), useTLS, b.N))
		}
	}
	b.StopTimer()
	b.ReportMetric(best[false], "tps_plain")
	b.ReportMetric(best[true], "tps_tls")
	b.ReportMetric(best[true]/best[false], "tls/plain")
}

// sendRound sends n messages over fresh connections and returns msgs/s.
func sendRound(b *testing.B, addr string, useTLS bool, n int) float64 {
	payload := bytes.Repeat([]byte("x"), 1024)
	props := message.MarshalProperties(map[string]string{message.PropertyWaitStoreMsgOK: "true"})
	clients := make([]*remoting.Client, tlsBenchConns)
	for i := range clients {
		cc := remoting.NewNettyClientConfig()
		cc.UseTLS = useTLS
		clients[i] = remoting.NewClient(cc, nil)
		defer func() { _ = clients[i].Shutdown(context.Background()) }()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := clients[i].Channel(ctx, addr) // connect (and handshake) before the clock
		cancel()
		if err != nil {
			b.Fatal(err)
		}
	}
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	var (
		failMu   sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		failMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		failMu.Unlock()
	}
	start := time.Now()
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem := make(chan struct{}, tlsBenchInflight)
			var inflight sync.WaitGroup
			for seq := 0; left.Add(-1) >= 0; seq++ {
				sem <- struct{}{}
				inflight.Add(1)
				req := codec.NewRequest(code.SendMessageV2, map[string]string{
					"a": "bench_pg", "b": benchTopic, "c": "TBW102", "d": "4", "e": strconv.Itoa((i + seq) % 8), "f": "0",
					"g": strconv.FormatInt(time.Now().UnixMilli(), 10), "h": "0", "i": props, "j": "0", "k": "false", "m": "false",
				}, payload)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				err := c.InvokeAsync(ctx, addr, req, func(resp *codec.RemotingCommand, err error) {
					cancel()
					if err == nil && resp.Code != code.Success {
						err = remoting.NewError(resp.Code, resp.Remark)
					}
					if err != nil {
						fail(err)
					}
					<-sem
					inflight.Done()
				})
				if err != nil {
					cancel()
					fail(err)
					<-sem
					inflight.Done()
				}
			}
			inflight.Wait()
		}()
	}
	wg.Wait()
	el := time.Since(start)
	if firstErr != nil {
		b.Fatalf("tls=%v: %v", useTLS, firstErr)
	}
	return float64(n) / el.Seconds()
}
