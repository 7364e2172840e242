package integration

// Offsets across a master's failure (apache/rocketmq #1094) and reads
// from the slave (suggestWhichBrokerId, slaveReadEnable).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func haClient(t *testing.T) *remoting.Client {
	t.Helper()
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	return c
}

func haInvoke(t *testing.T, c *remoting.Client, addr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.InvokeSync(ctx, addr, req)
}

// haCommit is what a Java client's RemoteBrokerOffsetStore sends: to the
// master while it lives, to the slave while it is down.
func haCommit(t *testing.T, c *remoting.Client, addr, group, topic string, qid int32, off int64) {
	t.Helper()
	h := header.UpdateConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: qid, CommitOffset: off}
	resp, err := haInvoke(t, c, addr, codec.NewRequest(code.UpdateConsumerOffset, h.ToExtFields(), nil))
	if err != nil || resp.Code != code.Success {
		t.Fatalf("commit %d at %s: %v %v", off, addr, resp, err)
	}
}

// haQueryOffset is QUERY_CONSUMER_OFFSET as a starting consumer sends it.
func haQueryOffset(t *testing.T, c *remoting.Client, addr, group, topic string, qid int32) (int64, error) {
	t.Helper()
	h := header.QueryConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: qid}
	resp, err := haInvoke(t, c, addr, codec.NewRequest(code.QueryConsumerOffset, h.ToExtFields(), nil))
	if err != nil {
		return 0, err
	}
	if resp.Code != code.Success {
		return 0, fmt.Errorf("code %d %s", resp.Code, resp.Remark)
	}
	return strconv.ParseInt(resp.Ext("offset"), 10, 64)
}

func haWaitOffset(t *testing.T, c *remoting.Client, b *broker.Broker, group, topic string, want int64, within time.Duration) {
	t.Helper()
	testutil.Eventually(t, within, func() error {
		got, err := haQueryOffset(t, c, b.BrokerAddr(), group, topic, 0)
		if err != nil || got != want {
			return fmt.Errorf("%s offset %d (%v), want %d", b.BrokerAddr(), got, err, want)
		}
		return nil
	})
}

// TestHAOffsetsCommittedOnSlaveSurviveMasterReturn: offsets committed on
// the slave while the master is down are neither overwritten by the
// restarted master's older table nor lost: the master learns them, so a
// consumer starting after the failback does not re-consume. An explicit
// reset on the master still reaches the slave afterwards.
func TestHAOffsetsCommittedOnSlaveSurviveMasterReturn(t *testing.T) {
	e := newHAEnv(t, store.AsyncMaster)
	for i := range 40 {
		if r, err := e.sendOne(i, 100); err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	c := haClient(t)
	group := uniqueName("hacg")
	haCommit(t, c, e.master.BrokerAddr(), group, e.topic, 0, 4)
	e.slave.SyncAll(context.Background())
	haWaitOffset(t, c, e.slave, group, e.topic, 4, 5*time.Second)

	haShutdown(t, e.master)
	haCommit(t, c, e.slave.BrokerAddr(), group, e.topic, 0, 9) // consumer progressed on the slave
	e.slave.SyncAll(context.Background())                      // master unreachable: nothing changes
	haWaitOffset(t, c, e.slave, group, e.topic, 9, time.Second)

	e.startMaster() // same ports, same store: its table still says 4
	haWaitOffset(t, c, e.master, group, e.topic, 9, 20*time.Second)
	e.slave.SyncAll(context.Background())
	haWaitOffset(t, c, e.slave, group, e.topic, 9, time.Second)

	// An explicit reset on the master (what INVOKE_BROKER_TO_RESET_OFFSET
	// applies) propagates to the slave and is not pushed back.
	e.master.Offsets().ResetOffset(group, e.topic, 0, 2)
	e.slave.SyncAll(context.Background())
	haWaitOffset(t, c, e.slave, group, e.topic, 2, time.Second)
	e.slave.SyncAll(context.Background())
	haWaitOffset(t, c, e.master, group, e.topic, 2, time.Second)
}

// haPull is one PULL_MESSAGE as a consumer sends it.
func haPull(t *testing.T, c *remoting.Client, addr, group, topic string, offset int64) (*codec.RemotingCommand, *header.PullMessageResponseHeader) {
	t.Helper()
	h := header.PullMessageRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: 0, QueueOffset: offset,
		MaxMsgNums: 4, SysFlag: 4 /* FLAG_SUBSCRIPTION */, Subscription: "*", SubVersion: time.Now().UnixMilli()}
	resp, err := haInvoke(t, c, addr, codec.NewRequest(code.PullMessage, h.ToExtFields(), nil))
	if err != nil {
		t.Fatal(err)
	}
	var rh header.PullMessageResponseHeader
	switch resp.Code {
	case code.Success, code.PullNotFound, code.PullRetryImmediately, code.PullOffsetMoved:
		if err := rh.FromExtFields(resp.ExtFields); err != nil {
			t.Fatal(err)
		}
	}
	return resp, &rh
}

