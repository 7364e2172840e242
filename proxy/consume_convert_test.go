package proxy

import (
	"bytes"
	"compress/zlib"
	"net/netip"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

func TestProxyToV2MessageSystemProperties(t *testing.T) {
	m := &message.MessageExt{
		Message: message.Message{Topic: "T", Body: []byte("hello"), Properties: map[string]string{
			"TAGS": "TagA", "KEYS": "k1 k2", "UNIQ_KEY": "7F0000010001000000000000000A", "__SHARDINGKEY": "g1",
			"POP_CK": "1 2 3 4 0 b 0 9 77", "TIMER_DELIVER_MS": "1700000001000", "color": "red",
			"TRACE_CONTEXT": "tc", "DLQ_ORIGIN_TOPIC": "OT", "DLQ_ORIGIN_MESSAGE_ID": "OID",
		}},
		QueueID: 3, QueueOffset: 9, BornTimestamp: 1700000000000, StoreTimestamp: 1700000000500,
		BornHost:  netip.MustParseAddrPort("10.0.0.1:5555"),
		StoreHost: netip.MustParseAddrPort("10.0.0.2:10911"), ReconsumeTimes: 2, CommitLogOffset: 77,
	}
	v := toV2Message(m, 1700000000000)
	sp := v.GetSystemProperties()
	checks := []struct {
		name      string
		got, want any
	}{
		{"topic", v.GetTopic().GetName(), "T"},
		{"body", string(v.GetBody()), "hello"},
		{"tag", sp.GetTag(), "TagA"},
		{"keys", len(sp.GetKeys()), 2},
		{"messageId", sp.GetMessageId(), "7F0000010001000000000000000A"},
		{"digest", sp.GetBodyDigest().GetChecksum(), "5D41402ABC4B2A76B9719D911017C592"},
		{"digestType", sp.GetBodyDigest().GetType(), apiv2.DigestType_MD5},
		{"encoding", sp.GetBodyEncoding(), apiv2.Encoding_IDENTITY},
		{"type", sp.GetMessageType(), apiv2.MessageType_DELAY},
		{"born", sp.GetBornTimestamp().AsTime().UnixMilli(), int64(1700000000000)},
		{"bornHost", sp.GetBornHost(), "10.0.0.1"},
		{"store", sp.GetStoreTimestamp().AsTime().UnixMilli(), int64(1700000000500)},
		{"storeHost", sp.GetStoreHost(), "10.0.0.2:10911"},
		{"delivery", sp.GetDeliveryTimestamp().AsTime().UnixMilli(), int64(1700000001000)},
		{"group", sp.GetMessageGroup(), "g1"},
		{"handle", sp.GetReceiptHandle(), "1 2 3 4 0 b 0 9 77"},
		{"queueId", sp.GetQueueId(), int32(3)},
		{"queueOffset", sp.GetQueueOffset(), int64(9)},
		{"attempt", sp.GetDeliveryAttempt(), int32(3)},
		{"trace", sp.GetTraceContext(), "tc"},
		{"dlq", sp.GetDeadLetterQueue().GetTopic() + "/" + sp.GetDeadLetterQueue().GetMessageId(), "OT/OID"},
		{"user color", v.GetUserProperties()["color"], "red"},
		{"user shardingkey (5.x shows it)", v.GetUserProperties()["__SHARDINGKEY"], "g1"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for _, k := range []string{"TAGS", "KEYS", "UNIQ_KEY", "POP_CK", "TIMER_DELIVER_MS"} {
		if _, ok := v.GetUserProperties()[k]; ok {
			t.Errorf("system property %s leaked into user properties", k)
		}
	}
}

func TestProxyToV2MessageTypesAndFallbacks(t *testing.T) {
	for _, c := range []struct {
		props map[string]string
		want  apiv2.MessageType
	}{
		{map[string]string{"TRAN_MSG": "true", "__SHARDINGKEY": "g"}, apiv2.MessageType_TRANSACTION},
		{map[string]string{"DELAY": "3"}, apiv2.MessageType_DELAY},
		{map[string]string{"TIMER_DELAY_SEC": "5"}, apiv2.MessageType_DELAY},
		{map[string]string{"__SHARDINGKEY": "g"}, apiv2.MessageType_FIFO},
		{map[string]string{}, apiv2.MessageType_NORMAL},
	} {
		if got := messageTypeOf(c.props); got != c.want {
			t.Errorf("%v: %v, want %v", c.props, got, c.want)
		}
	}
	// No UNIQ_KEY: the offset message id; TIMER_DELAY_SEC: now + delay.
	m := &message.MessageExt{Message: message.Message{Topic: "T", Properties: map[string]string{"TIMER_DELAY_SEC": "5"}},
		StoreHost: netip.MustParseAddrPort("127.0.0.1:10911"), CommitLogOffset: 4096}
	sp := toV2Message(m, 1000).GetSystemProperties()
	if want := message.OffsetMsgID(m.StoreHost, 4096); sp.GetMessageId() != want {
		t.Errorf("message id %q, want %q", sp.GetMessageId(), want)
	}
	if got := sp.GetDeliveryTimestamp().AsTime().UnixMilli(); got != 6000 {
		t.Errorf("delivery %d, want 6000", got)
	}
	if sp.Tag != nil || sp.MessageGroup != nil || sp.ReceiptHandle != nil {
		t.Errorf("absent properties set: %v", sp)
	}
}

func TestProxyToV2MessageInflatesCompressedBody(t *testing.T) {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write([]byte("payload"))
	w.Close()
	m := &message.MessageExt{Message: message.Message{Topic: "T", Body: buf.Bytes(), Properties: map[string]string{}},
		SysFlag: message.SysFlagCompressed}
	v := toV2Message(m, 0)
	if string(v.GetBody()) != "payload" || v.GetSystemProperties().GetBodyEncoding() != apiv2.Encoding_IDENTITY {
		t.Fatalf("body %q encoding %v", v.GetBody(), v.GetSystemProperties().GetBodyEncoding())
	}
}

func TestProxyFilterExpressionOf(t *testing.T) {
	for _, c := range []struct {
		fe             *apiv2.FilterExpression
		wantT, wantExp string
	}{
		{nil, "TAG", "*"},
		{&apiv2.FilterExpression{Type: apiv2.FilterType_TAG, Expression: "a||b"}, "TAG", "a||b"},
		{&apiv2.FilterExpression{Type: apiv2.FilterType_FILTER_TYPE_UNSPECIFIED}, "TAG", "*"},
		{&apiv2.FilterExpression{Type: apiv2.FilterType_SQL, Expression: "a > 1"}, "SQL92", "a > 1"},
	} {
		ty, e := filterExpressionOf(c.fe)
		if ty != c.wantT || e != c.wantExp {
			t.Errorf("%v: (%q,%q), want (%q,%q)", c.fe, ty, e, c.wantT, c.wantExp)
		}
	}
}
