package proxy_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/proxy"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting/body"
)

func TestProxySendMessageNormal(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e := startEnv(t, mode)
		e.createTopic(t, "SendTopic", 1)
		m := newMsg("SendTopic", "hello grpc")
		tag := "TagA"
		m.SystemProperties.Tag = &tag
		m.SystemProperties.Keys = []string{"k1", "k2"}
		m.UserProperties = map[string]string{"color": "red"}
		resp := e.send(t, newClientID(), m)
		if resp.GetStatus().GetCode() != apiv2.Code_OK || len(resp.GetEntries()) != 1 {
			t.Fatalf("response %v", resp)
		}
		ent := resp.GetEntries()[0]
		if ent.GetStatus().GetCode() != apiv2.Code_OK || ent.GetMessageId() != m.SystemProperties.MessageId || ent.GetOffset() != 0 {
			t.Fatalf("entry %v", ent)
		}
		got := e.stored(t, "SendTopic", 0, 1)[0]
		if string(got.Body) != "hello grpc" || got.Tags() != "TagA" || got.Keys() != "k1 k2" || got.Property("color") != "red" {
			t.Fatalf("stored %+v", got)
		}
		if got.Property(message.PropertyUniqClientMessageIDKeyidx) != m.SystemProperties.MessageId || got.Property(message.PropertyProducerGroup) != "SendTopic" {
			t.Fatalf("stored properties %v", got.Properties)
		}
		if got.Property("__BORNHOST") == "" {
			t.Fatalf("no born host in %v", got.Properties)
		}
	})
}

// TestProxySendMessageFIFO: one message group always lands on the queue
// Guava's consistentHash picks, as with 5.x's proxy, with __SHARDINGKEY set.
func TestProxySendMessageFIFO(t *testing.T) {
	e := startEnv(t, "local")
	e.createTopic(t, "FifoTopic", 8)
	cli := newClientID()
	for i := range 3 {
		m := newMsg("FifoTopic", "fifo-"+strconv.Itoa(i))
		g := "order-42" // Hashing.consistentHash("order-42".hashCode(), 8) == 3
		m.SystemProperties.MessageGroup = &g
		m.SystemProperties.MessageType = apiv2.MessageType_FIFO
		if r := e.send(t, cli, m); r.GetStatus().GetCode() != apiv2.Code_OK {
			t.Fatalf("send %d: %v", i, r)
		}
	}
	got := e.stored(t, "FifoTopic", 3, 3)
	for i, m := range got {
		if string(m.Body) != "fifo-"+strconv.Itoa(i) || m.Property(message.PropertyShardingKey) != "order-42" {
			t.Fatalf("message %d: %s %v", i, m.Body, m.Properties)
		}
	}
}

// TestProxySendMessageDelivery: delivery_timestamp becomes TIMER_DELIVER_MS
// and the broker holds the message until then (timer wheel on by default).
func TestProxySendMessageDelivery(t *testing.T) {
	e := startEnv(t, "cluster")
	e.createTopic(t, "TimerTopic", 1)
	m := newMsg("TimerTopic", "later")
	at := time.Now().Add(3 * time.Second)
	m.SystemProperties.DeliveryTimestamp = timestamppb.New(at)
	m.SystemProperties.MessageType = apiv2.MessageType_DELAY
	r := e.send(t, newClientID(), m)
	if r.GetStatus().GetCode() != apiv2.Code_OK {
		t.Fatalf("send: %v", r)
	}
	if n := e.b.Store().GetMessage("proxy_test", "TimerTopic", 0, 0, 8, nil).MessageCount(); n != 0 {
		t.Fatalf("delivered before its time: %d", n)
	}
	got := e.stored(t, "TimerTopic", 0, 1)[0]
	// The timer wheel works in timerPrecisionMs (1 s) slots, so a message
	// may come due up to one slot early, as on 5.x.
	if now := time.Now(); now.Before(at.Add(-time.Second)) {
		t.Fatalf("delivered at %v, more than a slot before %v", now, at)
	}
	if got.Property("TIMER_DELIVER_MS") != strconv.FormatInt(at.UnixMilli(), 10) || string(got.Body) != "later" {
		t.Fatalf("stored %s %v", got.Body, got.Properties)
	}
}

