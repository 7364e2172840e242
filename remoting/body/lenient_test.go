package body

import (
	"errors"
	"reflect"
	"testing"
)

// cppHeartbeat is the HEART_BEAT body of rocketmq-client-cpp (master
// 7c8b7f8) as recorded against Apache 4.9.8: enum ordinals, subVersion as a
// string, no expressionType/tagsSet/codeSet/unitMode, no producerDataSet,
// and a trailing newline. Apache registered the consumer.
const cppHeartbeat = `{"clientID":"127.0.0.1@14202#rmqcpp-14202","consumerDataSet":[{"consumeFromWhere":4,"consumeType":1,` +
	`"groupName":"cpp_consumer_group","messageModel":1,"subscriptionDataSet":[{"subString":"*",` +
	`"subVersion":"1796136456649","topic":"%RETRY%cpp_consumer_group"},{"subString":"*",` +
	`"subVersion":"1796136456649","topic":"CppTopic"}]}]}` + "\n"

// nodeHeartbeat is ali-ons 3.12.0's: Java key order differs, subVersion a
// number, no expressionType.
const nodeHeartbeat = `{"clientID":"192.0.2.2@rmqnode-23529","consumerDataSet":[{"groupName":"node_consumer_group",` +
	`"consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET",` +
	`"subscriptionDataSet":[{"topic":"NodeTopic","subString":"*","classFilterMode":false,"tagsSet":[],"codeSet":[],` +
	`"subVersion":1796136118797}],"unitMode":false}],"producerDataSet":[{"groupName":"CLIENT_INNER_PRODUCER"}]}`

func TestBodyHeartbeatCppClient(t *testing.T) {
	h, err := DecodeHeartbeatData([]byte(cppHeartbeat))
	if err != nil {
		t.Fatal(err)
	}
	want := &HeartbeatData{ClientID: "127.0.0.1@14202#rmqcpp-14202", ConsumerDataSet: []ConsumerData{{
		GroupName: "cpp_consumer_group", ConsumeType: ConsumePassively, MessageModel: Clustering,
		ConsumeFromWhere: ConsumeFromFirstOffset,
		SubscriptionDataSet: []SubscriptionData{
			{Topic: "%RETRY%cpp_consumer_group", SubString: "*", SubVersion: 1796136456649, ExpressionType: "TAG"},
			{Topic: "CppTopic", SubString: "*", SubVersion: 1796136456649, ExpressionType: "TAG"},
		},
	}}}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("decoded\n got %+v\nwant %+v", h, want)
	}
	pull := `{"clientID":"c","consumerDataSet":[{"consumeFromWhere":0,"consumeType":0,"groupName":"g","messageModel":0,` +
		`"subscriptionDataSet":[]}]}` + "\n"
	h, err = DecodeHeartbeatData([]byte(pull))
	if err != nil {
		t.Fatal(err)
	}
	if c := h.ConsumerDataSet[0]; c.ConsumeType != ConsumeActively || c.MessageModel != Broadcasting ||
		c.ConsumeFromWhere != ConsumeFromLastOffset {
		t.Fatalf("ordinal 0: %+v", c)
	}
	prod := `{"clientID":"p","producerDataSet":[{"groupName":"cpp_batch_producer_group"}]}` + "\n"
	h, err = DecodeHeartbeatData([]byte(prod))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.ConsumerDataSet) != 0 || len(h.ProducerDataSet) != 1 || h.ProducerDataSet[0].GroupName != "cpp_batch_producer_group" {
		t.Fatalf("producer heartbeat %+v", h)
	}
}

func TestBodyHeartbeatNodeClient(t *testing.T) {
	h, err := DecodeHeartbeatData([]byte(nodeHeartbeat))
	if err != nil {
		t.Fatal(err)
	}
	c := h.ConsumerDataSet[0]
	if c.ConsumeType != ConsumePassively || c.MessageModel != Clustering || c.ConsumeFromWhere != ConsumeFromFirstOffset {
		t.Fatalf("consumer %+v", c)
	}
	s := c.SubscriptionDataSet[0]
	if s.SubVersion != 1796136118797 || s.ExpressionType != "TAG" || s.Topic != "NodeTopic" || len(s.TagsSet) != 0 {
		t.Fatalf("subscription %+v", s)
	}
	if h.ProducerDataSet[0].GroupName != "CLIENT_INNER_PRODUCER" {
		t.Fatalf("producers %+v", h.ProducerDataSet)
	}
}

