package body

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestBodyGoldenHeartbeat decodes every Java HEART_BEAT body of the golden
// capture and re-encodes it byte for byte.
func TestBodyGoldenHeartbeat(t *testing.T) {
	bodies := goldenBodies(t, "HEART_BEAT", true)
	consumers := 0
	for file, b := range bodies {
		h, err := DecodeHeartbeatData(b)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if !strings.Contains(h.ClientID, "@") {
			t.Fatalf("%s: clientID %q", file, h.ClientID)
		}
		for _, c := range h.ConsumerDataSet {
			consumers++
			if c.ConsumeType == "" || c.MessageModel != Clustering || len(c.SubscriptionDataSet) == 0 {
				t.Fatalf("%s: consumer data %+v", file, c)
			}
			for _, s := range c.SubscriptionDataSet {
				if s.ExpressionType != "TAG" || s.SubVersion < 1e12 || s.SubVersion > 1e13 {
					t.Fatalf("%s: subscription %+v", file, s)
				}
			}
		}
		if got := h.Encode(); !bytes.Equal(got, b) {
			t.Fatalf("%s: re-encode differs\n got %s\nwant %s", file, got, b)
		}
	}
	if consumers == 0 {
		t.Fatal("no consumer heartbeat in the golden set")
	}
}

// TestBodyGoHeartbeat reads the Go client's shape: codeSet entries as
// strings, subVersion in nanoseconds, fields in its own order.
func TestBodyGoHeartbeat(t *testing.T) {
	in := `{"clientID":"192.0.2.2@30878","producerDataSet":[{"groupName":"pg1"}],"consumerDataSet":[{"groupName":"cg1","consumeType":"CONSUME_PASSIVELY",` +
		`"messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","subscriptionDataSet":[` +
		`{"classFilterMode":false,"topic":"%RETRY%cg1","subString":"*","tagsSet":[],"codeSet":[],"subVersion":1795966569048906773,"expressionType":"TAG"},` +
		`{"classFilterMode":false,"topic":"TopicTest","subString":"TagA || TagB","tagsSet":["TagA","TagB"],"codeSet":["2598919","2598920"],"subVersion":1795966569048119794,"expressionType":"TAG"}],` +
		`"unitMode":false}]}`
	h, err := DecodeHeartbeatData([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if h.ClientID != "192.0.2.2@30878" || len(h.ProducerDataSet) != 1 || h.ProducerDataSet[0].GroupName != "pg1" {
		t.Fatalf("heartbeat %+v", h)
	}
	c := h.ConsumerDataSet[0]
	if c.GroupName != "cg1" || c.ConsumeType != ConsumePassively || c.ConsumeFromWhere != ConsumeFromLastOffset {
		t.Fatalf("consumer %+v", c)
	}
	s := c.SubscriptionDataSet[1]
	want := SubscriptionData{Topic: "TopicTest", SubString: "TagA || TagB", TagsSet: []string{"TagA", "TagB"},
		CodeSet: []int32{2598919, 2598920}, SubVersion: 1795966569048119794, ExpressionType: "TAG"}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("subscription\n got %+v\nwant %+v", s, want)
	}
	if c.SubscriptionDataSet[0].SubVersion != 1795966569048906773 {
		t.Fatalf("nanosecond subVersion lost precision: %d", c.SubscriptionDataSet[0].SubVersion)
	}
	// A Java broker echoes it with numeric codes.
	wantJSON := `{"classFilterMode":false,"codeSet":[2598919,2598920],"expressionType":"TAG","subString":"TagA || TagB",` +
		`"subVersion":1795966569048119794,"tagsSet":["TagA","TagB"],"topic":"TopicTest"}`
	if got := string(s.Encode()); got != wantJSON {
		t.Fatalf("encode\n got %s\nwant %s", got, wantJSON)
	}
}

func TestBodyHeartbeatMalformed(t *testing.T) {
	for _, in := range []string{``, `{`, `[]`, `{"consumerDataSet":[{"subscriptionDataSet":[{"codeSet":["x"]}]}]}`,
		`{"consumerDataSet":[{"subscriptionDataSet":[{"subVersion":1.5}]}]}`, `{"consumerDataSet":[{"subscriptionDataSet":[{"codeSet":[{}]}]}]}`} {
		if _, err := DecodeHeartbeatData([]byte(in)); err == nil {
			t.Errorf("DecodeHeartbeatData(%q) succeeded", in)
		}
	}
	h, err := DecodeHeartbeatData([]byte(`{"clientID":"c","consumerDataSet":[{"groupName":"g","subscriptionDataSet":[{"topic":"t"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if h.ConsumerDataSet[0].SubscriptionDataSet[0].ExpressionType != "TAG" {
		t.Fatal("missing expressionType must default to TAG")
	}
}

// TestBodySubscriptionJavaSetOrder: sets are written in java.util.HashSet order.
func TestBodySubscriptionJavaSetOrder(t *testing.T) {
	s := SubscriptionData{Topic: "T", SubString: "x", TagsSet: []string{"TagB", "TagA"}, CodeSet: []int32{2598920, 2598919, 17}}
	tags, codes := s.JavaOrderedSets()
	if !reflect.DeepEqual(tags, []string{"TagA", "TagB"}) {
		t.Fatalf("tags order %v", tags)
	}
	bucket := func(c int32) uint32 { u := uint32(c); return (u ^ u>>16) & 15 }
	for i := 1; i < len(codes); i++ {
		if bucket(codes[i-1]) > bucket(codes[i]) {
			t.Fatalf("codes not in bucket order: %v", codes)
		}
	}
	if !reflect.DeepEqual(s.CodeSet, []int32{2598920, 2598919, 17}) {
		t.Fatal("JavaOrderedSets must not reorder the receiver")
	}
}

func TestBodyGoldenConsumerListByGroup(t *testing.T) {
	for file, b := range goldenBodies(t, "GET_CONSUMER_LIST_BY_GROUP", false) {
		g, err := DecodeGetConsumerListByGroupResponseBody(b)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(g.ConsumerIDList) == 0 {
			t.Fatalf("%s: empty list", file)
		}
		if got := g.Encode(); !bytes.Equal(got, b) {
			t.Fatalf("%s: re-encode differs\n got %s\nwant %s", file, got, b)
		}
	}
}

// TestBodyGoldenConsumerConnection re-encodes mqadmin consumerConnection
// answers, including the ConcurrentHashMap order of the subscription table.
func TestBodyGoldenConsumerConnection(t *testing.T) {
	for file, b := range goldenBodies(t, "GET_CONSUMER_CONNECTION_LIST", false) {
		c, err := DecodeConsumerConnection(b)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(c.ConnectionSet) != 1 || c.ConnectionSet[0].Language != "JAVA" || len(c.SubscriptionTable) != 2 {
			t.Fatalf("%s: %+v", file, c)
		}
		if got := c.Encode(); !bytes.Equal(got, b) {
			t.Fatalf("%s: re-encode differs\n got %s\nwant %s", file, got, b)
		}
	}
}

func TestBodyGoldenGroupList(t *testing.T) {
	for file, b := range goldenBodies(t, "QUERY_TOPIC_CONSUME_BY_WHO", false) {
		g, err := DecodeGroupList(b)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		// Shuffle the input order: Encode must restore Java's HashSet order.
		for i, j := 0, len(g.GroupList)-1; i < j; i, j = i+1, j-1 {
			g.GroupList[i], g.GroupList[j] = g.GroupList[j], g.GroupList[i]
		}
		if got := g.Encode(); !bytes.Equal(got, b) {
			t.Fatalf("%s: re-encode differs\n got %s\nwant %s", file, got, b)
		}
	}
}

func TestBodyLockBatch(t *testing.T) {
	in := `{"clientId":"192.0.2.2@1#2","consumerGroup":"cg1","mqSet":[{"brokerName":"broker-a","queueId":0,"topic":"TopicTest"}]}`
	l, err := DecodeLockBatchRequestBody([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := &LockBatchRequestBody{ConsumerGroup: "cg1", ClientID: "192.0.2.2@1#2",
		MqSet: []MessageQueue{{BrokerName: "broker-a", QueueID: 0, Topic: "TopicTest"}}}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("got %+v", l)
	}
	if got := string(l.Encode()); got != in {
		t.Fatalf("encode %s", got)
	}
	l5, err := DecodeLockBatchRequestBody([]byte(`{"clientId":"c","consumerGroup":"g","mqSet":[],"onlyThisBroker":true}`))
	if err != nil || !l5.OnlyThisBroker {
		t.Fatalf("5.x body: %+v %v", l5, err)
	}

	var mqs []MessageQueue
	for i := int32(7); i >= 0; i-- {
		mqs = append(mqs, MessageQueue{BrokerName: "broker-a", QueueID: i, Topic: "TopicTest"})
	}
	resp := &LockBatchResponseBody{LockOKMQSet: mqs, InitialCapacity: 8}
	enc := resp.Encode()
	back, err := DecodeLockBatchResponseBody(enc)
	if err != nil || len(back.LockOKMQSet) != 8 {
		t.Fatalf("round trip: %v %v", back, err)
	}
	n := JavaHashMapCapacity(8, 8)
	for i := 1; i < len(back.LockOKMQSet); i++ {
		if javaBucket(back.LockOKMQSet[i-1].HashCode(), n) > javaBucket(back.LockOKMQSet[i].HashCode(), n) {
			t.Fatalf("lockOKMQSet not in HashSet order: %s", enc)
		}
	}
	if !bytes.HasPrefix(enc, []byte(`{"lockOKMQSet":[{"brokerName":"broker-a","queueId":`)) {
		t.Fatalf("shape: %s", enc)
	}
	if got := string((&LockBatchResponseBody{}).Encode()); got != `{"lockOKMQSet":[]}` {
		t.Fatalf("empty response %s", got)
	}
}

func TestBodyProducerConnectionAndCheckClient(t *testing.T) {
	p := &ProducerConnection{ConnectionSet: []Connection{{ClientID: "c1", ClientAddr: "127.0.0.1:5", Language: "GO", Version: 317}}}
	want := `{"connectionSet":[{"clientAddr":"127.0.0.1:5","clientId":"c1","language":"GO","version":317}]}`
	if got := string(p.Encode()); got != want {
		t.Fatalf("producer connection %s", got)
	}
	back, err := DecodeProducerConnection([]byte(want))
	if err != nil || !reflect.DeepEqual(back, p) {
		t.Fatalf("decode %+v %v", back, err)
	}

	cc := `{"clientId":"c1","group":"g","subscriptionData":{"classFilterMode":false,"codeSet":[],"expressionType":"SQL92",` +
		`"subString":"a > 5","subVersion":1,"tagsSet":[],"topic":"T"}}`
	c, err := DecodeCheckClientRequestBody([]byte(cc))
	if err != nil || c.SubscriptionData == nil || c.SubscriptionData.ExpressionType != "SQL92" || c.SubscriptionData.SubString != "a > 5" {
		t.Fatalf("check client %+v %v", c, err)
	}
	if got := string(c.Encode()); got != cc {
		t.Fatalf("check client encode %s", got)
	}
}

func TestBodyResetOffsetForCAndTimeSpan(t *testing.T) {
	r := &ResetOffsetBodyForC{OffsetTable: []MessageQueueForC{{BrokerName: "b", Offset: 9, QueueID: 1, Topic: "t"}}}
	want := `{"offsetTable":[{"brokerName":"b","offset":9,"queueId":1,"topic":"t"}]}`
	if got := string(r.Encode()); got != want {
		t.Fatalf("reset for c %s", got)
	}
	back, err := DecodeResetOffsetBodyForC([]byte(want))
	if err != nil || !reflect.DeepEqual(back, r) {
		t.Fatalf("decode %+v %v", back, err)
	}

	q := &QueryConsumeTimeSpanBody{Location: time.UTC, ConsumeTimeSpanSet: []QueueTimeSpan{{
		MessageQueue: MessageQueue{BrokerName: "b", QueueID: 0, Topic: "t"},
		MinTimeStamp: 1700000000123, MaxTimeStamp: 1700000001000, ConsumeTimeStamp: 0, DelayTime: 877}}}
	wantQ := `{"consumeTimeSpanSet":[{"consumeTimeStamp":0,"consumeTimeStampStr":"1970-01-01#00:00:00:000","delayTime":877,` +
		`"maxTimeStamp":1700000001000,"maxTimeStampStr":"2023-11-14#22:13:21:000","messageQueue":{"brokerName":"b","queueId":0,"topic":"t"},` +
		`"minTimeStamp":1700000000123,"minTimeStampStr":"2023-11-14#22:13:20:123"}]}`
	if got := string(q.Encode()); got != wantQ {
		t.Fatalf("time span\n got %s\nwant %s", got, wantQ)
	}
	qb, err := DecodeQueryConsumeTimeSpanBody([]byte(wantQ))
	if err != nil || qb.ConsumeTimeSpanSet[0] != q.ConsumeTimeSpanSet[0] {
		t.Fatalf("time span decode %+v %v", qb, err)
	}
}

func TestBodyConsumerRunningInfoDecode(t *testing.T) {
	in := `{"jstack":"","mqTable":{{"brokerName":"broker-a","queueId":1,"topic":"TopicTest"}:{"cachedMsgCount":3,"commitOffset":42,"droped":false,"locked":true}},` +
		`"properties":{"consumeType":"CONSUME_PASSIVELY","PROP_CLIENT_VERSION":"V4_9_8","consumerGroup":"cg"},` +
		`"statusTable":{"TopicTest":{"consumeFailedMsgs":0,"consumeOKTPS":1.5,"consumeRT":2.0,"pullRT":0.5,"pullTPS":3.0,"consumeFailedTPS":0.0}},` +
		`"subscriptionSet":[{"classFilterMode":false,"codeSet":[],"expressionType":"TAG","subString":"*","subVersion":5,"tagsSet":[],"topic":"TopicTest"}]}`
	info, err := DecodeConsumerRunningInfo([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	mq := MessageQueue{BrokerName: "broker-a", QueueID: 1, Topic: "TopicTest"}
	if pq, ok := info.MqTable[mq]; !ok || pq.CommitOffset != 42 || !pq.Locked || pq.CachedMsgCount != 3 {
		t.Fatalf("mqTable %+v", info.MqTable)
	}
	if info.Properties["PROP_CLIENT_VERSION"] != "V4_9_8" || info.StatusTable["TopicTest"].ConsumeOKTPS != 1.5 {
		t.Fatalf("info %+v", info)
	}
	if len(info.SubscriptionSet) != 1 || info.SubscriptionSet[0].SubVersion != 5 {
		t.Fatalf("subscriptionSet %+v", info.SubscriptionSet)
	}
}

// FuzzBodyHeartbeatDecode: heartbeat bodies come from any client; decoding
// must never panic, and what decodes must re-encode and decode the same.
func FuzzBodyHeartbeatDecode(f *testing.F) {
	f.Add([]byte(`{"clientID":"c","consumerDataSet":[{"groupName":"g","subscriptionDataSet":[{"codeSet":["1",2],"subVersion":3,"topic":"t"}]}],"producerDataSet":[{"groupName":"p"}]}`))
	f.Add([]byte(`{"clientID":"c","consumerDataSet":[],"producerDataSet":[]}`))
	f.Add([]byte(`{0:1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := DecodeHeartbeatData(data)
		if err != nil {
			return
		}
		h2, err := DecodeHeartbeatData(h.Encode())
		if err != nil {
			t.Fatalf("re-decode of %s: %v", h.Encode(), err)
		}
		if !bytes.Equal(h.Encode(), h2.Encode()) {
			t.Fatalf("unstable encoding: %s vs %s", h.Encode(), h2.Encode())
		}
	})
}
