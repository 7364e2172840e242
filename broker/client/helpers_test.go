package client

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// fakeChannel records what the managers do to a connection.
type fakeChannel struct {
	id     uint64
	addr   string // remote address; empty: derived from id
	closed atomic.Bool
	mu     sync.Mutex
	sent   []*codec.RemotingCommand
}

var fakeIDs atomic.Uint64

func newFakeChannel() *fakeChannel { return &fakeChannel{id: fakeIDs.Add(1)} }

func (f *fakeChannel) ID() uint64 { return f.id }
func (f *fakeChannel) RemoteAddr() string {
	if f.addr != "" {
		return f.addr
	}
	return fmt.Sprintf("127.0.0.1:%d", 40000+f.id)
}
func (f *fakeChannel) IsClosed() bool { return f.closed.Load() }
func (f *fakeChannel) Close() error   { f.closed.Store(true); return nil }
func (f *fakeChannel) InvokeOneway(req *codec.RemotingCommand) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, req)
	return nil
}

func (f *fakeChannel) sentCommands() []*codec.RemotingCommand {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*codec.RemotingCommand(nil), f.sent...)
}

// fakeClock is a manually advanced clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.UnixMilli(1_700_000_000_000)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// recorder collects listener events.
type recorder struct {
	mu     sync.Mutex
	events []recorded
}

type recorded struct {
	event    ConsumerGroupEvent
	group    string
	channels []Channel
	subs     []body.SubscriptionData
}

func (r *recorder) Handle(e ConsumerGroupEvent, group string, chans []Channel, subs []body.SubscriptionData) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, recorded{e, group, chans, subs})
}

func (r *recorder) take() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

func sub(topic, expr string, version int64) body.SubscriptionData {
	return body.SubscriptionData{Topic: topic, SubString: expr, SubVersion: version, ExpressionType: "TAG"}
}

func info(ch Channel, clientID string, clk *fakeClock) *ClientChannelInfo {
	return NewClientChannelInfo(ch, clientID, code.Java, 409, clk.Now())
}
