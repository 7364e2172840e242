package admin

import (
	"net/netip"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/body"
)

func TestAdminDecodeOffsetMsgID(t *testing.T) {
	id := message.OffsetMsgID(netip.MustParseAddrPort("10.1.2.3:10911"), 123456)
	addr, off, ok := decodeOffsetMsgID(id)
	if !ok || addr != "10.1.2.3:10911" || off != 123456 {
		t.Fatalf("offsetMsgId %s: %q %d %v", id, addr, off, ok)
	}
	// A client id (UNIQ_KEY) has the pid and class-loader hash where an
	// offsetMsgId has its port: not a port, so not an address to dial.
	for _, id := range []string{"C0000202796B0000000003F1BC300001", "7F0000010000B5530000000000000000zz", "", "XYZ"} {
		if addr, _, ok := decodeOffsetMsgID(id); ok {
			t.Errorf("%q decoded to %s", id, addr)
		}
	}
}

func TestAdminSelectBrokerAddr(t *testing.T) {
	for _, c := range []struct {
		addrs map[int64]string
		want  string
	}{
		{map[int64]string{0: "m:1", 1: "s:1"}, "m:1"},
		{map[int64]string{2: "s:2", 1: "s:1"}, "s:1"},
		{map[int64]string{}, ""},
	} {
		if got := SelectBrokerAddr(&body.BrokerData{BrokerAddrs: c.addrs}); got != c.want {
			t.Errorf("%v: %q, want %q", c.addrs, got, c.want)
		}
	}
}

func TestAdminSystemNames(t *testing.T) {
	for _, s := range []string{"TBW102", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRACE_TOPIC", "%RETRY%g", "%DLQ%g", "OFFSET_MOVED_EVENT"} {
		if !IsSystemTopic(s) {
			t.Errorf("%s not a system topic", s)
		}
	}
	for _, s := range []string{"TopicTest", "orders"} {
		if IsSystemTopic(s) {
			t.Errorf("%s is a system topic", s)
		}
	}
	for _, g := range []string{"TOOLS_CONSUMER", "CID_ONSAPI_OWNER", "CID_RMQ_SYS_TRANS", "SELF_TEST_C_GROUP"} {
		if !IsSystemGroup(g) {
			t.Errorf("%s not a system group", g)
		}
	}
	if IsSystemGroup("please_rename_unique_group_name") {
		t.Error("a user group is a system group")
	}
}

func TestAdminCarriesKey(t *testing.T) {
	m := &message.MessageExt{Message: message.Message{Properties: map[string]string{
		message.PropertyKeys: "a bb c", message.PropertyUniqClientMessageIDKeyidx: "U1"}}}
	for _, c := range []struct {
		key  string
		uniq bool
		want bool
	}{{"bb", false, true}, {"b", false, false}, {"a bb", false, false}, {"U1", true, true}, {"bb", true, false}} {
		if got := carriesKey(m, c.key, c.uniq); got != c.want {
			t.Errorf("carriesKey(%q, %v) = %v", c.key, c.uniq, got)
		}
	}
}
