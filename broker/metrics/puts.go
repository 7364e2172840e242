package metrics

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rocketmq-go/rmq/broker/topic"
)

// MessageSize is 5.x's HISTOGRAM_MESSAGE_SIZE (no unit, so the name is
// unchanged by the exporter).
const MessageSize = "rocketmq_message_size"

// labelMessageType is BrokerMetricsConstant.LABEL_MESSAGE_TYPE.
const labelMessageType = "message_type"

// messageSizeBuckets are BrokerMetricsManager.registerMetricsView's bounds:
// 1 KiB, 4 KiB, 512 KiB, 1 MiB, 2 MiB, 4 MiB.
var messageSizeBuckets = []float64{1 << 10, 4 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20}

// puts are the incoming-message metrics, recorded where the send path
// counts a stored message (OnPut): rocketmq_messages_in_total,
// rocketmq_throughput_in_total and rocketmq_message_size, labelled topic,
// message_type and is_system as 5.x labels them. Each topic's three
// children are resolved once, so a put is a read-locked map lookup (no
// allocation) and three atomic updates.
type puts struct {
	in, bytes *prometheus.CounterVec
	size      *prometheus.HistogramVec
	isSystem  func(topic string) bool

	mu      sync.RWMutex // guards byTopic
	byTopic map[string]*topicPuts
}

type topicPuts struct {
	in, bytes prometheus.Counter
	size      prometheus.Observer
}

func newPuts(cl prometheus.Labels, isSystem func(string) bool) *puts {
	l := []string{labelTopic, labelMessageType, labelIsSystem}
	return &puts{
		in: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MessagesIn,
			Help: "Total number of incoming messages", ConstLabels: cl}, l),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ThroughputIn,
			Help: "Total traffic of incoming messages", ConstLabels: cl}, l),
		size: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MessageSize, Help: "Incoming messages size",
			Buckets: messageSizeBuckets, ConstLabels: cl}, l),
		isSystem: isSystem,
		byTopic:  map[string]*topicPuts{},
	}
}

func (p *puts) collectors() []prometheus.Collector {
	return []prometheus.Collector{p.in, p.bytes, p.size}
}

func (p *puts) record(t string, msgs int32, bytes int64) {
	p.mu.RLock()
	tp := p.byTopic[t]
	p.mu.RUnlock()
	if tp == nil {
		tp = p.child(t)
	}
	tp.in.Add(float64(msgs))
	tp.bytes.Add(float64(bytes))
	tp.size.Observe(float64(bytes / int64(msgs)))
}

func (p *puts) child(t string) *topicPuts {
	lv := []string{label(t), messageType(t), boolStr(p.isSystem(t))}
	tp := &topicPuts{in: p.in.WithLabelValues(lv...), bytes: p.bytes.WithLabelValues(lv...),
		size: p.size.WithLabelValues(lv...)}
	p.mu.Lock()
	p.byTopic[t] = tp
	p.mu.Unlock()
	return tp
}

// messageType is TopicMessageType.getMetricsValue() for a stored message,
// told by the topic it is stored under: a delayed message goes to
// SCHEDULE_TOPIC_XXXX and a transaction's half message to
// RMQ_SYS_TRANS_HALF_TOPIC before it is counted (as in 5.x, whose put
// hooks rewrite the topic first); 4.9 clients send no FIFO (sharding key)
// messages.
func messageType(t string) string {
	switch t {
	case topic.ScheduleTopic:
		return "delay"
	case topic.TransHalfTopic:
		return "transaction"
	}
	return "normal"
}

// isRetryOrDLQ is BrokerMetricsManager.isRetryOrDlqTopic: 5.x counts
// neither as incoming messages.
func isRetryOrDLQ(t string) bool {
	return strings.HasPrefix(t, topic.RetryGroupTopicPrefix) || strings.HasPrefix(t, topic.DLQGroupTopicPrefix)
}

// OnPut records a stored message or batch of msgs messages and bytes bytes
// in topic t (send and reply: where BrokerStatsManager counts puts). A nil
// collector (metrics off) does nothing.
func (c *Collector) OnPut(t string, msgs int32, bytes int64) {
	if c == nil || msgs <= 0 || isRetryOrDLQ(t) {
		return
	}
	c.puts.record(t, msgs, bytes)
}
