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