// TestBodyHeartbeatFastjsonConversions covers the conversions fastjson makes
// that no recorded client needed yet but a hand-written one may.
func TestBodyHeartbeatFastjsonConversions(t *testing.T) {
	in := `{ "clientID" : 42, "unknownTop": {"x":[1,2]}, "consumerDataSet" : [ { "groupName":"g",` +
		` "consumeType":"consume_passively", "messageModel":"Clustering", "consumeFromWhere":"CONSUME_FROM_TIMESTAMP",` +
		` "unitMode":"true", "subscriptionDataSet":[{"topic":"t","subString":"a||b","tagsSet":["a",7],` +
		` "codeSet":["97","98"],"subVersion":"1,796,136,456,649","classFilterMode":1,"expressionType":"TAG","extra":null}]}],` +
		` "heartbeatFingerprint":"7", "withoutSub":"Y" }` + "\r\n"
	h, err := DecodeHeartbeatData([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := &HeartbeatData{ClientID: "42", HeartbeatFingerprint: 7, WithoutSub: true, ConsumerDataSet: []ConsumerData{{
		GroupName: "g", ConsumeType: ConsumePassively, MessageModel: Clustering, ConsumeFromWhere: ConsumeFromTimestamp,
		UnitMode: true, SubscriptionDataSet: []SubscriptionData{{ClassFilterMode: true, Topic: "t", SubString: "a||b",
			TagsSet: []string{"a", "7"}, CodeSet: []int32{97, 98}, SubVersion: 1796136456649, ExpressionType: "TAG"}},
	}}}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("decoded\n got %+v\nwant %+v", h, want)
	}
	// An unknown enum name is Java's null; null and "" are null too.
	h, err = DecodeHeartbeatData([]byte(`{"consumerDataSet":[{"consumeType":"PUSH","messageModel":null,"consumeFromWhere":""}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := h.ConsumerDataSet[0]; c.ConsumeType != "" || c.MessageModel != "" || c.ConsumeFromWhere != "" {
		t.Fatalf("unknown enum names: %+v", c)
	}
}

func TestBodyHeartbeatBadEnum(t *testing.T) {
	for _, in := range []string{
		`{"consumerDataSet":[{"consumeFromWhere":6}]}`, // out of range, as fastjson
		`{"consumerDataSet":[{"consumeType":-1}]}`,
		`{"consumerDataSet":[{"messageModel":true}]}`,
		`{"consumerDataSet":[{"unitMode":"maybe"}]}`,
		`{"consumerDataSet":[{"subscriptionDataSet":[{"subVersion":"12x"}]}]}`,
		`{"consumerDataSet":[{"subscriptionDataSet":[{"codeSet":[99999999999]}]}]}`,
	} {
		if _, err := DecodeHeartbeatData([]byte(in)); err == nil {
			t.Errorf("DecodeHeartbeatData(%s) succeeded", in)
		}
	}
}

func TestBodyLockBatchCppClient(t *testing.T) {
	in := `{"clientId":"127.0.0.1@14454#rmqcpp-14454","consumerGroup":"cpp_orderly_consumer_group","mqSet":[` +
		`{"brokerName":"broker-a","queueId":1,"topic":"CppOrderTopic"},{"brokerName":"broker-a","queueId":"2",` +
		`"topic":"CppOrderTopic"}]}` + "\n"
	l, err := DecodeLockBatchRequestBody([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := &LockBatchRequestBody{ClientID: "127.0.0.1@14454#rmqcpp-14454", ConsumerGroup: "cpp_orderly_consumer_group",
		MqSet: []MessageQueue{{BrokerName: "broker-a", QueueID: 1, Topic: "CppOrderTopic"},
			{BrokerName: "broker-a", QueueID: 2, Topic: "CppOrderTopic"}}}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("decoded\n got %+v\nwant %+v", l, want)
	}
	l, err = DecodeLockBatchRequestBody([]byte(`{"clientId":"c","consumerGroup":"g","mqSet":[],"onlyThisBroker":"true"}`))
	if err != nil || !l.OnlyThisBroker {
		t.Fatalf("onlyThisBroker as a string: %+v, %v", l, err)
	}
}

// lenientBoth decodes in through UnmarshalJSON (encoding/json) and through
// the decoder registered with json-iterator, and fails when they disagree.
func lenientBoth[T any, P interface {
	*T
	UnmarshalJSON([]byte) error
}](t *testing.T, in string) (T, error) {
	t.Helper()
	var a T
	errA := P(&a).UnmarshalJSON([]byte(in))
	var b struct {
		V T `json:"v"`
	}
	errB := jsonAPI.Unmarshal([]byte(`{"v":`+in+`}`), &b)
	if (errA == nil) != (errB == nil) || errA == nil && !reflect.DeepEqual(a, b.V) {
		t.Errorf("%T(%s): UnmarshalJSON %v, %v; json-iterator %v, %v", a, in, a, errA, b.V, errB)
	}
	return a, errA
}

func TestBodyLenientScalars(t *testing.T) {
	ints := map[string]int64{`5`: 5, `"5"`: 5, `"-5"`: -5, `"+5"`: 5, `"1,024"`: 1024, `"3.00"`: 3, `""`: 0,
		`null`: 0, `"null"`: 0, `true`: 1, `false`: 0, `2.0`: 2, `1e3`: 1000}
	for in, want := range ints {
		if n, err := lenientBoth[lint64](t, in); err != nil || int64(n) != want {
			t.Errorf("lint64(%s) = %d, %v; want %d", in, n, err, want)
		}
	}
	for _, in := range []string{`1.5`, `"1.5"`, `"x"`, `{}`, `[]`, `"9223372036854775808"`, `1e300`} {
		if n, err := lenientBoth[lint64](t, in); !errors.Is(err, errLenient) {
			t.Errorf("lint64(%s) = %d, %v; want an error", in, n, err)
		}
	}
	if n, err := lenientBoth[lint32](t, `"2147483648"`); err == nil {
		t.Errorf("lint32 overflow accepted: %d", n)
	}
	bools := map[string]bool{`true`: true, `false`: false, `"TRUE"`: true, `"False"`: false, `"1"`: true, `"0"`: false,
		`1`: true, `0`: false, `2`: false, `1.5`: true, `0.9`: false, `"y"`: true, `"T"`: true, `"N"`: false, `"f"`: false,
		`null`: false, `""`: false}
	for in, want := range bools {
		if b, err := lenientBoth[lbool](t, in); err != nil || bool(b) != want {
			t.Errorf("lbool(%s) = %v, %v; want %v", in, b, err, want)
		}
	}
	for _, in := range []string{`"n"`, `"t"`, `"yes"`, `[]`} { // fastjson: "N" and "T" are case-sensitive
		if b, err := lenientBoth[lbool](t, in); !errors.Is(err, errLenient) {
			t.Errorf("lbool(%s) = %v, %v; want an error", in, b, err)
		}
	}
	strsIn := map[string]string{`"a\"b"`: `a"b`, `12`: "12", `-1.5`: "-1.5", `true`: "true", `null`: "", `{"k":1}`: `{"k":1}`}
	for in, want := range strsIn {
		if s, err := lenientBoth[lstr](t, in); err != nil || string(s) != want {
			t.Errorf("lstr(%s) = %q, %v; want %q", in, s, err, want)
		}
	}
	enums := map[string]string{`4`: ConsumeFromFirstOffset, `"consume_from_timestamp"`: ConsumeFromTimestamp, `"X"`: "",
		`null`: ""}
	for in, want := range enums {
		if e, err := lenientBoth[lenum[consumeFromWhereEnum]](t, in); err != nil || string(e) != want {
			t.Errorf("consumeFromWhere(%s) = %q, %v; want %q", in, e, err, want)
		}
	}
	for _, in := range []string{`6`, `-1`, `true`, `4.0`, `{}`} {
		if e, err := lenientBoth[lenum[consumeFromWhereEnum]](t, in); !errors.Is(err, errLenient) {
			t.Errorf("consumeFromWhere(%s) = %q, %v; want an error", in, e, err)
		}
	}
}

// TestBodyServerBodiesLenient: bodies from brokers and admin tools that are
// not canonical fastjson (numbers and booleans as strings, enum ordinals)
// are read as fastjson reads them.
func TestBodyServerBodiesLenient(t *testing.T) {
	dv, err := DecodeDataVersion([]byte(`{"counter":"2","timestamp":"1796136443227"}` + "\n"))
	if err != nil || *dv != (DataVersion{Counter: 2, Timestamp: 1796136443227}) {
		t.Fatalf("data version %+v, %v", dv, err)
	}
	reg := `{"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":1,"timestamp":"5"},` +
		`"topicConfigTable":{"T":{"order":"false","perm":"6","readQueueNums":4,"topicFilterType":1,"topicName":"T",` +
		`"topicSysFlag":0,"writeQueueNums":"4"}}}}`
	rb, err := DecodeRegisterBrokerBody([]byte(reg), false)
	if err != nil {
		t.Fatal(err)
	}
	want := TopicConfig{TopicName: "T", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: "MULTI_TAG"}
	if got := rb.TopicConfigSerializeWrapper.TopicConfigTable["T"]; got != want ||
		rb.TopicConfigSerializeWrapper.DataVersion != (DataVersion{Counter: 1, Timestamp: 5}) {
		t.Fatalf("register body %+v", rb)
	}
	if _, err := DecodeRegisterBrokerBody([]byte(`{"topicConfigSerializeWrapper":{"topicConfigTable":{"T":{"perm":"rw"}}}}`), false); err == nil {
		t.Fatal("a perm that is no number must still fail")
	}
	var w SubscriptionGroupWrapper
	if err := w.Decode([]byte(`{"subscriptionGroupTable":{"g":{"groupName":"g","retryMaxTimes":"3","consumeEnable":"false"}}}`)); err != nil {
		t.Fatal(err)
	}
	wantGroup := NewSubscriptionGroupConfig("g")
	wantGroup.RetryMaxTimes, wantGroup.ConsumeEnable = 3, false
	if got := w.SubscriptionGroupTable["g"]; got != wantGroup {
		t.Fatalf("subscription group %+v, want %+v", got, wantGroup)
	}
}

// FuzzBodyClientBodies feeds the bodies clients send (HEART_BEAT,
// LOCK_BATCH_MQ, CHECK_CLIENT_CONFIG) to their decoders: no input may make
// them panic, and a heartbeat that decodes re-encodes to one that decodes
// to the same value.
func FuzzBodyClientBodies(f *testing.F) {
	for _, s := range []string{cppHeartbeat, nodeHeartbeat, javaHeartbeat,
		`{"clientId":"c","consumerGroup":"g","mqSet":[{"brokerName":"b","queueId":"1","topic":"t"}]}`,
		`{"consumerDataSet":[{"consumeFromWhere":"4","messageModel":1.0,"unitMode":"Y"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = DecodeLockBatchRequestBody(data)
		_, _ = DecodeCheckClientRequestBody(data)
		h, err := DecodeHeartbeatData(data)
		if err != nil {
			return
		}
		again, err := DecodeHeartbeatData(h.Encode())
		if err != nil {
			t.Fatalf("re-encoded heartbeat does not decode: %v\n%s", err, h.Encode())
		}
		if !reflect.DeepEqual(normHeartbeat(h), normHeartbeat(again)) {
			t.Fatalf("round trip changed the heartbeat\n got %+v\nwant %+v", again, h)
		}
	})
}

// normHeartbeat clears what Encode does not carry (the 5.x V2 fields) and
// maps nil and empty lists to one form.
func normHeartbeat(h *HeartbeatData) HeartbeatData {
	n := HeartbeatData{ClientID: h.ClientID, ProducerDataSet: append([]ProducerData{}, h.ProducerDataSet...)}
	for _, c := range h.ConsumerDataSet {
		c.SubscriptionDataSet = append([]SubscriptionData{}, c.SubscriptionDataSet...)
		for i := range c.SubscriptionDataSet {
			s := &c.SubscriptionDataSet[i]
			s.TagsSet = append([]string{}, s.TagsSet...)
			s.CodeSet = append([]int32{}, s.CodeSet...)
		}
		n.ConsumerDataSet = append(n.ConsumerDataSet, c)
	}
	return n
}
