package broker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// updateConfig sends UPDATE_BROKER_CONFIG with a properties body and
// expects Java's answer: SUCCESS without remark.
func updateConfig(t *testing.T, call func(*codec.RemotingCommand) *codec.RemotingCommand, body string) {
	t.Helper()
	resp := call(codec.NewRequest(code.UpdateBrokerConfig, nil, []byte(body)))
	wantCode(t, resp, code.Success)
	if resp.Remark != "" {
		t.Fatalf("update answer remark %q", resp.Remark)
	}
}

// brokerConfigOf is GET_BROKER_CONFIG's body as properties.
func brokerConfigOf(t *testing.T, call func(*codec.RemotingCommand) *codec.RemotingCommand) map[string]string {
	t.Helper()
	resp := call(codec.NewRequest(code.GetBrokerConfig, nil, nil))
	wantCode(t, resp, code.Success)
	m, err := props.ParseString(string(resp.Body))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestBrokerAdminUpdateConfigLongPollingLive: longPollingEnable switched on
// by UPDATE_BROKER_CONFIG wakes a held pull as soon as a message arrives
// (Java's ReputMessageService reads it per message), without a restart.
func TestBrokerAdminUpdateConfigLongPollingLive(t *testing.T) {
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.LongPollingEnable = false
		c.ShortPollingTimeMills = 120_000 // the hold service's re-check period, fixed at start
	})
	e.send("LiveLP", 0, nil, "a")
	e.waitDispatched("LiveLP", 0, 1)
	updateConfig(t, e.call, "longPollingEnable=true\n")
	if m := brokerConfigOf(t, e.call); m["longPollingEnable"] != "true" {
		t.Fatalf("GET_BROKER_CONFIG longPollingEnable=%q", m["longPollingEnable"])
	}
	held := e.pullAsync(pullReq("g", "LiveLP", 0, 1, 0x2, "*", "TAG"))
	// The pull is held (long polling, 15 s suspend); a second message wakes it.
	select {
	case resp := <-held:
		t.Fatalf("pull answered before any message: %s %q", code.ResponseName(resp.Code), resp.Remark)
	case <-time.After(200 * time.Millisecond):
	}
	e.send("LiveLP", 0, nil, "b")
	resp := waitAnswer(t, held, wait.Scale(10*time.Second))
	e.expect(resp, code.Success, "")
	if got := bodies(decodeBody(t, resp.Body)); got != "b" {
		t.Fatalf("woken pull brought %q", got)
	}
}

// TestBrokerAdminUpdateConfigRegistersNewAddress: brokerIP1 and
// brokerPermission updated together are registered at once (Java:
// getBrokerAddr is computed per registration, and a brokerPermission update
// re-registers): the name server routes to the new address with the new
// permission.
func TestBrokerAdminUpdateConfigRegistersNewAddress(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String())
	cc := newCMClient(t, b.Addr().String(), "admin")
	c := newClient(t)
	wantRoute(t, c, ns.Addr().String(), "TBW102", b.BrokerAddr(), 8)
	updateConfig(t, cc.call, "brokerIP1=127.0.0.9\nbrokerPermission=4\n")
	want := "127.0.0.9:" + strconv.Itoa(b.ListenPort())
	testutil.Eventually(t, 10*time.Second, func() error {
		r, err := routeOf(c, ns.Addr().String(), "TBW102")
		if err != nil {
			return err
		}
		if len(r.BrokerDatas) != 1 || r.BrokerDatas[0].BrokerAddrs[0] != want {
			return fmt.Errorf("broker datas %+v, want address %s", r.BrokerDatas, want)
		}
		if len(r.QueueDatas) != 1 || r.QueueDatas[0].Perm != 4 {
			return fmt.Errorf("queue datas %+v, want perm 4", r.QueueDatas)
		}
		return nil
	})
	if m := brokerConfigOf(t, cc.call); m["brokerIP1"] != "127.0.0.9" || m["brokerPermission"] != "4" {
		t.Fatalf("GET_BROKER_CONFIG brokerIP1=%q brokerPermission=%q", m["brokerIP1"], m["brokerPermission"])
	}
}

// minOffsetOf is GET_MIN_OFFSET as a client asks it.
func minOffsetOf(t *testing.T, cc *cmClient, topic string, queueID int32) int64 {
	t.Helper()
	h := header.GetMinOffsetRequestHeader{Topic: topic, QueueID: queueID}
	resp := cc.call(codec.NewRequest(code.GetMinOffset, h.ToExtFields(), nil))
	wantCode(t, resp, code.Success)
	off, err := strconv.ParseInt(resp.Ext("offset"), 10, 64)
	if err != nil {
		t.Fatalf("offset %q: %v", resp.Ext("offset"), err)
	}
	return off
}

