package broker_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/stats"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// brokerStatsData is the BrokerStatsData body of VIEW_BROKER_STATS_DATA.
type brokerStatsData struct {
	StatsMinute, StatsHour, StatsDay struct {
		Sum   int64
		Tps   float64
		Avgpt float64
	}
}

func (e *consumeEnv) viewStats(name, key string) (*brokerStatsData, *codec.RemotingCommand) {
	e.t.Helper()
	h := header.ViewBrokerStatsDataRequestHeader{StatsName: name, StatsKey: key}
	resp := e.call(codec.NewRequest(code.ViewBrokerStatsData, h.ToExtFields(), nil))
	if resp.Code != code.Success {
		return nil, resp
	}
	var d brokerStatsData
	if err := json.Unmarshal(resp.Body, &d); err != nil {
		e.t.Fatalf("BrokerStatsData %s: %v", resp.Body, err)
	}
	return &d, resp
}

// minuteSum is the minute sum of name/key, failing when the item is unknown.
func (e *consumeEnv) minuteSum(name, key string) (int64, float64) {
	e.t.Helper()
	d, resp := e.viewStats(name, key)
	if d == nil {
		e.t.Fatalf("VIEW_BROKER_STATS_DATA %s %s: %d %q", name, key, resp.Code, resp.Remark)
	}
	return d.StatsMinute.Sum, d.StatsMinute.Avgpt
}

func (e *consumeEnv) runtimeInfo() map[string]string {
	e.t.Helper()
	resp := e.call(codec.NewRequest(code.GetBrokerRuntimeInfo, nil, nil))
	e.expect(resp, code.Success, "")
	kv, err := body.DecodeKVTable(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return kv.Table
}

func (e *consumeEnv) pullFound(group, topic string, offset int64, want int) {
	e.t.Helper()
	req := pullReq(group, topic, 0, offset, 0, "*", "TAG")
	resp := e.call(req)
	e.expect(resp, code.Success, "FOUND")
	if n := countRecords(resp.Body); n != want {
		e.t.Fatalf("pull %s@%d got %d messages, want %d", topic, offset, n, want)
	}
}

// countRecords counts the stored records in a pull body.
func countRecords(b []byte) int {
	n := 0
	for len(b) >= 4 {
		size := int(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
		if size <= 0 || size > len(b) {
			break
		}
		b, n = b[size:], n+1
	}
	return n
}

func wantKeys(t *testing.T, m map[string]string, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q", k, m[k], v)
		}
	}
}