// TestHASlaveReadSuggestion: with a backlog larger than the (lowered)
// in-memory limit and slaveReadEnable on, the master suggests the slave
// (whichBrokerWhenConsumeSlowly = 1) and the slave keeps suggesting itself;
// with slaveReadEnable off on the slave, while the master lives, it answers
// PULL_RETRY_IMMEDIATELY pointing at the master, offset unchanged (see
// redirectToMaster in broker/pull.go for how this differs from 4.9.8).
func TestHASlaveReadSuggestion(t *testing.T) {
	for _, slaveRead := range []bool{true, false} {
		t.Run("slaveReadEnable="+strconv.FormatBool(slaveRead), func(t *testing.T) {
			e := newHAEnv(t, store.AsyncMaster, func(m, s *broker.BrokerConfig, ms, ss *store.MessageStoreConfig) {
				m.SlaveReadEnable, s.SlaveReadEnable = true, slaveRead
				ms.AccessMessageInMemoryMaxRatio, ss.AccessMessageInMemoryMaxRatio = 0, 0
			})
			for i := range 40 {
				if _, err := e.sendOne(i*4, 200); err != nil { // all on queue 0
					t.Fatal(err)
				}
			}
			haWaitReplicated(t, e.master.Store(), e.slave.Store(), e.topic)
			c := haClient(t)
			group := uniqueName("hasr")
			resp, rh := haPull(t, c, e.master.BrokerAddr(), group, e.topic, 0)
			if resp.Code != code.Success || rh.SuggestWhichBrokerID != 1 {
				t.Fatalf("master: code %d suggest %d, want SUCCESS and 1", resp.Code, rh.SuggestWhichBrokerID)
			}
			e.slave.SyncAll(context.Background()) // the auto-created group reaches the slave
			from := rh.NextBeginOffset
			resp, rh = haPull(t, c, e.slave.BrokerAddr(), group, e.topic, from)
			if slaveRead {
				if resp.Code != code.Success || rh.SuggestWhichBrokerID != 1 {
					t.Fatalf("slave: code %d suggest %d, want SUCCESS and 1", resp.Code, rh.SuggestWhichBrokerID)
				}
				return
			}
			// The master is alive: the slave sends the client back without
			// moving its offset and without a body.
			if resp.Code != code.PullRetryImmediately || rh.SuggestWhichBrokerID != 0 ||
				rh.NextBeginOffset != from || len(resp.Body) != 0 {
				t.Fatalf("slave: code %d suggest %d next %d body %d, want PULL_RETRY_IMMEDIATELY, 0, %d, empty",
					resp.Code, rh.SuggestWhichBrokerID, rh.NextBeginOffset, len(resp.Body), from)
			}
		})
	}
}

