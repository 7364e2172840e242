package metrics

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rocketmq-go/rmq/broker/client"
	"github.com/rocketmq-go/rmq/broker/offset"
	"github.com/rocketmq-go/rmq/broker/stats"
	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/subscription"
	"github.com/rocketmq-go/rmq/broker/topic"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// Watermark is one processor queue's length (rocketmq_processor_watermark).
type Watermark struct {
	Processor string // 5.x's label value: send, pull, heartbeat…
	Queued    int
}

// Sources are what the collector reads at scrape time. Every field is
// required except HA.
type Sources struct {
	Stats     *stats.Manager
	Store     store.MessageStore
	Topics    *topic.Manager
	Subs      *subscription.Manager
	Offsets   *offset.Manager
	Consumers *client.ConsumerManager
	Producers *client.ProducerManager
	// Permission is brokerPermission, read live.
	Permission func() int
	// Watermarks lists the processor queues.
	Watermarks func() []Watermark
	// HA returns each connected slave's acknowledged CommitLog offset;
	// nil on a broker without HA.
	HA func() map[string]int64
	// StoreRoot is storePathRootDir (rocketmq_storage_size is the used
	// space of its file system, as 5.x measures it).
	StoreRoot string
}

// Collector is the broker's prometheus.Collector.
type Collector struct {
	src   Sources
	pulls *PullOffsets
	puts  *puts // fed by OnPut
	descs descs
}

// NewCollector returns the collector; constLabels (cluster, node_type,
// node_id, metricsLabel) go on every series.
func NewCollector(src Sources, constLabels prometheus.Labels) *Collector {
	return &Collector{src: src, pulls: NewPullOffsets(), descs: newDescs(constLabels),
		puts: newPuts(constLabels, src.Topics.IsSystemTopic)}
}

// PullOffsets is the table the pull path feeds; nil for a nil collector
// (metrics disabled), whose Record does nothing.
func (c *Collector) PullOffsets() *PullOffsets {
	if c == nil {
		return nil
	}
	return c.pulls
}

// OnTopicDeleted forgets a deleted topic: its incoming-message series and
// every group's pull offsets of it. A nil collector does nothing.
func (c *Collector) OnTopicDeleted(t string) {
	if c == nil {
		return
	}
	c.puts.drop(t)
	c.pulls.DeleteTopic(t)
}

// OnGroupDeleted forgets a deleted subscription group's pull offsets. A nil
// collector does nothing.
func (c *Collector) OnGroupDeleted(group string) {
	if c == nil {
		return
	}
	c.pulls.DeleteGroup(group)
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs.all() {
		ch <- d
	}
	for _, col := range c.puts.collectors() {
		col.Describe(ch)
	}
}

// Collect reads every source once.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.collectTraffic(ch)
	c.collectCounts(ch)
	c.collectConnections(ch)
	c.collectLag(ch)
	c.collectStorage(ch)
	c.collectHA(ch)
	for _, col := range c.puts.collectors() {
		col.Collect(ch)
	}
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

// collectTraffic reports BrokerStatsManager's running totals of gets per
// topic and group (GROUP_GET_NUMS/SIZE, keyed "topic@group"); incoming
// messages are counted by OnPut.
func (c *Collector) collectTraffic(ch chan<- prometheus.Metric) {
	st, d := c.src.Stats, &c.descs
	sysTopic := c.src.Topics.IsSystemTopic
	out := func(desc *prometheus.Desc) func(string, *stats.Item) bool {
		return func(key string, it *stats.Item) bool {
			t, g, ok := splitTopicGroup(key)
			if ok {
				counter(ch, desc, float64(it.Value()), label(t), label(g), boolStr(topic.IsRetryTopic(t)), boolStr(sysTopic(t) || isSystemGroup(g)))
			}
			return true
		}
	}
	st.Set(stats.GroupGetNums).Range(out(d.messagesOut))
	st.Set(stats.GroupGetSize).Range(out(d.throughputOut))
}

// splitTopicGroup splits a "topic@group" stats key (topics and groups
// contain no '@', which the name validators refuse).
func splitTopicGroup(key string) (topicName, group string, ok bool) {
	i := strings.LastIndexByte(key, '@')
	if i <= 0 || i == len(key)-1 {
		return "", "", false
	}
	return key[:i], key[i+1:], true
}