// TestBrokerAdminUpdateConfigRetentionLive: the retention settings
// (diskMaxUsedSpaceRatio, deleteWhen, fileReservedTime) updated by
// UPDATE_BROKER_CONFIG drive the next cleanup run of the running store, as
// Java's CleanCommitLogService reads them per run: expired CommitLog files
// go and a client sees the queue's min offset rise.
func TestBrokerAdminUpdateConfigRetentionLive(t *testing.T) {
	otherHour := strconv.Itoa((time.Now().Hour() + 12) % 24)
	everyHour := "0"
	for h := 1; h < 24; h++ {
		everyHour += ";" + strconv.Itoa(h)
	}
	for _, tc := range []struct {
		name, update        string
		reservedH           int
		deleteWhen, wantKey string
	}{
		// files expired, not the hour, disk at 50% under 75%: kept until the ratio drops under the usage
		{"diskMaxUsedSpaceRatio", "diskMaxUsedSpaceRatio=40\n", 0, otherHour, "diskMaxUsedSpaceRatio=40"},
		// files expired, disk fine: kept until deleteWhen names the current hour
		{"deleteWhen", "deleteWhen=" + everyHour + "\n", 0, otherHour, "deleteWhen=" + everyHour},
		// every hour is deleteWhen: kept while younger than fileReservedTime
		{"fileReservedTime", "fileReservedTime=0\n", 72, everyHour, "fileReservedTime=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := startBrokerWithOptions(t, broker.Options{StoreOptions: []store.Option{
				store.WithDiskUsage(func(string) float64 { return 0.5 }), store.WithCleanInitialDelay(0)}},
				func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) {
					s.MappedFileSizeCommitLog = 64 << 10
					s.CleanResourceInterval = 20
					s.FileReservedTime = tc.reservedH
					s.DeleteWhen = tc.deleteWhen
				})
			cc := newCMClient(t, b.Addr().String(), "admin")
			payload := strings.Repeat("r", 1000)
			for range 200 {
				wantCode(t, cc.call(sendRequest(code.SendMessageV2, sendHeader("LiveRet", 0, nil), []byte(payload))), code.Success)
			}
			testutil.Eventually(t, 5*time.Second, func() error {
				if b.Store().MaxOffsetInQueue("LiveRet", 0) != 200 {
					return statusErr("not dispatched")
				}
				return nil
			})
			if off := minOffsetOf(t, cc, "LiveRet", 0); off != 0 {
				t.Fatalf("min offset %d before the update", off)
			}
			updateConfig(t, cc.call, tc.update)
			testutil.Eventually(t, 10*time.Second, func() error {
				if off := minOffsetOf(t, cc, "LiveRet", 0); off == 0 {
					return statusErr("nothing deleted yet")
				}
				return nil
			})
			resp := cc.call(codec.NewRequest(code.GetBrokerConfig, nil, nil))
			if !strings.Contains(string(resp.Body), tc.wantKey+"\n") {
				t.Fatalf("GET_BROKER_CONFIG lacks %s", tc.wantKey)
			}
		})
	}
}

// TestBrokerAdminUpdateConfigTransferLimitLive: maxTransferCountOnMessageInMemory
// updated by UPDATE_BROKER_CONFIG caps the very next pull (Java's
// isTheBatchFull reads it per message).
func TestBrokerAdminUpdateConfigTransferLimitLive(t *testing.T) {
	e := newConsumeEnv(t)
	for i := range 5 {
		e.send("LiveXfer", 0, nil, strconv.Itoa(i))
	}
	e.waitDispatched("LiveXfer", 0, 5)
	pull := func() int {
		resp := e.call(pullReq("g", "LiveXfer", 0, 0, 0, "*", "TAG"))
		e.expect(resp, code.Success, "")
		return len(decodeBody(t, resp.Body))
	}
	if n := pull(); n != 5 {
		t.Fatalf("pull before the update brought %d messages", n)
	}
	updateConfig(t, e.call, "maxTransferCountOnMessageInMemory=2\n")
	if n := pull(); n != 2 {
		t.Fatalf("pull after maxTransferCountOnMessageInMemory=2 brought %d messages", n)
	}
	if m := brokerConfigOf(t, e.call); m["maxTransferCountOnMessageInMemory"] != "2" {
		t.Fatalf("GET_BROKER_CONFIG maxTransferCountOnMessageInMemory=%q", m["maxTransferCountOnMessageInMemory"])
	}
}

