package metrics

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// MessageSize is 5.x's HISTOGRAM_MESSAGE_SIZE (no unit, so the name is
// unchanged by the exporter).
const MessageSize = "rocketmq_message_size"

// messageSizeBuckets are BrokerMetricsManager.registerMetricsView's bounds:
// 1 KiB, 4 KiB, 512 KiB, 1 MiB, 2 MiB, 4 MiB.
var messageSizeBuckets = []float64{1 << 10, 4 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20}

// messageSizes holds one histogram child per topic, resolved once, so an
// observation is a read-locked map lookup (no allocation) and an atomic
// update.
type messageSizes struct {
	vec      *prometheus.HistogramVec
	isSystem func(topic string) bool

	mu      sync.RWMutex // guards byTopic
	byTopic map[string]prometheus.Observer
}

func newMessageSizes(cl prometheus.Labels, isSystem func(string) bool) *messageSizes {
	return &messageSizes{
		vec: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MessageSize, Help: "Incoming messages size",
			Buckets: messageSizeBuckets, ConstLabels: cl}, []string{labelTopic, labelIsSystem}),
		isSystem: isSystem,
		byTopic:  map[string]prometheus.Observer{},
	}
}

func (s *messageSizes) observe(topic string, msgs int32, bytes int64) {
	s.mu.RLock()
	o := s.byTopic[topic]
	s.mu.RUnlock()
	if o == nil {
		o = s.child(topic)
	}
	o.Observe(float64(bytes / int64(msgs)))
}

func (s *messageSizes) child(topic string) prometheus.Observer {
	o := s.vec.WithLabelValues(topic, boolStr(s.isSystem(topic)))
	s.mu.Lock()
	s.byTopic[topic] = o
	s.mu.Unlock()
	return o
}

// isRetryOrDLQ is BrokerMetricsManager.isRetryOrDlqTopic: 5.x counts
// neither as incoming messages.
func isRetryOrDLQ(topic string) bool {
	return strings.HasPrefix(topic, "%RETRY%") || strings.HasPrefix(topic, "%DLQ%")
}

// OnPut records a stored message or batch of msgs messages and bytes bytes
// in topic (send, reply, send-back: where BrokerStatsManager counts puts).
// A nil collector (metrics off) does nothing.
func (c *Collector) OnPut(topic string, msgs int32, bytes int64) {
	if c == nil || msgs <= 0 || isRetryOrDLQ(topic) {
		return
	}
	c.sizes.observe(topic, msgs, bytes)
}
