package body

import (
	"bytes"
	"testing"
)

func TestBodyGoldenSubscriptionGroupWrapper(t *testing.T) {
	checkRoundTrip(t, goldenBodies(t, "GET_ALL_SUBSCRIPTIONGROUP_CONFIG", false),
		func() roundTripper { return &SubscriptionGroupWrapper{} })
}

func TestBodySubscriptionGroupDefaults(t *testing.T) {
	var w SubscriptionGroupWrapper
	if err := w.Decode([]byte(`{"subscriptionGroupTable":{"g":{"groupName":"g","retryMaxTimes":3}}}`)); err != nil {
		t.Fatal(err)
	}
	want := NewSubscriptionGroupConfig("g")
	want.RetryMaxTimes = 3
	if got := w.SubscriptionGroupTable["g"]; got != want {
		t.Fatalf("absent fields must keep Java defaults: got %+v", got)
	}
	out := w.Encode()
	if !bytes.Contains(out, []byte(`"g":{"brokerId":0,"consumeBroadcastEnable":true,"consumeEnable":true,"consumeFromMinEnable":true,"groupName":"g","notifyConsumerIdsChangedEnable":true,"retryMaxTimes":3,"retryQueueNums":1,"whichBrokerWhenConsumeSlowly":1}`)) {
		t.Fatalf("encoded %s", out)
	}
}

// TestBodySubscriptionGroupConsumeMessageOrderly: 5.x's FIFO flag survives a
// decode/encode (mqadmin updateSubGroup -o true) and stays absent when false.
func TestBodySubscriptionGroupConsumeMessageOrderly(t *testing.T) {
	var w SubscriptionGroupWrapper
	if err := w.Decode([]byte(`{"subscriptionGroupTable":{"g":{"groupName":"g","consumeMessageOrderly":true}}}`)); err != nil {
		t.Fatal(err)
	}
	if !w.SubscriptionGroupTable["g"].ConsumeMessageOrderly {
		t.Fatal("consumeMessageOrderly lost on decode")
	}
	if out := w.Encode(); !bytes.Contains(out, []byte(`"consumeFromMinEnable":true,"consumeMessageOrderly":true,"groupName":"g"`)) {
		t.Fatalf("encoded %s", out)
	}
}
