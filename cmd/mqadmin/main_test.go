package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/trace"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// cluster is a name server and a broker with traceTopicEnable.
type cluster struct {
	ns, broker string
	b          *broker.Broker
	c          *remoting.Client
}

func startCluster(t *testing.T, traceTopic string) *cluster {
	t.Helper()
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String(), func(c *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		c.TraceTopicEnable, c.MsgTraceTopicName = true, traceTopic
	})
	c := remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("client"))
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	return &cluster{ns: ns.Addr().String(), broker: b.Addr().String(), b: b, c: c}
}

// sendTrace stores one trace message as a client's trace dispatcher sends
// it: the records in the body, the msgIds and keys space-separated in KEYS.
func (cl *cluster) sendTrace(t *testing.T, topic string, keys []string, records ...trace.Context) {
	t.Helper()
	var data strings.Builder
	for i := range records {
		d, _ := trace.Encode(&records[i])
		data.WriteString(d)
	}
	props := map[string]string{message.PropertyKeys: strings.Join(keys, " ")}
	h := &header.SendMessageRequestHeader{ProducerGroup: "_INNER_TRACE_PRODUCER", Topic: topic, DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, BornTimestamp: time.Now().UnixMilli(), Properties: message.MarshalProperties(props)}
	resp, err := cl.c.InvokeSync(t.Context(), cl.broker, codec.NewRequest(code.SendMessage, h.ToExtFields(), []byte(data.String())))
	if err != nil || resp.Code != code.Success {
		t.Fatalf("send trace: %v %+v", err, resp)
	}
}

func runAdmin(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	rc := run(args, &out, &errOut)
	return out.String(), errOut.String(), rc
}

// TestMqadminQueryMsgTraceByID runs the command against an in-process
// cluster holding trace messages as Java clients write them, including one
// whose keys name several messages, and checks Java's table.
func TestMqadminQueryMsgTraceByID(t *testing.T) {
	for _, topic := range []string{trace.DefaultTopic, "MyTraceTopic"} {
		t.Run(topic, func(t *testing.T) {
			cl := startCluster(t, topic)
			const id = "7F00000100002A9F0000000000000001"
			ts := int64(1700000000123)
			bean := trace.Bean{Topic: "TopicTest", MsgID: id, Tags: "TagA", Keys: "order-1", StoreHost: cl.broker,
				BodyLength: 11, OffsetMsgID: "7F00000100002A9F0000000000000000"}
			cl.sendTrace(t, topic, []string{id, "order-1"},
				trace.Context{Type: trace.Pub, TimeStamp: ts, GroupName: "PG", CostTime: 12, Success: true, Beans: []trace.Bean{bean}})
			// A batch describing another message and ours.
			other := trace.Bean{MsgID: "OTHER", Keys: "x"}
			cl.sendTrace(t, topic, []string{"OTHER", "x", id, "order-1"},
				trace.Context{Type: trace.SubBefore, TimeStamp: ts + 100, GroupName: "CG", RequestID: "r1", Beans: []trace.Bean{other, {MsgID: id, Keys: "order-1"}}},
				trace.Context{Type: trace.SubAfter, TimeStamp: ts + 105, GroupName: "CG", RequestID: "r1", CostTime: 5, Success: true, Beans: []trace.Bean{other, {MsgID: id, Keys: "order-1"}}})
			args := []string{"queryMsgTraceById", "-n", cl.ns, "-i", id}
			if topic != trace.DefaultTopic {
				args = append(args, "-t", topic)
			}
			when := func(ms int64) string { return time.UnixMilli(ms).Format("2006-01-02 15:04:05") }
			want := "" +
				"#Type      #ProducerGroup       #ClientHost          #SendTime            #CostTimes #Status   \n" +
				fmt.Sprintf("Pub        PG                   127.0.0.1            %-20s 12ms       success   \n", when(ts)) +
				"\n" +
				"#Type      #ConsumerGroup       #ClientHost          #ConsumerTime        #CostTimes #Status   \n" +
				fmt.Sprintf("Sub        CG                   127.0.0.1            %-20s 5ms        success   \n", when(ts+105)) +
				"\n"
			var out, errOut string
			testutil.Eventually(t, 10*time.Second, func() error { // the index is built by the dispatcher
				var rc int
				out, errOut, rc = runAdmin(t, args...)
				if rc != 0 || out != want {
					return fmt.Errorf("rc %d, stdout:\n%s\nstderr: %s", rc, out, errOut)
				}
				return nil
			})
		})
	}
}