// TestBrokerStatsAfterTraffic: after N sends and M pulled messages, the
// runtime info totals, VIEW_BROKER_STATS_DATA and the consumeTps of
// GET_CONSUME_STATS / GET_BROKER_CONSUME_STATS show them (mqadmin
// brokerStatus, statsAll, consumerProgress, brokerConsumeStats).
func TestBrokerStatsAfterTraffic(t *testing.T) {
	e := newConsumeEnv(t)
	const sends = 5
	for i := range sends {
		e.send("StatT", 0, nil, fmt.Sprintf("body-%d", i))
	}
	e.waitDispatched("StatT", 0, sends)
	e.pullFound("statG", "StatT", 0, 5)
	e.pullFound("statG", "StatT", 3, 2)
	e.b.Offsets().CommitOffset("x", "statG", "StatT", 0, 5)

	wantKeys(t, e.runtimeInfo(), map[string]string{
		"msgPutTotalTodayNow": "5", "msgGetTotalTodayNow": "7",
		"msgPutTotalTodayMorning": "0", "msgGetTotalTodayMorning": "0",
		"msgPutTotalYesterdayMorning": "0", "msgGetTotalYesterdayMorning": "0",
	})

	// Two midnights later the morning keys carry the totals recorded then.
	e.b.Stats().Morning.Record(3, 2)
	e.b.Stats().Morning.Record(5, 7)
	wantKeys(t, e.runtimeInfo(), map[string]string{
		"msgPutTotalYesterdayMorning": "3", "msgGetTotalYesterdayMorning": "2",
		"msgPutTotalTodayMorning": "5", "msgGetTotalTodayMorning": "7",
	})

	e.b.Stats().SampleSeconds(time.Now())
	cluster := e.b.Config().BrokerClusterName
	if sum, avg := e.minuteSum(stats.TopicPutNums, "StatT"); sum != sends || avg != 1 {
		t.Errorf("TOPIC_PUT_NUMS minute sum %d avgpt %v, want %d, 1", sum, avg, sends)
	}
	if sum, avg := e.minuteSum(stats.TopicPutSize, "StatT"); sum <= int64(sends*len("body-0")) || avg != float64(sum)/sends {
		t.Errorf("TOPIC_PUT_SIZE minute sum %d avgpt %v", sum, avg)
	}
	if sum, _ := e.minuteSum(stats.BrokerPutNums, cluster); sum != sends {
		t.Errorf("BROKER_PUT_NUMS minute sum %d", sum)
	}
	if sum, avg := e.minuteSum(stats.GroupGetNums, "StatT@statG"); sum != 7 || avg != 3.5 {
		t.Errorf("GROUP_GET_NUMS minute sum %d avgpt %v, want 7, 3.5", sum, avg)
	}
	if sum, _ := e.minuteSum(stats.BrokerGetNums, cluster); sum != 7 {
		t.Errorf("BROKER_GET_NUMS minute sum %d", sum)
	}
	if sum, _ := e.minuteSum(stats.GroupGetSize, "StatT@statG"); sum <= 0 {
		t.Errorf("GROUP_GET_SIZE minute sum %d", sum)
	}
	// enableDetailStat (default true) keeps per-queue items and keys the
	// latency by queue.
	if d, resp := e.viewStats(stats.GroupGetLatency, "0@StatT@statG"); d == nil || d.StatsMinute.Sum < 0 {
		t.Errorf("GROUP_GET_LATENCY: %v %v", d, resp.Remark)
	}
	if sum, _ := e.minuteSum(stats.QueuePutNums, "StatT@0"); sum != sends {
		t.Errorf("QUEUE_PUT_NUMS minute sum %d", sum)
	}
	if sum, avg := e.minuteSum(stats.QueueGetNums, "StatT@0@statG"); sum != 7 || avg != 3.5 {
		t.Errorf("QUEUE_GET_NUMS minute sum %d avgpt %v", sum, avg)
	}
	d, vresp := e.viewStats(stats.GroupGetNums, "StatT@statG")
	// fastjson's layout: beans' fields in alphabetical order.
	if want := `{"statsDay":{"avgpt":0.0,"sum":0,"tps":0.0},"statsHour":{"avgpt":0.0,"sum":0,"tps":0.0},"statsMinute":{"avgpt":3.5,"sum":7,"tps":`; !strings.HasPrefix(string(vresp.Body), want) {
		t.Errorf("BrokerStatsData body %s", vresp.Body)
	}
	if d.StatsMinute.Tps <= 0 || d.StatsHour.Sum != 0 || d.StatsDay.Sum != 0 {
		t.Errorf("GROUP_GET_NUMS figures %+v", d)
	}
	// Unknown names and keys are answered as Java answers them.
	_, resp := e.viewStats(stats.TopicPutNums, "NoSuchTopic")
	e.expect(resp, code.SystemError, "The stats <TOPIC_PUT_NUMS> <NoSuchTopic> not exist")
	_, resp = e.viewStats("NO_SUCH_STATS", "StatT")
	e.expect(resp, code.SystemError, "The stats <NO_SUCH_STATS> <StatT> not exist")

	// consumeTps is the group's GROUP_GET_NUMS rate over the last minute.
	h := header.GetConsumeStatsRequestHeader{ConsumerGroup: "statG", Topic: "StatT"}
	resp = e.call(codec.NewRequest(code.GetConsumeStats, h.ToExtFields(), nil))
	e.expect(resp, code.Success, "")
	var cs body.ConsumeStats
	if err := cs.Decode(resp.Body); err != nil {
		t.Fatal(err)
	}
	if cs.ConsumeTps != d.StatsMinute.Tps {
		t.Errorf("GET_CONSUME_STATS consumeTps %v, want %v", cs.ConsumeTps, d.StatsMinute.Tps)
	}
	bh := header.GetConsumeStatsInBrokerHeader{}
	resp = e.call(codec.NewRequest(code.GetBrokerConsumeStats, bh.ToExtFields(), nil))
	e.expect(resp, code.Success, "")
	// The body has fastjson's object map keys, so match its text.
	want := string(body.AppendJavaDouble([]byte(`"statG":[{"consumeTps":`), d.StatsMinute.Tps))
	if !strings.Contains(string(resp.Body), want) || d.StatsMinute.Tps == 0 {
		t.Errorf("GET_BROKER_CONSUME_STATS lacks %s: %s", want, resp.Body)
	}
}

