package proxy

import (
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func strp(s string) *string { return &s }

func TestProxyAssignReceiptHandles(t *testing.T) {
	msgs := []*message.MessageExt{
		{Message: message.Message{Topic: "T"}, QueueID: 1, QueueOffset: 5, CommitLogOffset: 100},
		{Message: message.Message{Topic: "T"}, QueueID: 1, QueueOffset: 6, CommitLogOffset: 200},
		{Message: message.Message{Topic: "%RETRY%G+T"}, QueueID: 0, QueueOffset: 2, CommitLogOffset: 300},
		// A retry message the broker re-encoded keeps the POP_CK it carries.
		{Message: message.Message{Topic: "T", Properties: map[string]string{"POP_CK": "9 1000 60000 0 1 b 0 3"}},
			QueueID: 0, QueueOffset: 3, CommitLogOffset: 400},
	}
	h := &header.PopMessageResponseHeader{PopTime: 1000, InvisibleTime: 60000, ReviveQid: 4,
		StartOffsetInfo: strp("0 1 5;2 0 2"), MsgOffsetInfo: strp("0 1 5,6;2 0 2"),
		OrderCountInfo: strp("0 1 0;0 qo1%6 2")}
	assignReceiptHandles(msgs, h, "T", "b", true)
	want := []string{
		"5 1000 60000 4 0 b 1 5 100",
		"5 1000 60000 4 0 b 1 6 200",
		"2 1000 60000 4 2 b 0 2 300",
		"9 1000 60000 0 1 b 0 3 400",
	}
	for i, m := range msgs {
		if got := m.Properties["POP_CK"]; got != want[i] {
			t.Errorf("msg %d: POP_CK %q, want %q", i, got, want[i])
		}
		if m.Topic != "T" {
			t.Errorf("msg %d: topic %q", i, m.Topic)
		}
		if _, err := ParseReceiptHandle(m.Properties["POP_CK"]); err != nil {
			t.Errorf("msg %d: handle does not parse: %v", i, err)
		}
	}
	if msgs[1].ReconsumeTimes != 2 || msgs[0].ReconsumeTimes != 0 {
		t.Errorf("order counts: %d %d, want 0 2", msgs[0].ReconsumeTimes, msgs[1].ReconsumeTimes)
	}
}

func TestProxyAssignReceiptHandlesWithoutOffsetInfo(t *testing.T) {
	msgs := []*message.MessageExt{
		{Message: message.Message{Topic: "T"}, QueueID: 2, QueueOffset: 7, CommitLogOffset: 1},
		{Message: message.Message{Topic: "T"}, QueueID: 2, QueueOffset: 8, CommitLogOffset: 2},
	}
	assignReceiptHandles(msgs, &header.PopMessageResponseHeader{PopTime: 5, InvisibleTime: 6, ReviveQid: 1}, "T", "b", false)
	if got := msgs[1].Properties["POP_CK"]; got != "7 5 6 1 0 b 2 8 2" {
		t.Fatalf("POP_CK %q", got)
	}
}
