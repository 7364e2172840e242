package broker_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/props"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func createTopicReq(topic string, queues int32) *codec.RemotingCommand {
	sys := int32(0)
	h := header.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102", ReadQueueNums: queues,
		WriteQueueNums: queues, Perm: 6, TopicFilterType: "SINGLE_TAG", TopicSysFlag: &sys}
	return codec.NewRequest(code.UpdateAndCreateTopic, h.ToExtFields(), nil)
}

func topicStats(t *testing.T, cc *cmClient, topic string) (*body.TopicStatsTable, *codec.RemotingCommand) {
	t.Helper()
	h := header.GetTopicStatsInfoRequestHeader{Topic: topic}
	resp := cc.call(codec.NewRequest(code.GetTopicStatsInfo, h.ToExtFields(), nil))
	if resp.Code != code.Success {
		return nil, resp
	}
	var st body.TopicStatsTable
	if err := st.Decode(resp.Body); err != nil {
		t.Fatalf("decode stats %q: %v", resp.Body, err)
	}
	return &st, resp
}

func allTopics(t *testing.T, cc *cmClient) map[string]body.TopicConfig {
	t.Helper()
	resp := cc.call(codec.NewRequest(code.GetAllTopicConfig, nil, nil))
	wantCode(t, resp, code.Success)
	norm, err := body.Normalize(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var w body.TopicConfigSerializeWrapper
	if err := json.Unmarshal(norm, &w); err != nil {
		t.Fatalf("decode %q: %v", resp.Body, err)
	}
	return w.TopicConfigTable
}

func sendN(t *testing.T, cc *cmClient, topic string, queueID int32, n int) {
	t.Helper()
	for range n {
		wantCode(t, cc.call(sendRequest(code.SendMessageV2, sendHeader(topic, queueID, nil), []byte("x"))), code.Success)
	}
}

func TestBrokerAdminTopicLifecycle(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	resp := cc.call(createTopicReq("AdminTopic", 4))
	wantCode(t, resp, code.Success)
	if resp.Remark != "not set any response code" {
		t.Fatalf("create remark %q", resp.Remark)
	}
	tc, ok := allTopics(t, cc)["AdminTopic"]
	if !ok || tc.ReadQueueNums != 4 || tc.WriteQueueNums != 4 || tc.Perm != 6 {
		t.Fatalf("topic table entry %+v %v", tc, ok)
	}
	sendN(t, cc, "AdminTopic", 2, 3)
	testutil.Eventually(t, 5*time.Second, func() error {
		st, r := topicStats(t, cc, "AdminTopic")
		if st == nil {
			return statusErr(r.Remark)
		}
		if len(st.OffsetTable) != 4 {
			return errStatusf("queues " + string(rune('0'+len(st.OffsetTable))))
		}
		for mq, off := range st.OffsetTable {
			want := int64(0)
			if mq.QueueID == 2 {
				want = 3
			}
			if off.MaxOffset != want || off.MinOffset != 0 || (want > 0) != (off.LastUpdateTimestamp > 0) || mq.BrokerName != "broker-a" {
				return errStatusf("stats not yet right")
			}
		}
		return nil
	})
	dh := header.DeleteTopicRequestHeader{Topic: "AdminTopic"}
	resp = cc.call(codec.NewRequest(code.DeleteTopicInBroker, dh.ToExtFields(), nil))
	wantCode(t, resp, code.Success)
	if resp.Remark != "" {
		t.Fatalf("delete remark %q", resp.Remark)
	}
	if _, ok := allTopics(t, cc)["AdminTopic"]; ok {
		t.Fatal("topic still listed after delete")
	}
	_, r := topicStats(t, cc, "AdminTopic")
	wantCode(t, r, code.TopicNotExist)
	if r.Remark != "topic[AdminTopic] not exist" {
		t.Fatalf("remark %q", r.Remark)
	}
}

func TestBrokerAdminTopicValidation(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	for _, name := range []string{"SCHEDULE_TOPIC_XXXX", "bad topic!", "TBW102"} {
		resp := cc.call(createTopicReq(name, 1))
		if resp.Code == code.Success {
			t.Errorf("create %q accepted", name)
		}
	}
	missing := codec.NewRequest(code.UpdateAndCreateTopic, map[string]string{"topic": "T"}, nil)
	wantCode(t, cc.call(missing), code.SystemError)
}

func TestBrokerAdminSlaveRefusesChanges(t *testing.T) {
	b := testutil.StartBroker(t, "", func(c *broker.BrokerConfig, s *store.MessageStoreConfig) {
		c.BrokerID = 1
		s.BrokerRole = store.Slave
	})
	cc := newCMClient(t, b.Addr().String(), "admin")
	const remark = "Can't modify topic or subscription group from slave broker, please execute it from master broker."
	for _, req := range []*codec.RemotingCommand{
		createTopicReq("SlaveTopic", 1),
		codec.NewRequest(code.DeleteTopicInBroker, map[string]string{"topic": "SlaveTopic"}, nil),
		codec.NewRequest(code.DeleteSubscriptiongroup, map[string]string{"groupName": "g"}, nil),
	} {
		resp := cc.call(req)
		wantCode(t, resp, code.SystemError)
		if resp.Remark != remark {
			t.Fatalf("remark %q", resp.Remark)
		}
	}
}

func TestBrokerAdminBrokerConfig(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	get := func() (map[string]string, body.DataVersion) {
		resp := cc.call(codec.NewRequest(code.GetBrokerConfig, nil, nil))
		wantCode(t, resp, code.Success)
		m, err := props.ParseString(string(resp.Body))
		if err != nil {
			t.Fatal(err)
		}
		dv, err := body.DecodeDataVersion([]byte(resp.Ext("version")))
		if err != nil {
			t.Fatalf("version %q: %v", resp.Ext("version"), err)
		}
		return m, *dv
	}
	m, dv := get()
	if m["brokerName"] != "broker-a" || m["listenPort"] == "" || m["storePathRootDir"] == "" || m["autoCreateTopicEnable"] != "true" {
		t.Fatalf("config body lacks keys: brokerName=%q listenPort=%q", m["brokerName"], m["listenPort"])
	}
	black := cc.call(codec.NewRequest(code.UpdateBrokerConfig, nil, []byte("brokerConfigPath=/tmp/x\n")))
	wantCode(t, black, code.NoPermission)
	if black.Remark != "Can not update config in black list." {
		t.Fatalf("remark %q", black.Remark)
	}
	wantCode(t, cc.call(codec.NewRequest(code.UpdateBrokerConfig, nil, []byte("autoCreateTopicEnable=false\n"))), code.Success)
	m2, dv2 := get()
	if m2["autoCreateTopicEnable"] != "false" || b.Config().AutoCreateTopicEnable {
		t.Fatalf("update not applied: %q", m2["autoCreateTopicEnable"])
	}
	if dv2.Counter != dv.Counter+1 {
		t.Fatalf("data version %+v -> %+v", dv, dv2)
	}
	data, err := os.ReadFile(filepath.Join(b.StoreConfig().ConfigDir(), "broker.properties"))
	if err != nil || !strings.Contains(string(data), "autoCreateTopicEnable=false\n") {
		t.Fatalf("persisted config: %v", err)
	}
	// A store key is reported and persisted (applied at the next start).
	wantCode(t, cc.call(codec.NewRequest(code.UpdateBrokerConfig, nil, []byte("flushDiskType=SYNC_FLUSH\nhaMasterAddress=10.0.0.1:10912\n"))), code.Success)
	m3, _ := get()
	if m3["flushDiskType"] != "SYNC_FLUSH" || m3["haMasterAddress"] != "10.0.0.1:10912" || m3["autoCreateTopicEnable"] != "false" {
		t.Fatalf("store keys after update: %q %q", m3["flushDiskType"], m3["haMasterAddress"])
	}
	data, _ = os.ReadFile(filepath.Join(b.StoreConfig().ConfigDir(), "broker.properties"))
	if !strings.Contains(string(data), "flushDiskType=SYNC_FLUSH\n") || !strings.Contains(string(data), "haMasterAddress=10.0.0.1:10912\n") {
		t.Fatalf("persisted config lacks the store keys")
	}
	// Auto-creation is now refused for sends.
	resp := cc.call(sendRequest(code.SendMessageV2, sendHeader("NoAutoTopic", 0, nil), []byte("x")))
	wantCode(t, resp, code.TopicNotExist)
}

func TestBrokerAdminRuntimeInfo(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	sendN(t, cc, "RtTopic", 0, 2)
	resp := cc.call(codec.NewRequest(code.GetBrokerRuntimeInfo, nil, nil))
	wantCode(t, resp, code.Success)
	kv, err := body.DecodeKVTable(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	// earliestMessageTimeStamp is -1 on a store this small, as Java's.
	if kv.Table["brokerVersion"] != "409" || kv.Table["brokerVersionDesc"] != "V4_9_8" || kv.Table["msgPutTotalTodayNow"] != "2" ||
		kv.Table["earliestMessageTimeStamp"] != "-1" {
		t.Fatalf("runtime info %v", kv.Table)
	}
	// Every key mqadmin clusterList/brokerStatus reads from the Java broker
	// is present.
	if golden := goldenFrame(t, "001086-broker2client-resp-SUCCESS.bin"); golden != nil {
		gkv, err := body.DecodeKVTable(golden.Body)
		if err != nil {
			t.Fatal(err)
		}
		var missing []string
		for k := range gkv.Table {
			if _, ok := kv.Table[k]; !ok && !strings.HasPrefix(k, "scheduleMessageOffset_") &&
				!strings.HasPrefix(k, "commitLogDiskRatio_") && !storeOwnedRuntimeKeys[k] {
				missing = append(missing, k)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("runtime keys missing vs Java: %v", missing)
		}
	}
}

// storeOwnedRuntimeKeys are runtime keys the store's RuntimeInfo should
// provide (DefaultMessageStore/StoreStatsService in Java) and does not yet.
var storeOwnedRuntimeKeys = map[string]bool{"putLatency99": true, "putLatency999": true}

// goldenFrame decodes a recorded frame of the JSON session; nil (test
// skipped part) when the golden set is absent.
func goldenFrame(t *testing.T, name string) *codec.RemotingCommand {
	t.Helper()
	dir := os.Getenv("RMQ_GOLDEN_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "golden")
	}
	data, err := os.ReadFile(filepath.Join(dir, "frames", "json", name))
	if err != nil {
		t.Logf("golden frame %s not found: %v", name, err)
		return nil
	}
	cmd, err := codec.Decode(data)
	if err != nil {
		t.Fatalf("decode golden %s: %v", name, err)
	}
	return cmd
}

func TestBrokerAdminSubscriptionGroups(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	// The body mqadmin updateSubGroup sent to the Java broker.
	sg := []byte(`{"brokerId":0,"consumeBroadcastEnable":false,"consumeEnable":true,"consumeFromMinEnable":false,` +
		`"groupName":"admin_sub_group","notifyConsumerIdsChangedEnable":true,"retryMaxTimes":16,"retryQueueNums":3,"whichBrokerWhenConsumeSlowly":1}`)
	if g := goldenFrame(t, "001246-client2broker-req-UPDATE_AND_CREATE_SUBSCRIPTIONGROUP.bin"); g != nil {
		sg = g.Body
	}
	resp := cc.call(codec.NewRequest(code.UpdateAndCreateSubscriptiongroup, nil, sg))
	wantCode(t, resp, code.Success)
	if resp.Remark != "" {
		t.Fatalf("remark %q", resp.Remark)
	}
	cfg, ok := b.Subscriptions().Get("admin_sub_group")
	if !ok || cfg.WhichBrokerWhenConsumeSlowly != 1 || cfg.RetryMaxTimes != 16 {
		t.Fatalf("group %+v %v", cfg, ok)
	}
	all := cc.call(codec.NewRequest(code.GetAllSubscriptiongroupConfig, nil, nil))
	wantCode(t, all, code.Success)
	var w body.SubscriptionGroupWrapper
	if err := w.Decode(all.Body); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.SubscriptionGroupTable["admin_sub_group"]; !ok {
		t.Fatalf("groups %v", w.Groups())
	}
	b.Offsets().CommitOffset("x", "admin_sub_group", "T", 0, 5)
	dh := header.DeleteSubscriptionGroupRequestHeader{GroupName: "admin_sub_group", RemoveOffset: true}
	wantCode(t, cc.call(codec.NewRequest(code.DeleteSubscriptiongroup, dh.ToExtFields(), nil)), code.Success)
	if _, ok := b.Subscriptions().Get("admin_sub_group"); ok {
		t.Fatal("group still there")
	}
	if off := b.Offsets().QueryOffset("admin_sub_group", "T", 0); off != -1 {
		t.Fatalf("offset kept: %d", off)
	}
}

func TestBrokerAdminConsumeStatsAndOffsets(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	sendN(t, cc, "CsTopic", 1, 4)
	testutil.Eventually(t, 5*time.Second, func() error {
		if b.Store().MaxOffsetInQueue("CsTopic", 1) != 4 {
			return errStatusf("not dispatched")
		}
		return nil
	})
	b.Offsets().CommitOffset("x", "cgStats", "CsTopic", 1, 3)
	h := header.GetConsumeStatsRequestHeader{ConsumerGroup: "cgStats"}
	resp := cc.call(codec.NewRequest(code.GetConsumeStats, h.ToExtFields(), nil))
	wantCode(t, resp, code.Success)
	var cs body.ConsumeStats
	if err := cs.Decode(resp.Body); err != nil {
		t.Fatal(err)
	}
	if cs.ComputeTotalDiff() != 1 || len(cs.OffsetTable) != 4 {
		t.Fatalf("consume stats %+v", cs)
	}
	for mq, ow := range cs.OffsetTable {
		if mq.QueueID == 1 && (ow.BrokerOffset != 4 || ow.ConsumerOffset != 3 || ow.LastTimestamp <= 0) {
			t.Fatalf("queue 1 %+v", ow)
		}
	}
	// Who consumes CsTopic: the group known from its offsets plus an online one.
	c2 := newCMClient(t, b.Addr().String(), "c2")
	wantCode(t, c2.heartbeat("cgOnline", "", "CsTopic"), code.Success)
	qh := header.QueryTopicConsumeByWhoRequestHeader{Topic: "CsTopic"}
	gresp := cc.call(codec.NewRequest(code.QueryTopicConsumeByWho, qh.ToExtFields(), nil))
	wantCode(t, gresp, code.Success)
	gl, err := body.DecodeGroupList(gresp.Body)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(gl.GroupList)
	if strings.Join(gl.GroupList, ",") != "cgOnline,cgStats" {
		t.Fatalf("groups %v", gl.GroupList)
	}
	all := cc.call(codec.NewRequest(code.GetAllConsumerOffset, nil, nil))
	wantCode(t, all, code.Success)
	var ow body.ConsumerOffsetSerializeWrapper
	if err := ow.Decode(all.Body); err != nil || ow.OffsetTable["CsTopic@cgStats"][1] != 3 {
		t.Fatalf("all offsets %s %v", all.Body, err)
	}
	wantCode(t, cc.call(codec.NewRequest(code.GetAllDelayOffset, nil, nil)), code.Success)
}

func TestBrokerAdminConnectionsOfUnknownGroups(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	_, r := consumerConnection(t, cc, "lite_group")
	wantCode(t, r, code.ConsumerNotOnline)
	if r.Remark != "the consumer group[lite_group] not online" {
		t.Fatalf("remark %q", r.Remark)
	}
}

func TestBrokerAdminACLDisabled(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	resp := cc.call(codec.NewRequest(code.UpdateAndCreateAclConfig, map[string]string{"accessKey": "ak"}, nil))
	wantCode(t, resp, code.UpdateAndCreateAclConfigFailed)
	resp = cc.call(codec.NewRequest(code.DeleteAclConfig, map[string]string{"accessKey": "ak"}, nil))
	wantCode(t, resp, code.DeleteAclConfigFailed)
	// GET_BROKER_CLUSTER_ACL_INFO is never answered by Java with ACL off.
	ctx, cancel := testContext(t, 300*time.Millisecond)
	defer cancel()
	if r, err := cc.c.InvokeSync(ctx, cc.addr, codec.NewRequest(code.GetBrokerClusterAclInfo, nil, nil)); err == nil {
		t.Fatalf("answered: code %d", r.Code)
	}
}

func TestBrokerAdminSystemTopicList(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	resp := cc.call(codec.NewRequest(code.GetSystemTopicListFromBroker, nil, nil))
	wantCode(t, resp, code.Success)
	tl, err := body.DecodeTopicList(resp.Body)
	if err != nil || len(tl.TopicList) != 9 || !strings.Contains(strings.Join(tl.TopicList, ","), "TBW102") {
		t.Fatalf("system topics %+v %v", tl, err)
	}
}

func testContext(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}

func TestBrokerAdminBrokerConsumeStatsAndProducerInfo(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "192.0.2.2@61")
	sendN(t, cc, "BcsTopic", 0, 3)
	testutil.Eventually(t, 5*time.Second, func() error {
		if b.Store().MaxOffsetInQueue("BcsTopic", 0) != 3 {
			return errStatusf("not dispatched")
		}
		return nil
	})
	wantCode(t, cc.heartbeat("cgBcs", "pgBcs", "BcsTopic"), code.Success)
	b.Offsets().CommitOffset("x", "cgBcs", "BcsTopic", 0, 1)
	h := header.GetConsumeStatsInBrokerHeader{IsOrder: false}
	resp := cc.call(codec.NewRequest(code.GetBrokerConsumeStats, h.ToExtFields(), nil))
	wantCode(t, resp, code.Success)
	norm, err := body.Normalize(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", resp.Body, err)
	}
	var list struct {
		BrokerAddr       string                  `json:"brokerAddr"`
		ConsumeStatsList []map[string][]struct{} `json:"consumeStatsList"`
		TotalDiff        int64                   `json:"totalDiff"`
	}
	if err := json.Unmarshal(norm, &list); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range list.ConsumeStatsList {
		if s, ok := m["cgBcs"]; ok && len(s) == 1 {
			found = true
		}
	}
	if !found || list.TotalDiff != 2 || list.BrokerAddr != b.BrokerAddr() {
		t.Fatalf("consume stats list %s", resp.Body)
	}
	// Only order topics asked: none here.
	h.IsOrder = true
	resp = cc.call(codec.NewRequest(code.GetBrokerConsumeStats, h.ToExtFields(), nil))
	if !strings.Contains(string(resp.Body), `"totalDiff":0`) {
		t.Fatalf("order-only stats %s", resp.Body)
	}

	resp = cc.call(codec.NewRequest(code.GetAllProducerInfo, nil, nil))
	wantCode(t, resp, code.Success)
	var pt struct {
		Data map[string][]struct {
			ClientID string `json:"clientId"`
			Language string `json:"language"`
			RemoteIP string `json:"remoteIP"`
			Version  int32  `json:"version"`
		} `json:"data"`
	}
	if err := json.Unmarshal(resp.Body, &pt); err != nil {
		t.Fatalf("%s: %v", resp.Body, err)
	}
	ps := pt.Data["pgBcs"]
	if len(ps) != 1 || ps[0].ClientID != "192.0.2.2@61" || ps[0].Language != "JAVA" || !strings.HasPrefix(ps[0].RemoteIP, "/127.0.0.1:") {
		t.Fatalf("producer table %s", resp.Body)
	}
}

// knownConfigKeyDiffs: Java prints MessageStoreConfig's boolean field
// isEnableBatchPush under its field name while its setter (what a config
// file binds) is enableBatchPush; store.MessageStoreConfig tags the setter
// name, so the printed key differs.
// namesrvAddr, rocketmqHome and storePathCommitLog default to null (not
// printed) and were set in the recorded run.
var knownConfigKeyDiffs = map[string]bool{"isEnableBatchPush": true, "enableBatchPush": true,
	"namesrvAddr": true, "rocketmqHome": true, "storePathCommitLog": true}

// timerConfigKeys are 5.x MessageStoreConfig keys the broker serves
// (docs/timer.md); a 5.x broker prints them too, 4.9.8 has none.
var timerConfigKeys = map[string]bool{"timerWheelEnable": true, "timerMaxDelaySec": true,
	"timerPrecisionMs": true, "timerFlushIntervalMs": true}

// TestBrokerAdminBrokerConfigKeysMatchGolden: mqadmin getBrokerConfig
// prints every key; ours must carry every key the Java broker answered.
func TestBrokerAdminBrokerConfigKeysMatchGolden(t *testing.T) {
	golden := goldenFrame(t, "001217-broker2client-resp-SUCCESS.bin")
	if golden == nil {
		t.Skip("golden set absent")
	}
	want, err := props.ParseString(string(golden.Body))
	if err != nil {
		t.Fatal(err)
	}
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "admin")
	resp := cc.call(codec.NewRequest(code.GetBrokerConfig, nil, nil))
	wantCode(t, resp, code.Success)
	got, err := props.ParseString(string(resp.Body))
	if err != nil {
		t.Fatal(err)
	}
	var missing, extra []string
	for k := range want {
		if _, ok := got[k]; !ok && !knownConfigKeyDiffs[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && !knownConfigKeyDiffs[k] && !timerConfigKeys[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("config keys missing vs Java: %v; extra: %v", missing, extra)
	}
	if _, err := body.DecodeDataVersion([]byte(resp.Ext("version"))); err != nil || len(golden.ExtFields) != len(resp.ExtFields) {
		t.Errorf("ext %v, Java %v", resp.ExtFields, golden.ExtFields)
	}
}

func TestBrokerAdminRuntimeEarliestMessageTime(t *testing.T) {
	b := testutil.StartBroker(t, "", func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) {
		s.MaxMessageSize = 1024 // 2 KiB readable after ~15 small records
	})
	cc := newCMClient(t, b.Addr().String(), "admin")
	resp := cc.call(codec.NewRequest(code.GetBrokerRuntimeInfo, nil, nil))
	if kv, err := body.DecodeKVTable(resp.Body); err != nil || kv.Table["earliestMessageTimeStamp"] != "-1" {
		t.Fatalf("empty store: %v %v", kv, err)
	}
	sendN(t, cc, "EmTopic", 0, 20)
	testutil.Eventually(t, 5*time.Second, func() error {
		resp := cc.call(codec.NewRequest(code.GetBrokerRuntimeInfo, nil, nil))
		kv, err := body.DecodeKVTable(resp.Body)
		if err != nil {
			return err
		}
		if ts, _ := strconv.ParseInt(kv.Table["earliestMessageTimeStamp"], 10, 64); ts <= 0 {
			return errStatusf("earliestMessageTimeStamp " + kv.Table["earliestMessageTimeStamp"])
		}
		return nil
	})
}
