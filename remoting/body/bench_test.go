package body

import (
	"strconv"
	"testing"
)

// javaHeartbeat is a Java push consumer's HEART_BEAT body (enum names,
// every field), the common case on the heartbeat pool.
const javaHeartbeat = `{"clientID":"192.0.2.2@4242#1796136443227","consumerDataSet":[{"consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET",` +
	`"consumeType":"CONSUME_PASSIVELY","groupName":"cg","messageModel":"CLUSTERING","subscriptionDataSet":[{"classFilterMode":false,` +
	`"codeSet":[2598919,2598920],"expressionType":"TAG","subString":"TagA || TagB","subVersion":1795966620638,` +
	`"tagsSet":["TagA","TagB"],"topic":"TopicTest"},{"classFilterMode":false,"codeSet":[],"expressionType":"TAG",` +
	`"subString":"*","subVersion":1795966620638,"tagsSet":[],"topic":"%RETRY%cg"}],"unitMode":false}],` +
	`"producerDataSet":[{"groupName":"CLIENT_INNER_PRODUCER"}]}`

func benchDecode(b *testing.B, data []byte, decode func([]byte) error) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if err := decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBodyHeartbeatDecodeJava(b *testing.B) {
	benchDecode(b, []byte(javaHeartbeat), func(d []byte) error { _, err := DecodeHeartbeatData(d); return err })
}

func BenchmarkBodyHeartbeatDecodeCpp(b *testing.B) {
	benchDecode(b, []byte(cppHeartbeat), func(d []byte) error { _, err := DecodeHeartbeatData(d); return err })
}

// BenchmarkBodyRegisterBrokerDecode reads a 1,000-topic REGISTER_BROKER
// body, the name server's largest routine decode.
func BenchmarkBodyRegisterBrokerDecode(b *testing.B) {
	r := RegisterBrokerBody{FilterServerList: []string{}}
	r.TopicConfigSerializeWrapper.TopicConfigTable = map[string]TopicConfig{}
	r.TopicConfigSerializeWrapper.DataVersion = DataVersion{Counter: 7, Timestamp: 1796136443227}
	for i := 0; i < 1000; i++ {
		name := "Topic" + strconv.Itoa(i)
		r.TopicConfigSerializeWrapper.TopicConfigTable[name] = NewTopicConfig(name)
	}
	data, err := r.Encode(false)
	if err != nil {
		b.Fatal(err)
	}
	benchDecode(b, data, func(d []byte) error { _, err := DecodeRegisterBrokerBody(d, false); return err })
}
