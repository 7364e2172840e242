package client

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
)

func newTestConsumerManager(t *testing.T) (*ConsumerManager, *recorder, *fakeClock) {
	rec := &recorder{}
	clk := newFakeClock()
	return NewConsumerManager(rec, Options{Logger: zaptest.NewLogger(t), Now: clk.Now}), rec, clk
}

func eventKinds(evs []recorded) []ConsumerGroupEvent {
	var out []ConsumerGroupEvent
	for _, e := range evs {
		out = append(out, e.event)
	}
	return out
}

func TestConsumerManagerRegister(t *testing.T) {
	cm, rec, clk := newTestConsumerManager(t)
	c1, c2 := newFakeChannel(), newFakeChannel()
	subs := []body.SubscriptionData{sub("TopicTest", "*", 1), sub("%RETRY%cg", "*", 1)}

	if !cm.RegisterConsumer("cg", info(c1, "client-1", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromFirstOffset, subs, true) {
		t.Fatal("first registration must report a change")
	}
	evs := rec.take()
	if !reflect.DeepEqual(eventKinds(evs), []ConsumerGroupEvent{EventChange, EventRegister}) ||
		!reflect.DeepEqual(evs[0].channels, []Channel{c1}) || len(evs[1].subs) != 2 {
		t.Fatalf("events %+v", evs)
	}
	if cm.RegisterConsumer("cg", info(c1, "client-1", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromFirstOffset, subs, true) {
		t.Fatal("an identical heartbeat is no change")
	}
	if got := eventKinds(rec.take()); !reflect.DeepEqual(got, []ConsumerGroupEvent{EventRegister}) {
		t.Fatalf("events %v", got)
	}
	cm.RegisterConsumer("cg", info(c2, "client-2", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromFirstOffset, subs, true)
	if evs := rec.take(); evs[0].event != EventChange || !reflect.DeepEqual(evs[0].channels, []Channel{c1, c2}) {
		t.Fatalf("second consumer events %+v", evs)
	}
	g := cm.GetConsumerGroupInfo("cg")
	if !reflect.DeepEqual(g.AllClientIDs(), []string{"client-1", "client-2"}) {
		t.Fatalf("client ids %v", g.AllClientIDs())
	}
	if g.ConsumeType() != body.ConsumePassively || g.MessageModel() != body.Clustering || g.ConsumeFromWhere() != body.ConsumeFromFirstOffset {
		t.Fatal("group attributes")
	}
	if f := cm.FindChannel("cg", "client-2"); f == nil || f.Channel != c2 || f.Language != code.Java || f.Version != 409 {
		t.Fatalf("FindChannel %+v", f)
	}
	if cm.FindChannel("cg", "nobody") != nil || cm.FindChannel("other", "client-1") != nil {
		t.Fatal("FindChannel of unknown client")
	}
}

// TestConsumerManagerSubscriptionChanges follows 4.9.8: adding or removing a
// topic is a change, a newer subVersion silently replaces the entry.
func TestConsumerManagerSubscriptionChanges(t *testing.T) {
	cm, rec, clk := newTestConsumerManager(t)
	c1 := newFakeChannel()
	reg := func(subs ...body.SubscriptionData) bool {
		return cm.RegisterConsumer("cg", info(c1, "client-1", clk), body.ConsumeActively, body.Clustering, body.ConsumeFromLastOffset, subs, false)
	}
	reg(sub("A", "*", 1))
	if reg(sub("A", "TagA", 2)) {
		t.Fatal("a newer subVersion is not a change")
	}
	if got := cm.FindSubscriptionData("cg", "A"); got == nil || got.SubString != "TagA" || got.SubVersion != 2 {
		t.Fatalf("subscription not replaced: %+v", got)
	}
	if reg(sub("A", "TagB", 1)) || cm.FindSubscriptionData("cg", "A").SubString != "TagA" {
		t.Fatal("an older subVersion must be ignored")
	}
	if !reg(sub("A", "TagA", 2), sub("B", "*", 1)) {
		t.Fatal("a new topic is a change")
	}
	if !reg(sub("B", "*", 1)) || cm.FindSubscriptionData("cg", "A") != nil {
		t.Fatal("a removed topic is a change")
	}
	if cm.FindSubscriptionDataCount("cg") != 1 || cm.FindSubscriptionDataCount("nope") != 0 {
		t.Fatal("FindSubscriptionDataCount")
	}
	for _, e := range rec.take() {
		if e.event == EventChange {
			t.Fatal("notify=false must not report CHANGE")
		}
	}
}

// TestConsumerManagerChannelClose: a closed connection (the Go client never
// sends UNREGISTER_CLIENT) leaves every group and the others are notified.
func TestConsumerManagerChannelClose(t *testing.T) {
	cm, rec, clk := newTestConsumerManager(t)
	c1, c2 := newFakeChannel(), newFakeChannel()
	subs := []body.SubscriptionData{sub("TopicTest", "*", 1)}
	cm.RegisterConsumer("g1", info(c1, "client-1", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
	cm.RegisterConsumer("g1", info(c2, "client-2", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
	cm.RegisterConsumer("g2", info(c1, "client-1", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
	rec.take()

	cm.DoChannelCloseEvent(c1.RemoteAddr(), c1)
	evs := rec.take()
	byGroup := map[string][]ConsumerGroupEvent{}
	for _, e := range evs {
		byGroup[e.group] = append(byGroup[e.group], e.event)
		if e.group == "g1" && e.event == EventChange && !reflect.DeepEqual(e.channels, []Channel{c2}) {
			t.Fatalf("g1 CHANGE channels %v", e.channels)
		}
	}
	if !reflect.DeepEqual(byGroup["g1"], []ConsumerGroupEvent{EventChange}) ||
		!reflect.DeepEqual(byGroup["g2"], []ConsumerGroupEvent{EventUnregister, EventChange}) {
		t.Fatalf("events %v", byGroup)
	}
	if cm.GetConsumerGroupInfo("g2") != nil || cm.FindChannel("g1", "client-1") != nil {
		t.Fatal("closed channel still registered")
	}
	if got := cm.QueryTopicConsumeByWho("TopicTest"); !reflect.DeepEqual(got, []string{"g1"}) {
		t.Fatalf("QueryTopicConsumeByWho %v", got)
	}
	cm.DoChannelCloseEvent("x", newFakeChannel())
	if len(rec.take()) != 0 {
		t.Fatal("an unknown channel produces no events")
	}
}

// TestConsumerManagerNotifyListener wires the default listener: the
// remaining consumer receives NOTIFY_CONSUMER_IDS_CHANGED (oneway).
func TestConsumerManagerNotifyListener(t *testing.T) {
	enabled := true
	filters := &fakeFilters{}
	l := &DefaultConsumerIdsChangeListener{NotifyEnabled: func() bool { return enabled }, Filters: filters, Logger: zaptest.NewLogger(t)}
	clk := newFakeClock()
	cm := NewConsumerManager(l, Options{Logger: zaptest.NewLogger(t), Now: clk.Now})
	c1, c2 := newFakeChannel(), newFakeChannel()
	subs := []body.SubscriptionData{{Topic: "T", SubString: "a > 1", ExpressionType: "SQL92", SubVersion: 1}}
	cm.RegisterConsumer("cg", info(c1, "client-1", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
	cm.RegisterConsumer("cg", info(c2, "client-2", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
	cm.DoChannelCloseEvent(c2.RemoteAddr(), c2)

	sent := c1.sentCommands()
	if len(sent) != 3 { // c1 joins, c2 joins, c2 leaves
		t.Fatalf("c1 got %d notifications", len(sent))
	}
	for _, req := range sent {
		if req.Code != code.NotifyConsumerIdsChanged || !req.IsOneway() || req.Ext("consumerGroup") != "cg" {
			t.Fatalf("notification %+v", req)
		}
	}
	if len(filters.registered) != 2 || filters.registered[0] != "cg" {
		t.Fatalf("filter registrations %v", filters.registered)
	}
	enabled = false
	cm.DoChannelCloseEvent(c1.RemoteAddr(), c1)
	if len(c1.sentCommands()) != 3 || !slices.Equal(filters.unregistered, []string{"cg"}) {
		t.Fatalf("disabled notify / unregister: %d %v", len(c1.sentCommands()), filters.unregistered)
	}
}

type fakeFilters struct{ registered, unregistered []string }

func (f *fakeFilters) Register(group string, _ []body.SubscriptionData) {
	f.registered = append(f.registered, group)
}
func (f *fakeFilters) Unregister(group string) { f.unregistered = append(f.unregistered, group) }

func TestConsumerManagerUnregister(t *testing.T) {
	cm, rec, clk := newTestConsumerManager(t)
	c1, c2 := newFakeChannel(), newFakeChannel()
	subs := []body.SubscriptionData{sub("T", "*", 1)}
	i1 := info(c1, "client-1", clk)
	cm.RegisterConsumer("cg", i1, body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
	cm.RegisterConsumer("cg", info(c2, "client-2", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
	rec.take()
	cm.UnregisterConsumer("cg", i1, true)
	if evs := rec.take(); len(evs) != 1 || evs[0].event != EventChange || !reflect.DeepEqual(evs[0].channels, []Channel{c2}) {
		t.Fatalf("events %+v", evs)
	}
	cm.UnregisterConsumer("cg", info(c2, "client-2", clk), false)
	if got := eventKinds(rec.take()); !reflect.DeepEqual(got, []ConsumerGroupEvent{EventUnregister}) {
		t.Fatalf("events %v", got)
	}
	if cm.GetConsumerGroupInfo("cg") != nil || len(cm.Groups()) != 0 {
		t.Fatal("group must be gone")
	}
	cm.UnregisterConsumer("cg", i1, true) // unknown group: nothing
	if len(rec.take()) != 0 {
		t.Fatal("unknown group produced events")
	}
}

// TestConsumerManagerExpiry: channels silent for more than 120 s are dropped
// and closed; a heartbeat in time keeps them.
func TestConsumerManagerExpiry(t *testing.T) {
	cm, rec, clk := newTestConsumerManager(t)
	c1, c2 := newFakeChannel(), newFakeChannel()
	subs := []body.SubscriptionData{sub("T", "*", 1)}
	cm.RegisterConsumer("cg", info(c1, "client-1", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
	cm.RegisterConsumer("cg", info(c2, "client-2", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
	rec.take()

	clk.Advance(60 * time.Second)
	cm.RegisterConsumer("cg", info(c2, "client-2", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
	clk.Advance(60 * time.Second)
	cm.ScanNotActiveChannel()
	if len(cm.GetConsumerGroupInfo("cg").AllChannels()) != 2 || c1.IsClosed() {
		t.Fatal("exactly 120 s is not expired")
	}
	clk.Advance(time.Millisecond)
	cm.ScanNotActiveChannel()
	g := cm.GetConsumerGroupInfo("cg")
	if !reflect.DeepEqual(g.AllChannels(), []Channel{c2}) || !c1.IsClosed() || c2.IsClosed() {
		t.Fatalf("after expiry: %v closed=%v", g.AllChannels(), c1.IsClosed())
	}
	clk.Advance(61 * time.Second)
	cm.ScanNotActiveChannel()
	if cm.GetConsumerGroupInfo("cg") != nil || !c2.IsClosed() {
		t.Fatal("group must go with its last channel")
	}
	for _, e := range rec.take() {
		if e.event != EventRegister {
			t.Fatalf("expiry reported %v (4.9.8 reports nothing)", e.event)
		}
	}
}

// TestConsumerManagerClientIDChange: a channel re-registering with another
// client id replaces the entry without counting as a change.
func TestConsumerManagerClientIDChange(t *testing.T) {
	cm, _, clk := newTestConsumerManager(t)
	c1 := newFakeChannel()
	subs := []body.SubscriptionData{sub("T", "*", 1)}
	cm.RegisterConsumer("cg", info(c1, "old", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true)
	if cm.RegisterConsumer("cg", info(c1, "new", clk), body.ConsumePassively, body.Clustering, body.ConsumeFromLastOffset, subs, true) {
		t.Fatal("client id change is not reported as a change")
	}
	if got := cm.GetConsumerGroupInfo("cg").AllClientIDs(); !reflect.DeepEqual(got, []string{"new"}) {
		t.Fatalf("client ids %v", got)
	}
}
