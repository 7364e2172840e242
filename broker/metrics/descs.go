package metrics

import "github.com/prometheus/client_golang/prometheus"

// Metric names as a Prometheus server scrapes them from a 5.x broker:
// the 5.x constant, plus the unit suffix OpenTelemetry's exporter appends
// (see internal/metrics). The constants cited are in
// broker/.../metrics/BrokerMetricsConstant.java and
// store/.../metrics/DefaultStoreMetricsConstant.java.
const (
	MessagesIn            = "rocketmq_messages_in_total"                         // COUNTER_MESSAGES_IN_TOTAL
	MessagesOut           = "rocketmq_messages_out_total"                        // COUNTER_MESSAGES_OUT_TOTAL
	ThroughputIn          = "rocketmq_throughput_in_total"                       // COUNTER_THROUGHPUT_IN_TOTAL
	ThroughputOut         = "rocketmq_throughput_out_total"                      // COUNTER_THROUGHPUT_OUT_TOTAL
	ProcessorWatermark    = "rocketmq_processor_watermark"                       // GAUGE_PROCESSOR_WATERMARK
	BrokerPermission      = "rocketmq_broker_permission"                         // GAUGE_BROKER_PERMISSION
	TopicNumber           = "rocketmq_topic_number"                              // GAUGE_TOPIC_NUM
	ConsumerGroupNumber   = "rocketmq_consumer_group_number"                     // GAUGE_CONSUMER_GROUP_NUM
	ProducerConnections   = "rocketmq_producer_connections"                      // GAUGE_PRODUCER_CONNECTIONS
	ConsumerConnections   = "rocketmq_consumer_connections"                      // GAUGE_CONSUMER_CONNECTIONS
	ConsumerLagMessages   = "rocketmq_consumer_lag_messages"                     // GAUGE_CONSUMER_LAG_MESSAGES
	ConsumerLagLatency    = "rocketmq_consumer_lag_latency_milliseconds"         // GAUGE_CONSUMER_LAG_LATENCY, unit milliseconds
	ConsumerInflight      = "rocketmq_consumer_inflight_messages"                // GAUGE_CONSUMER_INFLIGHT_MESSAGES
	ConsumerQueueingLat   = "rocketmq_consumer_queueing_latency_milliseconds"    // GAUGE_CONSUMER_QUEUEING_LATENCY, unit milliseconds
	ConsumerReadyMessages = "rocketmq_consumer_ready_messages"                   // GAUGE_CONSUMER_READY_MESSAGES
	StorageSize           = "rocketmq_storage_size_bytes"                        // GAUGE_STORAGE_SIZE, unit bytes
	StorageFlushBehind    = "rocketmq_storage_flush_behind_bytes"                // GAUGE_STORAGE_FLUSH_BEHIND (unit bytes already in the name)
	StorageDispatchBehind = "rocketmq_storage_dispatch_behind_bytes"             // GAUGE_STORAGE_DISPATCH_BEHIND
	StorageMessageReserve = "rocketmq_storage_message_reserve_time_milliseconds" // GAUGE_STORAGE_MESSAGE_RESERVE_TIME, unit milliseconds
	HASlaveLag            = "rocketmq_ha_slave_lag_bytes"                        // ours: 5.x has no HA lag metric
)

// Label names and values (BrokerMetricsConstant, DefaultStoreMetricsConstant,
// RemotingMetricsConstant).
const (
	labelTopic         = "topic"          // LABEL_TOPIC
	labelConsumerGroup = "consumer_group" // LABEL_CONSUMER_GROUP
	labelIsRetry       = "is_retry"       // LABEL_IS_RETRY
	labelIsSystem      = "is_system"      // LABEL_IS_SYSTEM
	labelProcessor     = "processor"      // LABEL_PROCESSOR
	labelLanguage      = "language"       // LABEL_LANGUAGE
	labelVersion       = "version"        // LABEL_VERSION
	labelConsumeMode   = "consume_mode"   // LABEL_CONSUME_MODE
	labelProtocolType  = "protocol_type"  // RemotingMetricsConstant.LABEL_PROTOCOL_TYPE
	labelStorageType   = "storage_type"   // DefaultStoreMetricsConstant.LABEL_STORAGE_TYPE
	labelStorageMedium = "storage_medium" // LABEL_STORAGE_MEDIUM
	labelSlaveAddr     = "slave_addr"     // ours

	protocolRemoting = "remoting" // PROTOCOL_TYPE_REMOTING
	storageLocal     = "local"    // DEFAULT_STORAGE_TYPE
	storageDisk      = "disk"     // DEFAULT_STORAGE_MEDIUM
)