// TestHASlaveSyncMetadata: one sync copies topics, consumer offsets, delay
// offsets and subscription groups from the master and persists them in
// Apache's files under the slave's config directory; the first periodic
// sync runs on its own within a few seconds.
func TestHASlaveSyncMetadata(t *testing.T) {
	e := newHAEnv(t, store.AsyncMaster)
	sg := body.NewSubscriptionGroupConfig(uniqueName("hasg"))
	sg.WhichBrokerWhenConsumeSlowly = 1
	sg.RetryMaxTimes = 7
	e.master.Subscriptions().UpdateSubscriptionGroupConfig(sg)
	e.master.DelayOffsets().UpdateOffset(3, 11)
	c := haClient(t)
	haCommit(t, c, e.master.BrokerAddr(), sg.GroupName, e.topic, 1, 6)
	tc := body.NewTopicConfig(uniqueName("HAT2"))
	e.master.Topics().UpdateTopicConfig(tc)

	testutil.Eventually(t, 15*time.Second, func() error { // periodic sync, no manual call
		if e.slave.Topics().SelectTopicConfig(tc.TopicName) == nil {
			return fmt.Errorf("topic %s not on the slave", tc.TopicName)
		}
		return nil
	})
	e.slave.SyncAll(context.Background())
	if got, ok := e.slave.Subscriptions().Get(sg.GroupName); !ok || got != sg {
		t.Fatalf("slave subscription group %+v %v, want %+v", got, ok, sg)
	}
	if off, ok := e.slave.DelayOffsets().Offset(3); !ok || off != 11 {
		t.Fatalf("slave delay offset of level 3: %d %v", off, ok)
	}
	if off := e.slave.Offsets().QueryOffset(sg.GroupName, e.topic, 1); off != 6 {
		t.Fatalf("slave consumer offset %d, want 6", off)
	}
	dir := e.sstore.ConfigDir()
	for file, want := range map[string]string{
		"topics.json":            tc.TopicName,
		"subscriptionGroup.json": sg.GroupName,
		"consumerOffset.json":    e.topic + "@" + sg.GroupName,
		"delayOffset.json":       "11",
	} {
		// A periodic sync that updated a table just before SyncAll may still
		// be writing its file (SyncAll then found nothing to change).
		testutil.Eventually(t, 5*time.Second, func() error {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil || !strings.Contains(string(data), want) {
				return fmt.Errorf("%s on the slave lacks %q (%v):\n%s", file, want, err, data)
			}
			return nil
		})
	}
}

// TestHASlaveSyncFallsBackWithJavaMaster: a master without the private
// offset-marks codes (a Java broker answers REQUEST_CODE_NOT_SUPPORTED) is
// synced as Java does: GET_ALL_CONSUMER_OFFSET overwrites the slave's
// entries, even larger ones.
func TestHASlaveSyncFallsBackWithJavaMaster(t *testing.T) {
	cfg := remoting.NewNettyServerConfig()
	cfg.ListenPort, cfg.ListenAddr = 0, "127.0.0.1:0"
	fake, err := remoting.NewServer(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var offsetCalls atomic.Int32
	fake.RegisterProcessor(code.GetAllConsumerOffset, remoting.ProcessorFunc(
		func(*remoting.Context, *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			offsetCalls.Add(1)
			resp := codec.NewResponse(code.Success, "")
			resp.Body = []byte(`{"offsetTable":{"JT@jg":{0:3,1:40}}}`)
			return resp, nil
		}), remoting.NewPool("fake", 1, 16))
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fake.Shutdown(context.Background()) })

	slave := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
		c.BrokerID = 1
		s.BrokerRole = store.Slave
	})
	slave.Offsets().CommitOffset("test", "jg", "JT", 0, 9)
	slave.SetMasterAddr(fake.Addr().String())
	slave.SyncAll(context.Background())
	if offsetCalls.Load() == 0 {
		t.Fatal("slave never asked GET_ALL_CONSUMER_OFFSET")
	}
	if a, b := slave.Offsets().QueryOffset("jg", "JT", 0), slave.Offsets().QueryOffset("jg", "JT", 1); a != 3 || b != 40 {
		t.Fatalf("slave offsets %d %d, want Java's overwrite 3 40", a, b)
	}
}