// TestBrokerStatsBatchAndSendBack: a batch counts its messages in one call;
// a send-back counts for SNDBCK_PUT_NUMS under the consumed topic and, when
// delayed, for the schedule topic it is stored in.
func TestBrokerStatsBatchAndSendBack(t *testing.T) {
	e := newConsumeEnv(t)
	items := []message.BatchItem{{Body: []byte("a")}, {Body: []byte("b")}, {Body: []byte("c")}}
	bh := sendHeader("BatchStatT", 0, nil)
	bh.Batch = true
	resp := e.call(sendRequest(code.SendBatchMessage, bh, message.EncodeBatch(nil, items)))
	e.expect(resp, code.Success, "")
	rh := e.send("BackStatT", 0, nil, "orig")
	_, off, err := message.DecodeOffsetMsgID(rh.MsgID)
	if err != nil {
		t.Fatal(err)
	}
	e.expect(e.call(sendBackRequest(off, "backG", 0, nil)), code.Success, "")

	// The batch's three messages, the plain send and the send-back's copy.
	wantKeys(t, e.runtimeInfo(), map[string]string{"msgPutTotalTodayNow": "5"})

	e.b.Stats().SampleSeconds(time.Now())
	if sum, avg := e.minuteSum(stats.TopicPutNums, "BatchStatT"); sum != 3 || avg != 3 {
		t.Errorf("batch TOPIC_PUT_NUMS minute sum %d avgpt %v, want 3, 3", sum, avg)
	}
	if sum, _ := e.minuteSum(stats.SndbckPutNums, "BackStatT@backG"); sum != 1 {
		t.Errorf("SNDBCK_PUT_NUMS minute sum %d", sum)
	}
	if sum, _ := e.minuteSum(stats.TopicPutNums, "SCHEDULE_TOPIC_XXXX"); sum != 1 {
		t.Errorf("SCHEDULE_TOPIC_XXXX TOPIC_PUT_NUMS minute sum %d", sum)
	}
	if sum, _ := e.minuteSum(stats.BrokerPutNums, e.b.Config().BrokerClusterName); sum != 4 {
		t.Errorf("BROKER_PUT_NUMS minute sum %d, want 4 (send-back not counted, as Java)", sum)
	}
}

// TestBrokerStatsSlaveGets is the scenario: consumers reading from
// a slave move its get totals and GROUP_GET_NUMS.
func TestBrokerStatsSlaveGets(t *testing.T) {
	e := slaveEnv(t, true)
	e.pullFound("slaveG", "SlaveT", 0, 1)
	wantKeys(t, e.runtimeInfo(), map[string]string{"msgGetTotalTodayNow": "1"})
	e.b.Stats().SampleSeconds(time.Now())
	if sum, _ := e.minuteSum(stats.GroupGetNums, "SlaveT@slaveG"); sum != 1 {
		t.Errorf("slave GROUP_GET_NUMS minute sum %d", sum)
	}
	if sum, _ := e.minuteSum(stats.BrokerGetNums, e.b.Config().BrokerClusterName); sum != 1 {
		t.Errorf("slave BROKER_GET_NUMS minute sum %d", sum)
	}
}

// TestBrokerStatsDeletedWithTopicAndGroup: with autoDeleteUnusedStats,
// deleting a topic or a group drops its items (VIEW_BROKER_STATS_DATA then
// answers "not exist"); without it they stay, as in Java.
func TestBrokerStatsDeletedWithTopicAndGroup(t *testing.T) {
	for _, auto := range []bool{false, true} {
		t.Run(fmt.Sprint("autoDeleteUnusedStats=", auto), func(t *testing.T) {
			e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) { c.AutoDeleteUnusedStats = auto })
			e.send("DelStatT", 0, nil, "x")
			e.waitDispatched("DelStatT", 0, 1)
			e.pullFound("delG", "DelStatT", 0, 1)
			e.send("KeepT", 0, nil, "x")
			e.waitDispatched("KeepT", 0, 1)
			e.pullFound("delG2", "KeepT", 0, 1)
			e.b.Stats().SampleSeconds(time.Now())

			dh := header.DeleteTopicRequestHeader{Topic: "DelStatT"}
			e.expect(e.call(codec.NewRequest(code.DeleteTopicInBroker, dh.ToExtFields(), nil)), code.Success, "")
			gh := header.DeleteSubscriptionGroupRequestHeader{GroupName: "delG2"}
			e.expect(e.call(codec.NewRequest(code.DeleteSubscriptiongroup, gh.ToExtFields(), nil)), code.Success, "")
			for _, it := range [][2]string{{stats.TopicPutNums, "DelStatT"}, {stats.GroupGetNums, "DelStatT@delG"}, {stats.GroupGetNums, "KeepT@delG2"}} {
				_, resp := e.viewStats(it[0], it[1])
				if gone := resp.Code == code.SystemError; gone != auto {
					t.Errorf("%s %s: code %d, want removed=%v", it[0], it[1], resp.Code, auto)
				}
			}
			if sum, _ := e.minuteSum(stats.TopicPutNums, "KeepT"); sum != 1 {
				t.Errorf("KeepT TOPIC_PUT_NUMS %d", sum)
			}
		})
	}
}

