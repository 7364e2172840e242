package broker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/timer"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// sendTimerHalf sends a prepared message carrying timer properties.
func sendTimerHalf(t *testing.T, cc *cmClient, topic, uniq string, props map[string]string) txHalf {
	t.Helper()
	all := map[string]string{message.PropertyTransactionPrepared: "true", message.PropertyProducerGroup: txGroup,
		message.PropertyUniqClientMessageIDKeyidx: uniq}
	for k, v := range props {
		all[k] = v
	}
	h := sendHeader(topic, 1, all)
	h.ProducerGroup = txGroup
	h.SysFlag = message.SysFlagTransPrepared
	resp := cc.call(sendRequest(code.SendMessageV2, h, []byte(uniq)))
	wantCode(t, resp, code.Success)
	var rh header.SendMessageResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		t.Fatal(err)
	}
	_, off, err := message.DecodeOffsetMsgID(rh.MsgID)
	if err != nil {
		t.Fatal(err)
	}
	return txHalf{commitLogOffset: off, queueOffset: rh.QueueOffset, uniq: uniq}
}

// TestBrokerEndTransactionTimer: a committed transactional message with
// timer properties waits for its time (5.x runs its put hook on the
// commit), and a malformed one is refused at commit with 5.x's answer.
func TestBrokerEndTransactionTimer(t *testing.T) {
	b := testutil.StartBroker(t, "")
	cc := newCMClient(t, b.Addr().String(), "producer")
	h := sendTimerHalf(t, cc, "TopicTxTimer", "UNIQ-T", map[string]string{timer.PropertyDelaySec: "2"})
	if n := b.Store().MaxOffsetInQueue(timer.Topic, 0); n != 0 {
		t.Fatalf("prepared message went to the timer queue (%d)", n)
	}
	committed := time.Now()
	wantCode(t, cc.call(endTxRequest(h, message.SysFlagTransCommit, false)), code.Success)
	readBack(t, b, timer.Topic, 0, 0)
	if n := b.Store().MaxOffsetInQueue("TopicTxTimer", 1); n != 0 {
		t.Fatal("committed timer message delivered at once")
	}
	m := readBack(t, b, "TopicTxTimer", 1, 0)
	if d := time.Since(committed); d < time.Second {
		t.Errorf("delivered %v after commit, want about 2 s (rounded down to 1 s)", d)
	}
	if string(m.Body) != "UNIQ-T" || message.PropertyValue(m.PropertiesString, timer.PropertyOutMs) == "" {
		t.Errorf("delivered %q properties %q", m.Body, m.PropertiesString)
	}

	bad := sendTimerHalf(t, cc, "TopicTxTimer", "UNIQ-B", map[string]string{timer.PropertyDeliverMs: "x"})
	resp := cc.call(endTxRequest(bad, message.SysFlagTransCommit, false))
	wantCode(t, resp, code.MessageIllegal)
	if !strings.HasPrefix(resp.Remark, "timer message illegal, the delay time should not be bigger than the max delay 259200000ms") {
		t.Errorf("remark %q", resp.Remark)
	}
}
