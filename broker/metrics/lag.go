package metrics

import (
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rocketmq-go/rmq/broker/topic"
)

// groupTopic is one (group, subscribed topic) pair the lag gauges cover:
// 5.x ConsumerLagCalculator.processAllGroup without pop consumers (4.9.8
// has none) and with useStaticSubscription off (its default): every
// subscription group with online consumers, each topic they subscribe
// except retry topics, when the topic exists and is readable or writable.
type groupTopic struct {
	group, topic string
	queues       int32
}

func (c *Collector) groupTopics() []groupTopic {
	var out []groupTopic
	brokerPerm := int32(c.src.Permission())
	for group := range c.src.Subs.Snapshot() {
		gi := c.src.Consumers.GetConsumerGroupInfo(group)
		if gi == nil {
			continue
		}
		for _, t := range gi.SubscribeTopics() {
			if topic.IsRetryTopic(t) {
				continue
			}
			tc := c.src.Topics.SelectTopicConfig(t)
			if tc == nil {
				continue
			}
			if perm := tc.Perm & brokerPerm; !topic.IsReadable(perm) && !topic.IsWriteable(perm) {
				continue
			}
			out = append(out, groupTopic{group: group, topic: t, queues: tc.WriteQueueNums})
		}
	}
	return out
}

// lagFigures are one (group, topic)'s sums over its write queues.
type lagFigures struct {
	lag, inflight, ready             int64
	oldestUnconsumed, oldestUnpulled int64 // store timestamps (ms); 0: none
}

// figures is ConsumerLagCalculator's getConsumerLagStats,
// getInFlightMsgStats and getAvailableMsgCount for one pair.
func (c *Collector) figures(gt groupTopic) lagFigures {
	s := c.src.Store
	var f lagFigures
	unconsumed, unpulled := int64(math.MaxInt64), int64(math.MaxInt64)
	for q := int32(0); q < gt.queues; q++ {
		top := max(s.MaxOffsetInQueue(gt.topic, q), 0)
		commit := c.src.Offsets.QueryOffset(gt.group, gt.topic, q)
		if commit < 0 {
			commit = top
		}
		pull := c.pulls.Query(gt.group, gt.topic, q)
		if pull < 0 {
			pull = commit // never pulled here since start: nothing in flight
		}
		f.lag += top - commit
		f.inflight += max(pull-commit, 0)
		f.ready += max(top-pull, 0)
		unconsumed = min(unconsumed, c.storeTime(gt.topic, q, commit))
		unpulled = min(unpulled, c.storeTime(gt.topic, q, pull))
	}
	if unconsumed != math.MaxInt64 {
		f.oldestUnconsumed = unconsumed
	}
	if unpulled != math.MaxInt64 {
		f.oldestUnpulled = unpulled
	}
	return f
}

// storeTime is getStoreTimeStamp: the store time of the message at offset,
// or MaxInt64 when there is none.
func (c *Collector) storeTime(t string, q int32, off int64) int64 {
	if off < 0 {
		return math.MaxInt64
	}
	if ts := c.src.Store.MessageStoreTimeStamp(t, q, off); ts > 0 {
		return ts
	}
	return math.MaxInt64
}

func (c *Collector) collectLag(ch chan<- prometheus.Metric) {
	d := &c.descs
	now := time.Now().UnixMilli()
	since := func(ts int64) float64 {
		if ts == 0 {
			return 0
		}
		return float64(max(now-ts, 0))
	}
	for _, gt := range c.groupTopics() {
		f := c.figures(gt)
		l := []string{label(gt.group), label(gt.topic), "false", boolStr(c.src.Topics.IsSystemTopic(gt.topic) || isSystemGroup(gt.group))}
		gauge(ch, d.lag, float64(f.lag), l...)
		gauge(ch, d.lagLatency, since(f.oldestUnconsumed), l...)
		gauge(ch, d.inflight, float64(f.inflight), l...)
		gauge(ch, d.queueingLatency, since(f.oldestUnpulled), l...)
		gauge(ch, d.ready, float64(f.ready), l...)
	}
}