func TestProxySendMessageErrors(t *testing.T) {
	e := startEnv(t, "local", func(c *proxy.Config) { c.MaxMessageSize = 1024 })
	e.createTopic(t, "ErrTopic", 1)
	withID := func(f func(m *apiv2.Message)) *apiv2.Message {
		m := newMsg("ErrTopic", "x")
		f(m)
		return m
	}
	long := strings.Repeat("g", 64)
	cases := []struct {
		name string
		msgs []*apiv2.Message
		want apiv2.Code
	}{
		{"no message", nil, apiv2.Code_MESSAGE_CORRUPTED},
		{"unknown topic", []*apiv2.Message{newMsg("NoSuchTopic", "x")}, apiv2.Code_TOPIC_NOT_FOUND},
		{"illegal topic", []*apiv2.Message{newMsg("bad topic", "x")}, apiv2.Code_ILLEGAL_TOPIC},
		{"topics differ", []*apiv2.Message{newMsg("ErrTopic", "x"), newMsg("Other", "y")}, apiv2.Code_MESSAGE_CORRUPTED},
		{"body too large", []*apiv2.Message{withID(func(m *apiv2.Message) { m.Body = make([]byte, 1025) })}, apiv2.Code_MESSAGE_BODY_TOO_LARGE},
		{"empty body", []*apiv2.Message{withID(func(m *apiv2.Message) { m.Body = nil })}, apiv2.Code_MESSAGE_BODY_EMPTY},
		{"no message id", []*apiv2.Message{withID(func(m *apiv2.Message) { m.SystemProperties.MessageId = "" })}, apiv2.Code_ILLEGAL_MESSAGE_ID},
		{"system property", []*apiv2.Message{withID(func(m *apiv2.Message) { m.UserProperties = map[string]string{"UNIQ_KEY": "x"} })}, apiv2.Code_ILLEGAL_MESSAGE_PROPERTY_KEY},
		{"bad tag", []*apiv2.Message{withID(func(m *apiv2.Message) { t := "a|b"; m.SystemProperties.Tag = &t })}, apiv2.Code_ILLEGAL_MESSAGE_TAG},
		{"group too long", []*apiv2.Message{withID(func(m *apiv2.Message) { m.SystemProperties.MessageGroup = &long })}, apiv2.Code_ILLEGAL_MESSAGE_GROUP},
		{"blank key", []*apiv2.Message{withID(func(m *apiv2.Message) { m.SystemProperties.Keys = []string{" "} })}, apiv2.Code_ILLEGAL_MESSAGE_KEY},
		{"delivery too far", []*apiv2.Message{withID(func(m *apiv2.Message) {
			m.SystemProperties.DeliveryTimestamp = timestamppb.New(time.Now().Add(25 * time.Hour))
		})}, apiv2.Code_ILLEGAL_DELIVERY_TIME},
		{"recovery too long", []*apiv2.Message{withID(func(m *apiv2.Message) {
			m.SystemProperties.MessageType = apiv2.MessageType_TRANSACTION
			m.SystemProperties.OrphanedTransactionRecoveryDuration = durationpb.New(2 * time.Hour)
		})}, apiv2.Code_BAD_REQUEST},
		{"too many properties", []*apiv2.Message{withID(func(m *apiv2.Message) {
			m.UserProperties = map[string]string{}
			for i := range 129 {
				m.UserProperties["p"+strconv.Itoa(i)] = "v"
			}
		})}, apiv2.Code_MESSAGE_PROPERTIES_TOO_LARGE},
		{"blank group", []*apiv2.Message{withID(func(m *apiv2.Message) { s := " "; m.SystemProperties.MessageGroup = &s })}, apiv2.Code_ILLEGAL_MESSAGE_GROUP},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.send(t, newClientID(), c.msgs...)
			if r.GetStatus().GetCode() != c.want || len(r.GetEntries()) != 0 {
				t.Fatalf("response %v, want %v and no entries", r, c.want)
			}
		})
	}
	if n := e.b.Store().GetMessage("proxy_test", "ErrTopic", 0, 0, 8, nil).MessageCount(); n != 0 {
		t.Fatalf("%d rejected messages stored", n)
	}
}

// TestProxySendMessageSparse: messages with missing parts are refused with
// a status, never a crash.
func TestProxySendMessageSparse(t *testing.T) {
	e := startEnv(t, "local")
	e.createTopic(t, "SparseTopic", 1)
	for name, m := range map[string]*apiv2.Message{
		"no system properties": {Topic: &apiv2.Resource{Name: "SparseTopic"}, Body: []byte("x")},
		"no topic":             {Body: []byte("x")},
		"empty":                {},
	} {
		t.Run(name, func(t *testing.T) {
			r := e.send(t, newClientID(), m)
			if c := r.GetStatus().GetCode(); c == apiv2.Code_OK || c == apiv2.Code_INTERNAL_SERVER_ERROR {
				t.Fatalf("response %v", r)
			}
		})
	}
}

// TestProxySendReadOnlyTopic: a topic without write permission routes
// READ queues and refuses sends with FORBIDDEN, as 5.x.
func TestProxySendReadOnlyTopic(t *testing.T) {
	e := startEnv(t, "cluster")
	tc := body.NewTopicConfig("ReadOnlyTopic")
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = 2, 2, 4
	e.b.Topics().UpdateTopicConfig(tc)
	e.b.RegisterBrokerAll(false)
	var route *apiv2.QueryRouteResponse
	testutil.Eventually(t, 10*time.Second, func() error {
		var err error
		route, err = e.cli.QueryRoute(e.ctx(t, newClientID()), &apiv2.QueryRouteRequest{Topic: &apiv2.Resource{Name: "ReadOnlyTopic"}, Endpoints: e.endpoints()})
		if err == nil && route.GetStatus().GetCode() != apiv2.Code_OK {
			err = fmt.Errorf("route %v", route)
		}
		return err
	})
	for _, q := range route.GetMessageQueues() {
		if q.GetPermission() != apiv2.Permission_READ {
			t.Fatalf("queue %v", q)
		}
	}
	r := e.send(t, newClientID(), newMsg("ReadOnlyTopic", "x"))
	if r.GetStatus().GetCode() != apiv2.Code_FORBIDDEN || r.GetStatus().GetMessage() != "no writable queue" {
		t.Fatalf("send: %v", r)
	}
}
