package trace

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
)

func TestTraceViewsAndTable(t *testing.T) {
	body := rec("Pub", "1700000000123", "DefaultRegion", "PID-test", "topic-test", "M1", "Tags", "Keys", "127.0.0.1:10911", "26", "245", "0", "OFF", "true") +
		rec("Pub", "1700000000124", "DefaultRegion", "PID-test", "topic-test", "OTHER", "", "", "127.0.0.1:10911", "1", "1", "0", "OFF2", "true") +
		rec("SubBefore", "1700000000200", "", "b", "req-1", "M1", "0", "Keys") +
		rec("SubAfter", "req-1", "M1", "7", "true", "Keys", "0", "1700000000207", "b") +
		rec("SubAfter", "req-2", "M1", "9", "false", "Keys", "1", "1700000001000", "a") +
		rec("SubAfter", "req-3", "M1", "3", "true", "Keys", "0", "1700000002000", "b")
	m := &message.MessageExt{Message: message.Message{Topic: DefaultTopic, Body: []byte(body)},
		BornHost: netip.MustParseAddrPort("10.1.2.3:50000")}
	views, err := ViewsOf("M1", m)
	if err != nil {
		t.Fatal(err)
	}
	if len(views) != 5 || views[0].Type != Pub || views[0].ClientHost != "10.1.2.3" || views[0].Status() != "success" ||
		views[0].OffsetMsgID != "OFF" || views[0].StoreHost != "127.0.0.1:10911" || views[1].Type != SubBefore {
		t.Fatalf("views %+v", views)
	}
	var out bytes.Buffer
	Print(&out, views, time.FixedZone("CST", 8*3600))
	// Groups come in java.util.HashMap order: "a" (bucket 1) before "b"
	// (bucket 2) although "b" was seen first; SubBefore is not printed.
	want := "" +
		"#Type      #ProducerGroup       #ClientHost          #SendTime            #CostTimes #Status   \n" +
		"Pub        PID-test             10.1.2.3             2023-11-15 06:13:20  245ms      success   \n" +
		"\n" +
		"#Type      #ConsumerGroup       #ClientHost          #ConsumerTime        #CostTimes #Status   \n" +
		"Sub        a                    10.1.2.3             2023-11-15 06:13:21  9ms        failed    \n" +
		"\n" +
		"#Type      #ConsumerGroup       #ClientHost          #ConsumerTime        #CostTimes #Status   \n" +
		"Sub        b                    10.1.2.3             2023-11-15 06:13:20  7ms        success   \n" +
		"Sub        b                    10.1.2.3             2023-11-15 06:13:22  3ms        success   \n" +
		"\n"
	if out.String() != want {
		t.Fatalf("table:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestTraceJavaHashOrder(t *testing.T) {
	// String.hashCode of "b" is 98 (bucket 2 of 16), of "a" 97 (bucket 1).
	keys := []string{"b", "a"}
	if got := javaHashOrder(keys); got[0] != "a" || got[1] != "b" {
		t.Fatalf("order %q", got)
	}
	if keys[0] != "b" {
		t.Fatal("input reordered")
	}
}
