package header

import (
	"reflect"
	"testing"
)

func TestHeaderPullJavaCapture(t *testing.T) {
	java := map[string]string{"queueId": "1", "maxMsgNums": "32", "sysFlag": "2", "suspendTimeoutMillis": "15000",
		"commitOffset": "-1", "bname": "broker-a", "topic": "%RETRY%jcg1", "queueOffset": "0", "expressionType": "TAG",
		"subVersion": "1795966620641", "consumerGroup": "jcg1"}
	var h PullMessageRequestHeader
	if err := h.FromExtFields(java); err != nil {
		t.Fatal(err)
	}
	if h.QueueID != 1 || h.CommitOffset != -1 || h.SuspendTimeoutMillis != 15000 || h.SubVersion != 1795966620641 ||
		h.Subscription != "" || h.Bname != "broker-a" || h.MaxMsgBytes != nil {
		t.Fatalf("decoded %+v", h)
	}
	if got := h.ToExtFields(); !reflect.DeepEqual(got, java) {
		t.Fatalf("re-encoded %v", got)
	}
	delete(java, "subVersion")
	if err := h.FromExtFields(java); err == nil || err.Error() != "the custom field <subVersion> is null" {
		t.Fatalf("err = %v", err)
	}
}

func TestHeaderPullResponseAlwaysHasFour(t *testing.T) {
	got := (&PullMessageResponseHeader{NextBeginOffset: 32, MaxOffset: 32}).ToExtFields()
	want := map[string]string{"suggestWhichBrokerId": "0", "nextBeginOffset": "32", "minOffset": "0", "maxOffset": "32"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
}

func TestHeaderBooleanParsing(t *testing.T) {
	for in, want := range map[string]bool{"true": true, "TRUE": true, "True": true, "false": false, "yes": false, "1": false, "true ": false, "": false} {
		var h GetConsumeStatsInBrokerHeader
		if err := h.FromExtFields(map[string]string{"isOrder": in}); err != nil || h.IsOrder != want {
			t.Errorf("isOrder=%q -> %v, %v", in, h.IsOrder, err)
		}
	}
	if got := (&ResetOffsetRequestHeader{Topic: "t", Group: "g", Timestamp: -1, IsForce: true}).ToExtFields(); got["isForce"] != "true" || got["timestamp"] != "-1" {
		t.Fatalf("got %v", got)
	}
}
