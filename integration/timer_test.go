package integration

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/rocketmq-go/rmq/broker"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/timer"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// arrivals records when each body reached the consumer.
type arrivals struct {
	mu   sync.Mutex
	at   map[string]time.Time
	msgs map[string]*primitive.MessageExt
	n    map[string]int
}

func newArrivals() *arrivals {
	return &arrivals{at: map[string]time.Time{}, msgs: map[string]*primitive.MessageExt{}, n: map[string]int{}}
}

func (a *arrivals) handler(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range msgs {
		b := string(m.Body)
		if a.n[b] == 0 {
			a.at[b], a.msgs[b] = now, m
		}
		a.n[b]++
	}
	return consumer.ConsumeSuccess, nil
}

func (a *arrivals) wait(t *testing.T, body string, within time.Duration) (time.Time, *primitive.MessageExt) {
	t.Helper()
	testutil.Eventually(t, within, func() error {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.n[body] == 0 {
			return errNotYet(body)
		}
		return nil
	})
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.at[body], a.msgs[body]
}

type errNotYet string

func (e errNotYet) Error() string { return string(e) + " not received yet" }

func (e *consumeEnv) sendTimer(body string, props map[string]string) (*primitive.SendResult, error) {
	m := primitive.NewMessage(e.topic, []byte(body))
	for k, v := range props {
		m.WithProperty(k, v)
	}
	m.Queue = &primitive.MessageQueue{Topic: e.topic, BrokerName: e.b.Config().BrokerName, QueueId: 1}
	ctx, cancel := context.WithTimeout(e.t.Context(), wait.Scale(10*time.Second))
	defer cancel()
	return e.p.SendSync(ctx, m)
}

// TestTimerDeliveredWithinOneSecond: with the official Go client, messages
// sent with TIMER_DELIVER_MS = now+1 s and TIMER_DELAY_SEC = 10 reach the
// consumer of their topic and queue within 1 s of their time (5.x rounds
// the time down to timerPrecisionMs, so up to 1 s early), once, with the
// producer's message id; a TIMER_DELIVER_MS in the past is delivered at
// once, as 5.x stores it as a normal message.
func TestTimerDeliveredWithinOneSecond(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	a := newArrivals()
	e.startPush(pushOpts{group: uniqueName("cg"), handler: a.handler}, nil)
	if _, err := e.sendTimer("warmup", nil); err != nil {
		t.Fatal(err)
	}
	a.wait(t, "warmup", 30*time.Second) // the consumer is pulling queue 1

	sent := time.UnixMilli(time.Now().UnixMilli()) // whole ms, as TIMER_DELIVER_MS carries it
	targets := map[string]time.Time{"t1": sent.Add(time.Second), "t10": sent.Add(10 * time.Second), "past": sent}
	ids := map[string]string{}
	for body, props := range map[string]map[string]string{
		"t1":   {timer.PropertyDeliverMs: strconv.FormatInt(targets["t1"].UnixMilli(), 10)},
		"t10":  {timer.PropertyDelaySec: "10"},
		"past": {timer.PropertyDeliverMs: strconv.FormatInt(sent.Add(-5*time.Second).UnixMilli(), 10)},
	} {
		r, err := e.sendTimer(body, props)
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send %s: %v %v", body, r, err)
		}
		ids[body] = r.MsgID
	}
	late := wait.Scale(time.Second)
	for _, body := range []string{"past", "t1", "t10"} {
		at, m := a.wait(t, body, 20*time.Second)
		d := at.Sub(targets[body])
		if d < -time.Second || d > late {
			t.Errorf("%s received %v from its time, want within [-1s, %v]", body, d, late)
		}
		t.Logf("%s received %v from its time", body, d)
		if m.Topic != e.topic || m.Queue.QueueId != 1 || m.MsgId != ids[body] {
			t.Errorf("%s delivered as %s/%d id %s, want %s/1 id %s", body, m.Topic, m.Queue.QueueId, m.MsgId, e.topic, ids[body])
		}
		if body != "past" && (m.GetProperty(timer.PropertyOutMs) == "" || m.GetProperty("REAL_TOPIC") != "") {
			t.Errorf("%s properties %v: want TIMER_OUT_MS, no REAL_TOPIC", body, m.GetProperties())
		}
	}
	if b := e.b.Store().MaxOffsetInQueue(timer.Topic, 0); b != 2 {
		t.Errorf("timer queue holds %d messages, want 2 (the past one is stored as is)", b)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for b, n := range a.n {
		if n != 1 {
			t.Errorf("%s received %d times", b, n)
		}
	}
}

