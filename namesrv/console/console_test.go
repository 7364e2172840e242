package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/namesrv"
	"github.com/rocketmq-go/rmq/namesrv/console"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

var seq atomic.Int64

func unique(prefix string) string {
	return prefix + "_" + strconv.FormatInt(seq.Add(1), 10) + "_" + strconv.FormatInt(time.Now().UnixNano()%1e6, 10)
}

// env is a name server, a broker with one 4-queue topic, a console asking
// that name server, and a raw remoting client acting as producer/consumer.
type env struct {
	t      *testing.T
	ns     *namesrv.Namesrv
	b      *broker.Broker
	rc     *remoting.Client
	topic  string
	base   string // http://console
	nsAddr string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, topic: unique("ConsoleT")}
	e.ns = testutil.StartNamesrv(t)
	e.nsAddr = e.ns.Addr().String()
	e.b = testutil.StartBroker(t, e.nsAddr)
	tc := body.NewTopicConfig(e.topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 4, 4, 6
	e.b.Topics().UpdateTopicConfig(tc)
	e.b.RegisterBrokerAll(false)
	e.rc = remoting.NewClient(remoting.NewNettyClientConfig(), zaptest.NewLogger(t).Named("client"))
	t.Cleanup(func() { _ = e.rc.Shutdown(context.Background()) })
	c, err := console.New(console.Config{
		ListenAddr:     "127.0.0.1:0",
		Namesrv:        func() []string { return []string{e.nsAddr} },
		SampleInterval: 100 * time.Millisecond,
	}, zaptest.NewLogger(t).Named("console"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Shutdown(ctx); err != nil {
			t.Errorf("console shutdown: %v", err)
		}
	})
	e.base = "http://" + c.Addr().String()
	return e
}

func (e *env) invoke(addr string, req *codec.RemotingCommand) *codec.RemotingCommand {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.t.Context(), 10*time.Second)
	defer cancel()
	resp, err := e.rc.InvokeSync(ctx, addr, req)
	if err != nil {
		e.t.Fatalf("%s: %v", code.RequestName(req.Code), err)
	}
	if resp.Code != code.Success {
		e.t.Fatalf("%s: code %d %s", code.RequestName(req.Code), resp.Code, resp.Remark)
	}
	return resp
}

// send stores one message on queue q and returns its offsetMsgId.
func (e *env) send(q int32, key, uniq, bodyText string) string {
	e.t.Helper()
	props := message.MarshalProperties(map[string]string{message.PropertyKeys: key,
		message.PropertyUniqClientMessageIDKeyidx: uniq, message.PropertyTags: "TagA"})
	h := header.SendMessageRequestHeader{ProducerGroup: "console_pg", Topic: e.topic, DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, QueueID: q, BornTimestamp: time.Now().UnixMilli(), Properties: props}
	resp := e.invoke(e.b.BrokerAddr(), codec.NewRequest(code.SendMessage, h.ToExtFields(), []byte(bodyText)))
	return resp.Ext("msgId")
}

// uniqKey makes a client message id (32 hex characters) from n.
func uniqKey(n int) string { return fmt.Sprintf("7F0000010000%020X", n) }

// consumer heartbeats as a push consumer of group (so the broker knows a
// member and creates the group) and commits offset on every queue.
func (e *env) consumer(group, clientID string, offset int64) {
	e.t.Helper()
	hb := body.HeartbeatData{ClientID: clientID, ConsumerDataSet: []body.ConsumerData{{
		GroupName: group, ConsumeType: body.ConsumePassively, MessageModel: body.Clustering,
		ConsumeFromWhere:    body.ConsumeFromFirstOffset,
		SubscriptionDataSet: []body.SubscriptionData{{Topic: e.topic, SubString: "*", SubVersion: 1, ExpressionType: "TAG"}},
	}}}
	e.invoke(e.b.BrokerAddr(), codec.NewRequest(code.HeartBeat, nil, hb.Encode()))
	for q := range int32(4) {
		h := header.UpdateConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: e.topic, QueueID: q, CommitOffset: offset}
		e.invoke(e.b.BrokerAddr(), codec.NewRequest(code.UpdateConsumerOffset, h.ToExtFields(), nil))
	}
}

func (e *env) get(path string, want int, v any) []byte {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(e.t.Context(), http.MethodGet, e.base+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		e.t.Fatalf("GET %s: status %d, want %d: %s", path, resp.StatusCode, want, raw)
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			e.t.Fatalf("GET %s: %v: %s", path, err, raw)
		}
	}
	return raw
}

// traffic sends 20 messages (5 a queue), and a group that consumed 3 of
// each queue: lag 2 a queue, 8 in all.
func (e *env) traffic() (group, clientID string, ids []string) {
	for i := range 20 {
		ids = append(ids, e.send(int32(i%4), "key-"+strconv.Itoa(i), uniqKey(i), "body-"+strconv.Itoa(i)))
	}
	e.waitDispatched(20)
	group, clientID = unique("console_cg"), unique("cid")
	e.consumer(group, clientID, 3)
	return group, clientID, ids
}

