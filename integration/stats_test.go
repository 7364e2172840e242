package integration

// The issue #12 scenario: Go push consumers drain a topic partly from the
// slave; the slave's GET_BROKER_RUNTIME_INFO and stats then show the gets.

import (
	"context"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/stats"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func TestStatsSlaveDrainedByConsumers(t *testing.T) {
	counters := map[int64]*pullCounter{}
	e := newHAEnvWith(t, store.AsyncMaster, proxied(t, counters, &pullLog{}), func(m, s *broker.BrokerConfig, ms, ss *store.MessageStoreConfig) {
		m.BrokerIP1, s.BrokerIP1 = "127.0.0.3", "127.0.0.2"
		m.SlaveReadEnable, s.SlaveReadEnable = true, true
		// Every read counts as "in disk", so the master sends readers to the slave.
		ms.AccessMessageInMemoryMaxRatio, ss.AccessMessageInMemoryMaxRatio = 0, 0
	})
	const n = 200
	e.sendBatch(0, n)
	haWaitReplicated(t, e.master.Store(), e.slave.Store(), e.topic)
	r := newReceived()
	group := uniqueName("statscg")
	e.startConsumer(group, r)
	haWaitBodies(t, e, r, 0, n, 30*time.Second)

	rc := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t))
	t.Cleanup(func() { _ = rc.Shutdown(context.Background()) })
	getTotal := func(b *broker.Broker) int64 {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		resp, err := rc.InvokeSync(ctx, b.Addr().String(), codec.NewRequest(code.GetBrokerRuntimeInfo, nil, nil))
		if err != nil || resp.Code != code.Success {
			t.Fatalf("GET_BROKER_RUNTIME_INFO: %v %v", err, resp)
		}
		kv, err := body.DecodeKVTable(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		v, err := strconv.ParseInt(kv.Table["msgGetTotalTodayNow"], 10, 64)
		if err != nil {
			t.Fatalf("msgGetTotalTodayNow %q", kv.Table["msgGetTotalTodayNow"])
		}
		return v
	}
	slaveGets, masterGets := getTotal(e.slave), getTotal(e.master)
	key := stats.TopicGroupKey(e.topic, group)
	slaveGroup := e.slave.Stats().Set(stats.GroupGetNums).Lookup(key)
	t.Logf("msgGetTotalTodayNow: slave %d, master %d; slave pulls %d", slaveGets, masterGets, counters[1].pulls.Load())
	if slaveGets == 0 || slaveGroup == nil || slaveGroup.Value() == 0 {
		t.Fatalf("slave served the consumers but shows msgGetTotalTodayNow %d, GROUP_GET_NUMS %v", slaveGets, slaveGroup)
	}
	// Each message was handed out at least once, by one broker or the other.
	if slaveGets+masterGets < n {
		t.Fatalf("msgGetTotalTodayNow slave %d + master %d < %d messages consumed", slaveGets, masterGets, n)
	}
}
