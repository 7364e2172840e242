package broker

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// TestBrokerStoredPropertiesJavaOrder checks the HashMap order against the
// plain records of the golden store written by a Java 4.9.8 broker: the
// client's properties (WAIT=true, no CLUSTER), arriving in another order,
// must come out exactly as Java stored them.
func TestBrokerStoredPropertiesJavaOrder(t *testing.T) {
	data, err := os.ReadFile("/work/shared/golden/store-clean/store/commitlog/00000000000000000000")
	if err != nil {
		t.Skip("golden store not available:", err)
	}
	checked := 0
	for off := 0; off < len(data) && checked < 16; {
		m, err := message.DecodeRecord(data[off:], false)
		if err != nil {
			break
		}
		off += int(m.StoreSize)
		if m.Topic != "StoreTopic" || m.ReconsumeTimes != 0 || strings.Contains(m.PropertiesString, "RETRY") {
			continue
		}
		stored := message.ParseHashMapProperties(m.PropertiesString)
		var client []string
		for _, k := range stored.Keys() {
			if k != message.PropertyCluster {
				client = append(client, k+string(message.NameValueSeparator)+stored.Value(k))
			}
		}
		client = append(client, "WAIT"+string(message.NameValueSeparator)+"true")
		// send the buckets in reverse order, each bucket's keys in their
		// stored relative order (the only order HashMap iteration keeps)
		c := message.HashMapCapacity(len(client), 16)
		slices.SortStableFunc(client, func(a, b string) int {
			ka, kb := strings.SplitN(a, string(message.NameValueSeparator), 2)[0], strings.SplitN(b, string(message.NameValueSeparator), 2)[0]
			return message.HashMapBucket(kb, c) - message.HashMapBucket(ka, c)
		})
		got := storedProperties(strings.Join(client, string(message.PropertySeparator)), "DefaultCluster")
		if got != m.PropertiesString {
			t.Fatalf("stored %q\njava   %q", got, m.PropertiesString)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no plain records checked")
	}
}

func TestBrokerStoredPropertiesEdgeCases(t *testing.T) {
	sep, nv := string(message.PropertySeparator), string(message.NameValueSeparator)
	// duplicates keep the first position and the last value; short and
	// malformed segments are dropped like Java's parser does
	in := "A" + nv + "1" + sep + "x" + sep + "=" + nv + sep + "A" + nv + "2" + sep + "CLUSTER" + nv + "old"
	got := message.UnmarshalProperties(storedProperties(in, "C1"))
	if len(got) != 2 || got["A"] != "2" || got["CLUSTER"] != "C1" {
		t.Fatalf("got %v", got)
	}
	if storedProperties("", "C") != "CLUSTER"+nv+"C" {
		t.Fatal("empty properties")
	}
}

// goldenRecord decodes the golden store's record at a CommitLog offset.
func goldenRecord(t *testing.T, offset int) *message.MessageExt {
	t.Helper()
	data, err := os.ReadFile("/work/shared/golden/store-clean/store/commitlog/00000000000000000000")
	if err != nil {
		t.Skip("golden store not available:", err)
	}
	m, err := message.DecodeRecord(data[offset:], true)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestBrokerHalfPropertiesJavaOrder: a prepared message as Java 4.9.8 stored
// it in RMQ_SYS_TRANS_HALF_TOPIC.
func TestBrokerHalfPropertiesJavaOrder(t *testing.T) {
	half := goldenRecord(t, 5079)
	p := message.ParseHashMapProperties(half.PropertiesString)
	realTopic, realQID := p.Value(message.PropertyRealTopic), p.Value(message.PropertyRealQueueID)
	for _, k := range []string{message.PropertyCluster, message.PropertyRealTopic, message.PropertyRealQueueID} {
		p.Remove(k)
	}
	client := rebuilt(p).String()
	qid, _ := strconv.Atoi(realQID)
	if got := halfProperties(client, "DefaultCluster", realTopic, int32(qid)); got != half.PropertiesString {
		t.Fatalf("half %q\njava %q", got, half.PropertiesString)
	}
}

// TestBrokerSendBackPropertiesJavaOrder: CONSUMER_SEND_MSG_BACK of the
// golden record at 732; Java's store then adds REAL_TOPIC/REAL_QID for the
// delay and renders the map again, giving the record at 6691.
func TestBrokerSendBackPropertiesJavaOrder(t *testing.T) {
	orig, want := goldenRecord(t, 732), goldenRecord(t, 6691)
	b := &Broker{}
	one := int32(16)
	m, resp := b.buildSendBack(&codec.RemotingCommand{Version: code.CurrentVersion},
		&header.ConsumerSendMsgBackRequestHeader{Group: "StoreConsumerGroup", MaxReconsumeTimes: &one},
		orig, "%RETRY%StoreConsumerGroup", 0, 16)
	if resp != nil {
		t.Fatalf("response %+v", resp)
	}
	if m.ReconsumeTimes != 1 || m.Topic != "%RETRY%StoreConsumerGroup" {
		t.Fatalf("message %+v", m)
	}
	p := rebuilt(message.ParseHashMapProperties(m.PropertiesString)) // the map Java renders here is the one built above
	p.Put(message.PropertyRealTopic, m.Topic)
	p.Put(message.PropertyRealQueueID, "0")
	if got := p.String(); got != want.PropertiesString {
		t.Fatalf("send-back %q\njava      %q", got, want.PropertiesString)
	}
}

// rebuilt is p as a HashMap that only ever held its present entries
// (inserted in p's order), which fixes a smaller table than p may have.
func rebuilt(p *message.HashMapProperties) *message.HashMapProperties {
	var out message.HashMapProperties
	for _, k := range p.Keys() {
		out.Put(k, p.Value(k))
	}
	return &out
}
