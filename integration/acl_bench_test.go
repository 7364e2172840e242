package integration

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/acl"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// BenchmarkIntegrationACLSendTPS measures SEND_MESSAGE_V2 throughput of a
// broker with aclEnable=false and of one with aclEnable=true (signed
// requests, account with PUB on the topic) in the same run: 1 KiB bodies,
// 16 connections with 16 requests in flight each, for RMQ_ACL_BENCH_SECONDS
// (default 3) per round, three alternating rounds, best round of each kept (the
// machine is shared: the best round is the least disturbed one).
// It reports tps_off, tps_acl and acl/off. The broker verifies every
// signature as usual; the clients sign their headers once up front.
func BenchmarkIntegrationACLSendTPS(b *testing.B) {
	secs := 3
	if s, err := strconv.Atoi(os.Getenv("RMQ_ACL_BENCH_SECONDS")); err == nil && s > 0 {
		secs = s
	}
	home := b.TempDir()
	file := filepath.Join(home, "conf", "plain_acl.yml")
	_ = os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte(aclYml), 0o644); err != nil {
		b.Fatal(err)
	}
	ns := testutil.StartNamesrv(b)
	start := func(aclOn bool) *broker.Broker {
		br := testutil.StartBroker(b, ns.Addr().String(), func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
			c.ACLEnable, c.RocketmqHome = aclOn, home
			c.BrokerName = "bench-acl-" + strconv.FormatBool(aclOn)
		})
		tc := body.NewTopicConfig("AclTopic")
		tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 8, 8, 6
		br.Topics().UpdateTopicConfig(tc)
		return br
	}
	off, on := start(false), start(true)
	best := map[bool]float64{}
	for round := 0; round < 3; round++ {
		for _, aclOn := range []bool{false, true} {
			br := off
			if aclOn {
				br = on
			}
			tps := sendTPS(b, br.BrokerAddr(), aclOn, time.Duration(secs)*time.Second)
			best[aclOn] = max(best[aclOn], tps)
		}
	}
	b.ReportMetric(best[false], "tps_off")
	b.ReportMetric(best[true], "tps_acl")
	b.ReportMetric(best[true]/best[false], "acl/off")
	b.Logf("send TPS (1 KiB, 16 conns x 16 in flight): ACL off %.0f, ACL on %.0f, ratio %.3f", best[false], best[true], best[true]/best[false])
}

// benchHeaders are one sender's SEND_MESSAGE_V2 headers, one per queue,
// signed beforehand when sign is set: the clients share the broker's two
// cores here, and a client's signing cost is not the broker's.
func benchHeaders(payload []byte, sign bool) []map[string]string {
	var out []map[string]string
	for q := range 8 {
		ext := map[string]string{"a": "bench_acl_pg", "b": "AclTopic", "c": "TBW102", "d": "8",
			"e": strconv.Itoa(q), "f": "0", "g": strconv.FormatInt(time.Now().UnixMilli(), 10), "h": "0",
			"i": message.MarshalProperties(map[string]string{message.PropertyWaitStoreMsgOK: "true"}),
			"j": "0", "k": "false", "m": "false"}
		if sign {
			acl.SignRequest(ext, payload, "RocketMQUser", "user-secret-1234")
		}
		out = append(out, ext)
	}
	return out
}

// sendTPS runs 16 connections x 16 senders against addr for d.
func sendTPS(b *testing.B, addr string, sign bool, d time.Duration) float64 {
	b.Helper()
	payload := bytes.Repeat([]byte("x"), 1024)
	var sent, failed atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	begin := time.Now()
	for c := 0; c < 16; c++ {
		cl := remoting.NewClient(remoting.NewNettyClientConfig(), zap.NewNop())
		defer func() { _ = cl.Shutdown(context.Background()) }()
		for w := 0; w < 16; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				exts := benchHeaders(payload, sign)
				for n := 0; ctx.Err() == nil; n++ {
					rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
					resp, err := cl.InvokeSync(rctx, addr, codec.NewRequest(code.SendMessageV2, exts[n%len(exts)], payload))
					rcancel()
					if err != nil || resp.Code != code.Success {
						failed.Add(1)
						continue
					}
					sent.Add(1)
				}
			}()
		}
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		b.Logf("%d sends failed (ACL %v)", f, sign)
	}
	return float64(sent.Load()) / time.Since(begin).Seconds()
}