// TestTimerSendRejected: 5.x's answers to timer messages it cannot take.
func TestTimerSendRejected(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	illegal := "CODE: 13, DESC: timer message illegal, the delay time should not be bigger than the max delay 259200000ms;"
	for name, props := range map[string]map[string]string{
		"malformed":   {timer.PropertyDeliverMs: "tomorrow"},
		"too far":     {timer.PropertyDelaySec: strconv.Itoa(3*24*3600 + 60)},
		"malformed s": {timer.PropertyDelaySec: "1s"},
	} {
		_, err := e.sendTimer(name, props)
		if err == nil || !strings.HasPrefix(err.Error(), illegal) {
			t.Errorf("%s: err %v, want %q...", name, err, illegal)
		}
	}
	off := newConsumeEnv(t, func(_ *broker.BrokerConfig, s *store.MessageStoreConfig) { s.TimerWheelEnable = false })
	_, err := off.sendTimer("off", map[string]string{timer.PropertyDelaySec: "5"})
	if want := "CODE: 1, DESC: accurate timer message is not enabled, timerWheelEnable is false"; err == nil || err.Error() != want {
		t.Errorf("timer disabled: err %v, want %q", err, want)
	}
}

// TestTimerAcrossBrokerRestart: a timer message that falls due while the
// broker is down is delivered right after it starts again, once.
func TestTimerAcrossBrokerRestart(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	cfg, scfg := e.b.Config().Clone(), e.b.StoreConfig()
	r, err := e.sendTimer("restart", map[string]string{timer.PropertyDelaySec: "4"})
	if err != nil || r.Status != primitive.SendOK {
		t.Fatalf("send: %v %v", r, err)
	}
	due := time.Now().Add(4 * time.Second) // TIMER_OUT_MS is 3 to 4 s from now
	testutil.Eventually(t, 5*time.Second, func() error {
		if e.b.Store().MaxOffsetInQueue(timer.Topic, 0) != 1 {
			return errNotYet("timer unit")
		}
		return nil
	})
	if e.b.Store().MaxOffsetInQueue(e.topic, 1) != 0 {
		t.Fatal("delivered before its time")
	}
	ctx, cancel := context.WithTimeout(t.Context(), wait.Scale(10*time.Second))
	if err := e.b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	time.Sleep(time.Until(due.Add(500 * time.Millisecond))) // down while it falls due

	started := time.Now()
	e.b = testutil.StartBrokerWith(t, cfg, scfg)
	testutil.Eventually(t, 5*time.Second, func() error {
		if e.b.Store().MaxOffsetInQueue(e.topic, 1) != 1 {
			return errNotYet("delivery")
		}
		return nil
	})
	if d := time.Since(started); d > wait.Scale(2*time.Second) {
		t.Errorf("delivered %v after start, want promptly", d)
	}
	e.b.RegisterBrokerAll(false)
	a := newArrivals()
	e.startPush(pushOpts{group: uniqueName("cg"), handler: a.handler}, nil)
	_, m := a.wait(t, "restart", 30*time.Second)
	if m.MsgId != r.MsgID || m.Queue.QueueId != 1 {
		t.Errorf("delivered id %s queue %d, want %s queue 1", m.MsgId, m.Queue.QueueId, r.MsgID)
	}
	if n := e.b.Store().MaxOffsetInQueue(e.topic, 1); n != 1 {
		t.Errorf("real queue holds %d messages after restart, want 1", n)
	}
}

// TestTimerSlaveSyncsCheckpoint: the slave does not deliver timer messages
// (it only replicates the master's delivered copy) and keeps the master's
// timer checkpoint, fetched with GET_TIMER_CHECK_POINT, in its own
// timercheck, as 5.x's SlaveSynchronize does.
func TestTimerSlaveSyncsCheckpoint(t *testing.T) {
	t.Parallel()
	e := newHAEnv(t, store.AsyncMaster)
	if e.slave.TimerService() != nil || e.master.TimerService() == nil {
		t.Fatal("timer service must run on the master only")
	}
	m := e.msg(1, 64)
	m.WithProperty(timer.PropertyDelayMs, "1000")
	ctx, cancel := context.WithTimeout(t.Context(), wait.Scale(10*time.Second))
	r, err := e.p.SendSync(ctx, m)
	cancel()
	if err != nil || r.Status != primitive.SendOK {
		t.Fatalf("send: %v %v", r, err)
	}
	want := timer.Checkpoint{IngestOffset: 1, MinPending: 1, SettledAt: math.MaxInt64, SettledQo: math.MaxInt64}
	testutil.Eventually(t, 10*time.Second, func() error {
		if got := e.master.TimerService().Checkpoint(); got != want {
			return fmt.Errorf("master checkpoint %+v, want %+v", got, want)
		}
		return nil
	})
	haWaitReplicated(t, e.master.Store(), e.slave.Store(), e.topic)
	e.slave.SyncAll(t.Context())
	got, err := timer.LoadCheckpoint(filepath.Join(e.sstore.StorePathRootDir, "timercheck"))
	if err != nil || got != want {
		t.Fatalf("slave timercheck %+v (%v), want %+v", got, err, want)
	}
	if n := e.slave.Store().MaxOffsetInQueue(e.topic, 1); n != 1 {
		t.Errorf("slave queue holds %d messages, want the 1 replicated copy", n)
	}
}
