// Package metrics is the broker's Prometheus collector: Apache RocketMQ
// 5.x's BrokerMetricsManager, ConsumerLagCalculator and
// DefaultStoreMetricsManager metrics, named as a Prometheus server scrapes
// them from a 5.x broker (see internal/metrics for the naming rule and
// docs/metrics.md for the list), plus our HA lag per slave.
//
// Everything except the pull offsets is read at scrape time (Collect):
// message and byte counts are BrokerStatsManager's running totals
// (broker/stats, which the send and pull paths already keep), gauges come
// from the managers and the store. The send path therefore pays nothing
// for metrics. The pull path records the next pull offset of each
// (group, topic, queue) in PullOffsets (5.x's pull offset table, which
// 4.9.8 lacks), a read-locked map lookup and an atomic store per pull,
// for rocketmq_consumer_inflight_messages and friends.
//
// Usage (broker.go):
//
//	c := metrics.NewCollector(metrics.Sources{...}, constLabels)
//	exporter.Registry().MustRegister(c)
//	// pull path: c.PullOffsets().Record(group, topic, queueID, nextBeginOffset)
package metrics