type descs struct {
	messagesIn, messagesOut, throughputIn, throughputOut  *prometheus.Desc
	watermark, permission, topicNum, groupNum             *prometheus.Desc
	producerConns, consumerConns                          *prometheus.Desc
	lag, lagLatency, inflight, queueingLatency, ready     *prometheus.Desc
	storageSize, flushBehind, dispatchBehind, reserveTime *prometheus.Desc
	haLag                                                 *prometheus.Desc
}

func newDescs(cl prometheus.Labels) descs {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, cl)
	}
	out := []string{labelTopic, labelConsumerGroup, labelIsRetry, labelIsSystem}
	lag := []string{labelConsumerGroup, labelTopic, labelIsRetry, labelIsSystem}
	st := []string{labelStorageType, labelStorageMedium}
	return descs{
		messagesOut:     d(MessagesOut, "Total number of outgoing messages", out...),
		throughputOut:   d(ThroughputOut, "Total traffic of outgoing messages", out...),
		watermark:       d(ProcessorWatermark, "Request processor watermark", labelProcessor),
		permission:      d(BrokerPermission, "Broker permission"),
		topicNum:        d(TopicNumber, "Active topic number"),
		groupNum:        d(ConsumerGroupNumber, "Active subscription group number"),
		producerConns:   d(ProducerConnections, "Producer connections", labelLanguage, labelVersion, labelProtocolType),
		consumerConns:   d(ConsumerConnections, "Consumer connections", labelConsumerGroup, labelLanguage, labelVersion, labelConsumeMode, labelProtocolType, labelIsSystem),
		lag:             d(ConsumerLagMessages, "Consumer lag messages", lag...),
		lagLatency:      d(ConsumerLagLatency, "Consumer lag time", lag...),
		inflight:        d(ConsumerInflight, "Consumer inflight messages", lag...),
		queueingLatency: d(ConsumerQueueingLat, "Consumer queueing time", lag...),
		ready:           d(ConsumerReadyMessages, "Consumer ready messages", lag...),
		storageSize:     d(StorageSize, "Broker storage size", st...),
		flushBehind:     d(StorageFlushBehind, "Broker flush behind bytes", st...),
		dispatchBehind:  d(StorageDispatchBehind, "Broker dispatch behind bytes", st...),
		reserveTime:     d(StorageMessageReserve, "Broker message reserve time", st...),
		haLag:           d(HASlaveLag, "CommitLog bytes a slave has not acknowledged yet", labelSlaveAddr),
	}
}

func (d *descs) all() []*prometheus.Desc {
	return []*prometheus.Desc{d.messagesOut, d.throughputOut,
		d.watermark, d.permission, d.topicNum, d.groupNum, d.producerConns, d.consumerConns,
		d.lag, d.lagLatency, d.inflight, d.queueingLatency, d.ready,
		d.storageSize, d.flushBehind, d.dispatchBehind, d.reserveTime, d.haLag}
}

// Names lists every metric name the collector can export (docs test).
func Names() []string {
	return []string{MessagesIn, MessagesOut, ThroughputIn, ThroughputOut, ProcessorWatermark, BrokerPermission,
		TopicNumber, ConsumerGroupNumber, ProducerConnections, ConsumerConnections, ConsumerLagMessages,
		ConsumerLagLatency, ConsumerInflight, ConsumerQueueingLat, ConsumerReadyMessages, StorageSize,
		StorageFlushBehind, StorageDispatchBehind, StorageMessageReserve, HASlaveLag, MessageSize}
}