func (c *Collector) collectCounts(ch chan<- prometheus.Metric) {
	d := &c.descs
	for _, w := range c.src.Watermarks() {
		gauge(ch, d.watermark, float64(w.Queued), w.Processor)
	}
	gauge(ch, d.permission, float64(c.src.Permission()))
	gauge(ch, d.topicNum, float64(len(c.src.Topics.Snapshot())))
	gauge(ch, d.groupNum, float64(len(c.src.Subs.Snapshot())))
}

type producerAttr struct {
	lang    code.LanguageCode
	version int32
}

type consumerAttr struct {
	group, consumeType string
	lang               code.LanguageCode
	version            int32
}

// collectConnections counts client channels by language and version (and
// group and consume mode for consumers), as 5.x does.
func (c *Collector) collectConnections(ch chan<- prometheus.Metric) {
	d := &c.descs
	prod := map[producerAttr]int{}
	for _, infos := range c.src.Producers.GroupChannels() {
		for _, ci := range infos {
			prod[producerAttr{ci.Language, ci.Version}]++
		}
	}
	for a, n := range prod {
		gauge(ch, d.producerConns, float64(n), langLabel(a.lang), versionLabel(a.version), protocolRemoting)
	}
	cons := map[consumerAttr]int{}
	for _, g := range c.src.Consumers.Groups() {
		gi := c.src.Consumers.GetConsumerGroupInfo(g)
		if gi == nil {
			continue
		}
		ct := gi.ConsumeType()
		for _, ci := range gi.ChannelInfos() {
			cons[consumerAttr{g, ct, ci.Language, ci.Version}]++
		}
	}
	for a, n := range cons {
		gauge(ch, d.consumerConns, float64(n), label(a.group), langLabel(a.lang), versionLabel(a.version),
			consumeMode(a.consumeType), protocolRemoting, boolStr(isSystemGroup(a.group)))
	}
}

// langLabel is LanguageCode.name().toLowerCase().
func langLabel(l code.LanguageCode) string { return strings.ToLower(l.String()) }

// versionLabel is MQVersion.getVersionDesc(v).toLowerCase().
func versionLabel(v int32) string { return strings.ToLower(code.VersionName(v)) }

// consumeMode is ConsumeType.getTypeCN().toLowerCase().
func consumeMode(consumeType string) string {
	switch consumeType {
	case body.ConsumeActively:
		return "pull"
	case body.ConsumePassively:
		return "push"
	case "CONSUME_POP":
		return "pop"
	}
	return strings.ToLower(consumeType)
}

// sysGroupPrefix is MixAll.CID_RMQ_SYS_PREFIX in lower case, as
// BrokerMetricsManager.isSystemGroup compares it.
const sysGroupPrefix = "cid_rmq_sys_"

func isSystemGroup(group string) bool {
	return len(group) >= len(sysGroupPrefix) && strings.EqualFold(group[:len(sysGroupPrefix)], sysGroupPrefix)
}

func boolStr(b bool) string { return strconv.FormatBool(b) }

// label repairs a name a client chose (group, topic) into a valid UTF-8
// label value: Prometheus refuses anything else, and one bad value would
// fail the whole scrape.
func label(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func (c *Collector) collectStorage(ch chan<- prometheus.Metric) {
	d, s := &c.descs, c.src.Store
	if used, ok := diskUsed(c.src.StoreRoot); ok {
		gauge(ch, d.storageSize, float64(used), storageLocal, storageDisk)
	}
	if cl := s.CommitLog(); cl != nil {
		gauge(ch, d.flushBehind, float64(max(cl.MaxOffset()-cl.FlushedWhere(), 0)), storageLocal, storageDisk)
	}
	gauge(ch, d.dispatchBehind, float64(s.DispatchBehindBytes()), storageLocal, storageDisk)
	if t := s.EarliestMessageTimeOfStore(); t > 0 {
		gauge(ch, d.reserveTime, float64(time.Now().UnixMilli()-t), storageLocal, storageDisk)
	}
}

// collectHA reports how many CommitLog bytes each slave is behind (ours).
func (c *Collector) collectHA(ch chan<- prometheus.Metric) {
	if c.src.HA == nil {
		return
	}
	acks := c.src.HA()
	if len(acks) == 0 {
		return
	}
	top := c.src.Store.MaxPhyOffset()
	for addr, ack := range acks {
		gauge(ch, c.descs.haLag, float64(max(top-ack, 0)), addr)
	}
}