func TestMqadminQueryMsgTraceByIDNoTrace(t *testing.T) {
	cl := startCluster(t, trace.DefaultTopic)
	out, errOut, rc := runAdmin(t, "QueryMsgTraceById", "-n", cl.ns, "-i", "NOPE")
	if rc != 1 || out != "" || !strings.Contains(errOut, "QueryMsgTraceByIdSubCommand command failed") ||
		!strings.Contains(errOut, "query message by key finished, but no message.") {
		t.Fatalf("rc %d\nstdout %q\nstderr %q", rc, out, errOut)
	}
	if _, errOut, rc := runAdmin(t, "queryMsgTraceById", "-n", cl.ns); rc != 1 || !strings.Contains(errOut, "missing required option: i") {
		t.Fatalf("without -i: %d %q", rc, errOut)
	}
}

// TestMqadminBrokerStatus: GET_BROKER_RUNTIME_INFO's table, keys sorted as
// Java's TreeMap, "%-32s: %s".
func TestMqadminBrokerStatus(t *testing.T) {
	cl := startCluster(t, trace.DefaultTopic)
	out, errOut, rc := runAdmin(t, "brokerStatus", "-b", cl.broker)
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	line := regexp.MustCompile(`^(\S+) *: (.*)$`)
	var keys []string
	for _, l := range lines {
		m := line.FindStringSubmatch(l)
		if m == nil || (len(m[1]) < 32 && l[32] != ':') {
			t.Fatalf("line %q not %%-32s: %%s", l)
		}
		keys = append(keys, m[1])
	}
	if !slices.IsSorted(keys) || !slices.Contains(keys, "msgPutTotalTodayNow") || !slices.Contains(keys, "brokerVersionDesc") {
		t.Fatalf("keys %q", keys)
	}
}

func TestMqadminHelpAndUnknown(t *testing.T) {
	out, _, rc := runAdmin(t)
	if rc != 0 || !strings.Contains(out, "   queryMsgTraceById    query a message trace\n") {
		t.Fatalf("help %d %q", rc, out)
	}
	if out, _, rc := runAdmin(t, "nope"); rc != 1 || out != "The sub command nope not exist.\n" {
		t.Fatalf("unknown %d %q", rc, out)
	}
}

// TestMqadminBrokerStatusCluster: -c prints every broker of the cluster with
// its address in front, "%-24s %-32s: %s".
func TestMqadminBrokerStatusCluster(t *testing.T) {
	cl := startCluster(t, trace.DefaultTopic)
	var out, errOut string
	testutil.Eventually(t, 10*time.Second, func() error { // registration is asynchronous
		var rc int
		out, errOut, rc = runAdmin(t, "brokerStatus", "-n", cl.ns, "-c", "DefaultCluster")
		if rc != 0 || out == "" {
			return fmt.Errorf("rc %d stdout %q stderr %q", rc, out, errOut)
		}
		return nil
	})
	prefix := fmt.Sprintf("%-24s ", cl.broker)
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		key, _, ok := strings.Cut(strings.TrimPrefix(l, prefix), ": ")
		if !strings.HasPrefix(l, prefix) || !ok || (len(key) != 32 && strings.HasSuffix(key, " ")) || len(key) < 32 {
			t.Fatalf("line %q not %%-24s %%-32s: %%s", l)
		}
	}
	if !strings.Contains(out, fmt.Sprintf("%s%-32s: V4_9_8\n", prefix, "brokerVersionDesc")) {
		t.Fatalf("no version line:\n%s", out)
	}
	out, _, rc := runAdmin(t, "brokerStatus", "-n", cl.ns, "-c", "NoSuchCluster")
	if rc != 0 || out != "[error] Make sure the specified clusterName exists or the name server connected to is correct." {
		t.Fatalf("unknown cluster: %d %q", rc, out)
	}
}
