// Package metrics is the broker's Prometheus collector: Apache RocketMQ
// 5.x's BrokerMetricsManager, ConsumerLagCalculator and
// DefaultStoreMetricsManager metrics, named as a Prometheus server scrapes
// them from a 5.x broker (see internal/metrics for the naming rule and
// docs/metrics.md for the list), plus our HA lag per slave.
//
// Outgoing message and byte counts are BrokerStatsManager's running totals
// (broker/stats, which the pull path already keeps), read at scrape time
// (Collect) like every gauge. Two things are recorded on the way: the send
// path's OnPut, next to BrokerStatsManager's put counting, adds to the
// incoming counters and the size histogram, which carry 5.x's
// message_type label that the stats lack (per-topic children resolved
// once: a read-locked map lookup and three atomic updates, no
// allocation); the pull path records the next pull offset of each (group,
// topic, queue) in PullOffsets (5.x's pull offset table, which 4.9.8
// lacks) for rocketmq_consumer_inflight_messages and friends. Both are
// no-ops on a nil *Collector (metrics off).
//
// Usage (broker.go):
//
//	c := metrics.NewCollector(metrics.Sources{...}, constLabels)
//	exporter.Registry().MustRegister(c)
//	// send path: c.OnPut(topic, msgNum, wroteBytes)
//	// pull path: c.PullOffsets().Record(group, topic, queueID, nextBeginOffset)
package metrics