// waitDispatched waits until the topic's queues hold n messages (the
// reput dispatches after the send is answered).
func (e *env) waitDispatched(n int64) {
	e.t.Helper()
	testutil.Eventually(e.t, 10*time.Second, func() error {
		var tp console.Topic
		e.get("/api/topic?name="+e.topic, 200, &tp)
		if tp.TotalMessages != n {
			return fmt.Errorf("%d of %d messages dispatched", tp.TotalMessages, n)
		}
		return nil
	})
}

func TestConsoleAPICluster(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.traffic()
	testutil.Eventually(t, 10*time.Second, func() error {
		var c console.Cluster
		e.get("/api/cluster", 200, &c)
		if len(c.Brokers) != 1 {
			return fmt.Errorf("brokers %+v", c.Brokers)
		}
		b := c.Brokers[0]
		if b.Cluster != "DefaultCluster" || b.BrokerName != "broker-a" || b.BrokerID != 0 || b.Role != "MASTER" ||
			b.Addr != e.b.BrokerAddr() || b.Version != "V4_9_8" || b.Error != "" {
			return fmt.Errorf("broker %+v", b)
		}
		if b.MsgPutTotalToday != 20 || b.DiskRatio <= 0 || b.DiskRatio > 1 {
			return fmt.Errorf("figures %+v", b)
		}
		if len(c.Namesrv) != 1 || c.Namesrv[0] != e.nsAddr {
			return fmt.Errorf("namesrv %v", c.Namesrv)
		}
		return nil
	})
}

func TestConsoleAPITopics(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.traffic()
	var list struct{ Topics []console.TopicItem }
	e.get("/api/topics", 200, &list)
	kinds := map[string]bool{}
	for _, it := range list.Topics {
		kinds[it.Name] = it.System
	}
	if sys, ok := kinds[e.topic]; !ok || sys {
		t.Fatalf("topic %s: listed %v system %v in %+v", e.topic, ok, sys, list.Topics)
	}
	for _, s := range []string{"TBW102", "broker-a", "DefaultCluster", "DefaultCluster_REPLY_TOPIC"} {
		if !kinds[s] {
			t.Errorf("%s not listed as a system topic", s)
		}
	}
	var tp console.Topic
	e.get("/api/topic?name="+e.topic, 200, &tp)
	if tp.Topic != e.topic || tp.TotalMessages != 20 || len(tp.Queues) != 4 || tp.StatsError != "" {
		t.Fatalf("topic %+v", tp)
	}
	for i, q := range tp.Queues {
		if q.BrokerName != "broker-a" || q.QueueID != int32(i) || q.MinOffset != 0 || q.MaxOffset != 5 || q.Messages != 5 {
			t.Errorf("queue %d: %+v", i, q)
		}
	}
	if len(tp.QueueDatas) != 1 || tp.QueueDatas[0].ReadQueueNums != 4 || tp.QueueDatas[0].WriteQueueNums != 4 || tp.QueueDatas[0].Perm != 6 {
		t.Errorf("route queues %+v", tp.QueueDatas)
	}
	if len(tp.Brokers) != 1 || tp.Brokers[0].Addrs[0] != e.b.BrokerAddr() {
		t.Errorf("route brokers %+v", tp.Brokers)
	}
	var bad map[string]string
	e.get("/api/topic?name=NoSuchTopic_"+e.topic, 404, &bad)
	if !strings.Contains(bad["error"], "NoSuchTopic_") {
		t.Errorf("unknown topic answer %v", bad)
	}
	e.get("/api/topic", 400, nil)
}

func TestConsoleAPIGroups(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	group, clientID, _ := e.traffic()
	var list struct{ Groups []console.GroupItem }
	e.get("/api/groups", 200, &list)
	var found *console.GroupItem
	for i, g := range list.Groups {
		if g.Name == group {
			found = &list.Groups[i]
		}
		if g.Name == "TOOLS_CONSUMER" && !g.System {
			t.Errorf("TOOLS_CONSUMER not a system group")
		}
	}
	if found == nil || found.System || found.TotalLag != 8 || found.Members != 1 || found.Error != "" {
		t.Fatalf("group %s: %+v in %+v", group, found, list.Groups)
	}
	var g console.Group
	e.get("/api/group?name="+group, 200, &g)
	if g.Group != group || g.TotalLag != 8 || len(g.Queues) != 4 || g.StatsError != "" {
		t.Fatalf("group %+v", g)
	}
	for i, q := range g.Queues {
		if q.Topic != e.topic || q.QueueID != int32(i) || q.BrokerOffset != 5 || q.ConsumerOffset != 3 || q.Lag != 2 {
			t.Errorf("queue %d: %+v", i, q)
		}
	}
	if len(g.Members) != 1 || g.Members[0].ClientID != clientID || g.ConsumeType != body.ConsumePassively || g.MessageModel != body.Clustering {
		t.Errorf("members %+v, %s %s", g.Members, g.ConsumeType, g.MessageModel)
	}
	if len(g.Subscriptions) != 1 || g.Subscriptions[0].Topic != e.topic || g.Subscriptions[0].Expression != "*" {
		t.Errorf("subscriptions %+v", g.Subscriptions)
	}
	// A group nobody consumed with: no lag, no members, no error.
	var none console.Group
	e.get("/api/group?name=NoSuchGroup", 200, &none)
	if none.TotalLag != 0 || len(none.Members) != 0 || len(none.Queues) != 0 {
		t.Errorf("unknown group %+v", none)
	}
}

func TestConsoleAPIMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, _, ids := e.traffic()
	check := func(path string) {
		t.Helper()
		var v struct{ Messages []console.Message }
		e.get(path, 200, &v)
		if len(v.Messages) != 1 {
			t.Fatalf("%s: %d messages %+v", path, len(v.Messages), v.Messages)
		}
		m := v.Messages[0]
		if m.Topic != e.topic || m.MsgID != ids[7] || m.UniqKey != uniqKey(7) || m.Keys != "key-7" || m.Tags != "TagA" ||
			m.QueueID != 3 || m.QueueOffset != 1 || m.Body != "body-7" || m.BodyEncoding != "text" || m.BodySize != 6 ||
			m.Properties[message.PropertyKeys] != "key-7" || m.StoreHost != e.b.BrokerAddr() {
			t.Fatalf("%s: %+v", path, m)
		}
	}
	testutil.Eventually(t, 10*time.Second, func() error { // the index is built by the reput
		var v struct{ Messages []console.Message }
		e.get("/api/message?topic="+e.topic+"&key=key-7", 200, &v)
		if len(v.Messages) != 1 {
			return fmt.Errorf("%d messages", len(v.Messages))
		}
		return nil
	})
	check("/api/message?topic=" + e.topic + "&key=key-7")
	check("/api/message?topic=" + e.topic + "&id=" + ids[7])
	check("/api/message?id=" + ids[7])
	check("/api/message?topic=" + e.topic + "&id=" + uniqKey(7))
	var v struct{ Messages []console.Message }
	e.get("/api/message?topic="+e.topic+"&key=nokey", 200, &v)
	if len(v.Messages) != 0 {
		t.Errorf("unknown key found %+v", v.Messages)
	}
	e.get("/api/message?topic="+e.topic+"&id="+uniqKey(99), 404, nil)
	e.get("/api/message?topic="+e.topic, 400, nil)
}

// An id naming a host the name server does not know is never dialled.
func TestConsoleAPIMessageUnknownHost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := message.OffsetMsgID(mustAddrPort(t, "10.255.255.1:10911"), 0)
	start := time.Now()
	e.get("/api/message?id="+id, 404, nil)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v: an unknown host was dialled", d)
	}
}

func TestConsoleAPISeries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	group, _, _ := e.traffic()
	testutil.Eventually(t, 10*time.Second, func() error {
		var s console.Series
		e.get("/api/series", 200, &s)
		if s.IntervalMs != 100 || len(s.Points) == 0 {
			return fmt.Errorf("series %+v", s)
		}
		p := s.Points[len(s.Points)-1]
		if p.GroupLag[group] != 8 || p.Lag != 8 || p.T <= 0 {
			return fmt.Errorf("last point %+v", p)
		}
		return nil
	})
}

func TestConsoleReadOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		for _, path := range []string{"/", "/api/cluster", "/api/topic?name=" + e.topic} {
			req, _ := http.NewRequestWithContext(t.Context(), m, e.base+path, strings.NewReader("{}"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: %d, want 405", m, path, resp.StatusCode)
			}
		}
	}
}

func TestConsoleStaticPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for path, want := range map[string]string{"/": "text/html", "/app.js": "text/javascript", "/app.css": "text/css"} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, e.base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), want) || len(raw) == 0 {
			t.Errorf("%s: %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		// Offline and self-contained: nothing is fetched from elsewhere.
		if s := string(raw); strings.Contains(s, "http://") || strings.Contains(s, "https://") || strings.Contains(s, "//cdn") {
			t.Errorf("%s refers to an external URL", path)
		}
	}
}

// Data that looks like markup stays data: the JSON escapes it, the page
// script never parses it as HTML (the rendering is checked in Chromium by
// integration/console_test.go).
func TestConsoleEscapesMarkup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const key, bodyText = `<script>alert(1)</script>`, `<img src=x onerror="alert(2)">&amp;`
	id := e.send(0, key, uniqKey(1), bodyText)
	var raw []byte
	testutil.Eventually(t, 10*time.Second, func() error {
		raw = e.get("/api/message?topic="+e.topic+"&id="+id, 200, nil)
		return nil
	})
	for _, s := range []string{"<script", "<img", "</"} {
		if strings.Contains(string(raw), s) {
			t.Errorf("answer carries %q unescaped: %s", s, raw)
		}
	}
	var v struct{ Messages []console.Message }
	if err := json.Unmarshal(raw, &v); err != nil || len(v.Messages) != 1 || v.Messages[0].Keys != key || v.Messages[0].Body != bodyText {
		t.Fatalf("round trip: %v %+v", err, v)
	}
	js := string(e.get("/app.js", 200, nil))
	for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("} {
		if strings.Contains(js, sink) {
			t.Errorf("app.js uses %s", sink)
		}
	}
}
