package integration

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// TestDelayDeliveredMessageKeepsDelayLevel: a message sent with a delay
// level reaches the consumer of its real topic with the DELAY property still
// set to that level (and REAL_TOPIC/REAL_QID, as Apache 4.9.8 keeps them in
// the delivered copy), so GetDelayTimeLevel-style reads work on the
// consumer.
func TestDelayDeliveredMessageKeepsDelayLevel(t *testing.T) {
	t.Parallel()
	e := newConsumeEnv(t)
	for i, level := range []int{1, 2} { // 1 s and 5 s
		m := primitive.NewMessage(e.topic, []byte("delayed-"+strconv.Itoa(i)))
		m.WithTag("TagD")
		m.WithDelayTimeLevel(level)
		m.Queue = &primitive.MessageQueue{Topic: e.topic, BrokerName: e.b.Config().BrokerName, QueueId: 1}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		r, err := e.p.SendSync(ctx, m)
		cancel()
		if err != nil || r.Status != primitive.SendOK {
			t.Fatalf("send %d: %v %v", i, r, err)
		}
	}
	r := newReceived()
	e.startPush(pushOpts{group: uniqueName("cg")}, r)
	r.waitAll(t, "delayed", 2, 30*time.Second)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.msgs {
		want := "1"
		if string(m.Body) == "delayed-1" {
			want = "2"
		}
		if got := m.GetProperty(primitive.PropertyDelayTimeLevel); got != want {
			t.Errorf("%s: DELAY = %q, want %q (properties %v)", m.Body, got, want, m.GetProperties())
		}
		if m.Topic != e.topic || m.Queue.QueueId != 1 || m.GetTags() != "TagD" {
			t.Errorf("%s delivered to %s/%d tags %q", m.Body, m.Topic, m.Queue.QueueId, m.GetTags())
		}
		if m.GetProperty(primitive.PropertyRealTopic) != e.topic || m.GetProperty(primitive.PropertyRealQueueId) != "1" {
			t.Errorf("%s: REAL_TOPIC/REAL_QID %v", m.Body, m.GetProperties())
		}
		if r.seen[string(m.Body)] != 1 {
			t.Errorf("%s received %d times", m.Body, r.seen[string(m.Body)])
		}
	}
}
