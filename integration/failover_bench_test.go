package integration

// Controller-mode figures (docs/failover.md, docs/benchmarks.md):
//
//	go test -run x -bench 'Failover' -benchtime 1x ./integration/

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// foDefaults puts back 5.3.3's defaults for the periods foTimings shortens.
func foDefaults(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
	d, ds := broker.NewBrokerConfig(), store.NewMessageStoreConfig()
	c.BrokerHeartbeatInterval = d.BrokerHeartbeatInterval
	c.ControllerHeartBeatTimeoutMills = d.ControllerHeartBeatTimeoutMills
	c.SyncBrokerMetadataPeriod = d.SyncBrokerMetadataPeriod
	c.CheckSyncStateSetPeriod = d.CheckSyncStateSetPeriod
	c.SyncControllerMetadataPeriod = d.SyncControllerMetadataPeriod
	s.HAMaxTimeSlaveNotCatchup = ds.HAMaxTimeSlaveNotCatchup
}

// rawSend sends one 1 KiB SEND_MESSAGE_V2 with WAIT=true to addr.
func rawSend(c *remoting.Client, addr, topic string, n int64, payload []byte) (*codec.RemotingCommand, error) {
	props := message.MarshalProperties(map[string]string{message.PropertyWaitStoreMsgOK: "true"})
	req := codec.NewRequest(code.SendMessageV2, map[string]string{
		"a": "fo_bench_pg", "b": topic, "c": "TBW102", "d": "4", "e": strconv.FormatInt(n%4, 10), "f": "0",
		"g": strconv.FormatInt(time.Now().UnixMilli(), 10), "h": "0", "i": props, "j": "0", "k": "false", "m": "false",
	}, payload)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.InvokeSync(ctx, addr, req)
}

// BenchmarkFailoverTime: a 3-broker group with the documented default
// periods; each round kills the master and measures the time until a
// SEND to the broker the name server then routes as brokerId 0 is
// SEND_OK (a client that refreshed its route at that moment), then
// restarts the killed broker and waits until the SyncStateSet holds all
// three again. Reports the median and the maximum over 10 rounds.
func BenchmarkFailoverTime(b *testing.B) {
	const rounds = 10
	e := newFailoverEnv(b, 1, 3, nil, foDefaults)
	m := e.master(30 * time.Second)
	e.createTopic(m)
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(b).Named("bench"))
	b.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	payload := bytes.Repeat([]byte("x"), 1024)
	var seq int64
	var times []time.Duration
	for range rounds {
		testutil.Eventually(b, 60*time.Second, func() error {
			if _, _, set := e.syncStateSet(); len(set) != 3 {
				return fmt.Errorf("syncStateSet %v, want all three", set)
			}
			return nil
		})
		m = e.master(30 * time.Second)
		oldAddr := m.b.BrokerAddr()
		start := time.Now()
		e.kill(m)
		testutil.Eventually(b, 60*time.Second, func() error {
			addr := e.route()[0]
			if addr == "" || addr == oldAddr {
				return fmt.Errorf("route still names %q", addr)
			}
			seq++
			r, err := rawSend(c, addr, e.topic, seq, payload)
			if err != nil || r.Code != code.Success {
				return fmt.Errorf("send to %s: %v %v", addr, r, err)
			}
			return nil
		})
		times = append(times, time.Since(start))
		e.start(m)
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Milliseconds()), "median-ms")
	b.ReportMetric(float64(times[len(times)-1].Milliseconds()), "max-ms")
	b.Logf("failover times (kill → first SEND_OK on the new master): %v", times)
}

// BenchmarkFailoverSendTPS: parallel 1 KiB sync sends to the master of a
// 2-broker group, in controller mode with allAckInSyncStateSet vs a plain
// SYNC_MASTER with one slave, in the same run.
func BenchmarkFailoverSendTPS(b *testing.B) {
	for _, allAck := range []bool{true, false} {
		b.Run("controller-allAckInSyncStateSet="+strconv.FormatBool(allAck), func(b *testing.B) {
			e := newFailoverEnv(b, 1, 2, nil, foDefaults, func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) {
				s.AllAckInSyncStateSet = allAck
			})
			m := e.master(30 * time.Second)
			testutil.Eventually(b, 60*time.Second, func() error {
				if _, _, set := e.syncStateSet(); len(set) != 2 {
					return fmt.Errorf("syncStateSet %v, want both", set)
				}
				return nil
			})
			e.createTopic(m)
			benchSendTPS(b, m.b.BrokerAddr(), e.topic)
		})
	}
	b.Run("SYNC_MASTER", func(b *testing.B) {
		ns := testutil.StartNamesrv(b)
		topic := uniqueName("TPS")
		m := testutil.StartBroker(b, ns.Addr().String(), func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) {
			s.BrokerRole = store.SyncMaster
		})
		s := testutil.StartBroker(b, ns.Addr().String(), func(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
			c.BrokerID = 1
			s.BrokerRole = store.Slave
		})
		testutil.Eventually(b, 30*time.Second, func() error {
			if !haOf(s).MasterConnected() {
				return fmt.Errorf("slave not connected")
			}
			return nil
		})
		tc := body.NewTopicConfig(topic)
		tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 4, 4, 6
		m.Topics().UpdateTopicConfig(tc)
		m.RegisterBrokerAll(false)
		benchSendTPS(b, m.BrokerAddr(), topic)
	})
}

func benchSendTPS(b *testing.B, addr, topic string) {
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(b).Named("bench"))
	b.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	payload := bytes.Repeat([]byte("x"), 1024)
	var seq atomic.Int64
	b.SetBytes(int64(len(payload)))
	b.SetParallelism(4)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r, err := rawSend(c, addr, topic, seq.Add(1), payload)
			if err != nil || r.Code != code.Success {
				b.Errorf("send: %v %v", r, err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}