// TestBrokerAdminUpdateConfigRestartKeys: settings the running broker
// cannot take (thread pools, start-up store layout, netty) are answered
// SUCCESS like Java, shown by GET_BROKER_CONFIG, persisted, and logged as
// waiting for the next start; settings applied at once are not in that log.
func TestBrokerAdminUpdateConfigRestartKeys(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	b := startBrokerWithOptions(t, broker.Options{Logger: zap.New(core)})
	cc := newCMClient(t, b.Addr().String(), "admin")
	updateConfig(t, cc.call, "sendMessageThreadPoolNums=2\nflushDiskType=SYNC_FLUSH\nserverWorkerThreads=3\n"+
		"slaveReadEnable=true\ndiskMaxUsedSpaceRatio=60\nnoSuchKey=1\n")
	entries := logs.FilterMessage("update broker config: persisted, applied at the next start").All()
	if len(entries) != 1 {
		t.Fatalf("%d restart log entries", len(entries))
	}
	restart := fmt.Sprint(entries[0].ContextMap()["keys"])
	if want := "[flushDiskType sendMessageThreadPoolNums serverWorkerThreads]"; restart != want {
		t.Fatalf("keys logged as waiting for a restart: %s, want %s", restart, want)
	}
	if !b.Config().SlaveReadEnable || b.Config().SendMessageThreadPoolNums != 2 {
		t.Fatalf("broker config not swapped: %+v", b.Config())
	}
	m := brokerConfigOf(t, cc.call)
	for k, v := range map[string]string{"sendMessageThreadPoolNums": "2", "flushDiskType": "SYNC_FLUSH",
		"serverWorkerThreads": "3", "slaveReadEnable": "true", "diskMaxUsedSpaceRatio": "60"} {
		if m[k] != v {
			t.Errorf("GET_BROKER_CONFIG %s=%q, want %q", k, m[k], v)
		}
	}
	if _, ok := m["noSuchKey"]; ok {
		t.Errorf("unknown key shown by GET_BROKER_CONFIG")
	}
	data, err := os.ReadFile(filepath.Join(b.StoreConfig().ConfigDir(), "broker.properties"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"sendMessageThreadPoolNums=2\n", "flushDiskType=SYNC_FLUSH\n", "serverWorkerThreads=3\n",
		"slaveReadEnable=true\n", "diskMaxUsedSpaceRatio=60\n"} {
		if !strings.Contains(string(data), line) {
			t.Errorf("broker.properties lacks %q", line)
		}
	}
}

// TestBrokerAdminUpdateConfigMaxMessageSizeLive: maxMessageSize updated by
// UPDATE_BROKER_CONFIG bounds the very next send, both ways, and the
// refusal names the new limit.
func TestBrokerAdminUpdateConfigMaxMessageSizeLive(t *testing.T) {
	b := testutil.StartBroker(t, "", func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) { s.MaxMessageSize = 1024 })
	cc := newCMClient(t, b.Addr().String(), "admin")
	send := func(n int) *codec.RemotingCommand {
		return cc.call(sendRequest(code.SendMessageV2, sendHeader("LiveMax", 0, nil), []byte(strings.Repeat("m", n))))
	}
	wantCode(t, send(2000), code.MessageIllegal)
	updateConfig(t, cc.call, "maxMessageSize=8192\n")
	wantCode(t, send(2000), code.Success)
	updateConfig(t, cc.call, "maxMessageSize=512\n")
	resp := send(700)
	wantCode(t, resp, code.MessageIllegal)
	if !strings.Contains(resp.Remark, "msg body length limit 512B") {
		t.Fatalf("remark %q", resp.Remark)
	}
	if m := brokerConfigOf(t, cc.call); m["maxMessageSize"] != "512" {
		t.Fatalf("GET_BROKER_CONFIG maxMessageSize=%q", m["maxMessageSize"])
	}
	// A batch's total body length is bounded by the limit in force too.
	batch := func() *codec.RemotingCommand {
		items := []message.BatchItem{{Body: []byte(strings.Repeat("a", 400))}, {Body: []byte(strings.Repeat("b", 400))}}
		h := sendHeader("LiveMax", 0, nil)
		h.Batch = true
		return cc.call(sendRequest(code.SendBatchMessage, h, message.EncodeBatch(nil, items)))
	}
	wantCode(t, batch(), code.MessageIllegal)
	updateConfig(t, cc.call, "maxMessageSize=4096\n")
	wantCode(t, send(2000), code.Success)
	wantCode(t, batch(), code.Success)
}

// TestBrokerAdminUpdateConfigSlaveReadEnableLive: slaveReadEnable switched
// on at a slave by UPDATE_BROKER_CONFIG changes the next pull's suggested
// broker to the group's brokerId (regression guard; it was already read
// from the live snapshot).
func TestBrokerAdminUpdateConfigSlaveReadEnableLive(t *testing.T) {
	e := slaveEnv(t, false)
	sg := body.NewSubscriptionGroupConfig("sgLive")
	sg.BrokerID = 1
	e.b.Subscriptions().UpdateSubscriptionGroupConfig(sg)
	suggest := func() int64 {
		resp := e.call(pullReq("sgLive", "SlaveT", 0, 0, 0, "*", "TAG"))
		e.expect(resp, code.Success, "FOUND")
		return pullHeader(t, resp).SuggestWhichBrokerID
	}
	if got := suggest(); got != 0 {
		t.Fatalf("suggest %d before the update, want the master 0", got)
	}
	updateConfig(t, e.call, "slaveReadEnable=true\n")
	if got := suggest(); got != 1 {
		t.Fatalf("suggest %d after slaveReadEnable=true, want the group's brokerId 1", got)
	}
}