// TestBrokerStatsWithoutDetail: enableDetailStat=false keeps no per-queue
// sets and keys GROUP_GET_LATENCY by topic@group.
func TestBrokerStatsWithoutDetail(t *testing.T) {
	e := newConsumeEnv(t, func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) { c.EnableDetailStat = false })
	e.send("NoDetailT", 0, nil, "x")
	e.waitDispatched("NoDetailT", 0, 1)
	e.pullFound("ndG", "NoDetailT", 0, 1)
	e.b.Stats().SampleSeconds(time.Now())
	if d, resp := e.viewStats(stats.GroupGetLatency, "NoDetailT@ndG"); d == nil {
		t.Errorf("GROUP_GET_LATENCY NoDetailT@ndG: %q", resp.Remark)
	}
	_, resp := e.viewStats(stats.QueuePutNums, "NoDetailT@0")
	e.expect(resp, code.SystemError, "The stats <QUEUE_PUT_NUMS> <NoDetailT@0> not exist")
}

// TestBrokerStatsScheduleDelivery: a delayed message counts as a put to
// the schedule topic when sent and, once delivered, as a put to its real
// topic and a read by SCHEDULE_CONSUMER (enableScheduleMessageStats).
func TestBrokerStatsScheduleDelivery(t *testing.T) {
	e := newConsumeEnv(t)
	e.send("DelayStatT", 0, map[string]string{message.PropertyDelayTimeLevel: "1"}, "later")
	testutil.Eventually(t, 15*time.Second, func() error {
		if it := e.b.Stats().Lookup(stats.TopicPutNums, "DelayStatT"); it == nil || it.Value() != 1 {
			return fmt.Errorf("delayed message not delivered yet: %v", it)
		}
		return nil
	})
	e.b.Stats().SampleSeconds(time.Now())
	for _, c := range []struct {
		name, key string
		want      int64
	}{
		{stats.TopicPutNums, "SCHEDULE_TOPIC_XXXX", 1},
		{stats.TopicPutNums, "DelayStatT", 1},
		{stats.GroupGetNums, "SCHEDULE_TOPIC_XXXX@SCHEDULE_CONSUMER", 1},
		{stats.BrokerPutNums, e.b.Config().BrokerClusterName, 2},
	} {
		if sum, _ := e.minuteSum(c.name, c.key); sum != c.want {
			t.Errorf("%s %s minute sum %d, want %d", c.name, c.key, sum, c.want)
		}
	}
	// The delivery is no consumer read: the broker's get total is untouched.
	if sum, _ := e.minuteSum(stats.BrokerGetNums, e.b.Config().BrokerClusterName); sum != 0 {
		t.Errorf("BROKER_GET_NUMS %d", sum)
	}
}

// TestBrokerStatsStoredReply: a stored reply message counts as a put to
// its topic even when no requester took it (ReplyMessageProcessor).
func TestBrokerStatsStoredReply(t *testing.T) {
	e := newConsumeEnv(t)
	props := map[string]string{message.PropertyMessageReplyToClient: "nobody", message.PropertyCorrelationID: "c"}
	resp := e.call(sendRequest(code.SendReplyMessageV2, sendHeader("DefaultCluster_REPLY_TOPIC", 0, props), []byte("r")))
	e.expect(resp, code.SystemError, "")
	e.b.Stats().SampleSeconds(time.Now())
	if sum, _ := e.minuteSum(stats.TopicPutNums, "DefaultCluster_REPLY_TOPIC"); sum != 1 {
		t.Errorf("reply TOPIC_PUT_NUMS minute sum %d", sum)
	}
}
