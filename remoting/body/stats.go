package body

import (
	"math"
	"slices"
	"strconv"
)

// This file holds the admin statistics bodies whose maps are keyed by
// MessageQueue objects (TopicStatsTable, ConsumeStats), the MessageQueue key
// type itself, and the Java hash-order helpers every byte-exact map encoder
// of this package uses: fastjson writes a HashMap or ConcurrentHashMap in the
// map's iteration order, which is bucket order — (spread(hashCode) & (n-1))
// for table size n — and insertion order inside a bucket.

// MessageQueue mirrors common/message/MessageQueue (fields alphabetical, as
// fastjson writes them).
type MessageQueue struct {
	BrokerName string `json:"brokerName"`
	QueueID    int32  `json:"queueId"`
	Topic      string `json:"topic"`
}

// UnmarshalJSON reads a MessageQueue as fastjson does: queueId may be a
// string holding the number, names may be numbers (lenient.go).
func (mq *MessageQueue) UnmarshalJSON(b []byte) error {
	var raw struct {
		BrokerName lstr   `json:"brokerName"`
		QueueID    lint32 `json:"queueId"`
		Topic      lstr   `json:"topic"`
	}
	if err := jsonAPI.Unmarshal(b, &raw); err != nil {
		return err
	}
	*mq = MessageQueue{BrokerName: string(raw.BrokerName), QueueID: int32(raw.QueueID), Topic: string(raw.Topic)}
	return nil
}

// HashCode is MessageQueue.hashCode (Eclipse-style prime 31 over brokerName,
// queueId, topic).
func (mq MessageQueue) HashCode() int32 {
	h := int32(1)
	h = 31*h + JavaStringHash(mq.BrokerName)
	h = 31*h + mq.QueueID
	h = 31*h + JavaStringHash(mq.Topic)
	return h
}

func (mq MessageQueue) appendJSON(w *beanWriter) {
	w.open()
	w.strField("brokerName", mq.BrokerName)
	w.intField("queueId", int64(mq.QueueID))
	w.strField("topic", mq.Topic)
	w.close()
}

// TopicOffset mirrors common/admin/TopicOffset.
type TopicOffset struct {
	LastUpdateTimestamp int64 `json:"lastUpdateTimestamp"`
	MaxOffset           int64 `json:"maxOffset"`
	MinOffset           int64 `json:"minOffset"`
}

// TopicStatsTable mirrors common/admin/TopicStatsTable, the GET_TOPIC_STATS_INFO
// body: {"offsetTable":{{mq}:{topicOffset},...}}.
type TopicStatsTable struct {
	OffsetTable map[MessageQueue]TopicOffset
}

// Encode writes the body as fastjson does (HashMap order of the queues).
func (t *TopicStatsTable) Encode() []byte {
	w := &beanWriter{}
	w.open()
	w.key("offsetTable")
	appendMQKeyedMap(w, t.OffsetTable, func(v TopicOffset) {
		w.open()
		w.intField("lastUpdateTimestamp", v.LastUpdateTimestamp)
		w.intField("maxOffset", v.MaxOffset)
		w.intField("minOffset", v.MinOffset)
		w.close()
	})
	w.close()
	return w.b
}

// Decode reads the fastjson (object keys) form.
func (t *TopicStatsTable) Decode(data []byte) error {
	var raw struct {
		OffsetTable map[string]TopicOffset `json:"offsetTable"`
	}
	if err := decodeFastjson(data, &raw); err != nil {
		return err
	}
	m, err := mqKeyed(raw.OffsetTable)
	t.OffsetTable = m
	return err
}

// OffsetWrapper mirrors common/admin/OffsetWrapper.
type OffsetWrapper struct {
	BrokerOffset   int64 `json:"brokerOffset"`
	ConsumerOffset int64 `json:"consumerOffset"`
	LastTimestamp  int64 `json:"lastTimestamp"`
}

// ConsumeStats mirrors common/admin/ConsumeStats, the GET_CONSUME_STATS body.
type ConsumeStats struct {
	ConsumeTps  float64
	OffsetTable map[MessageQueue]OffsetWrapper
}

// Encode writes the body as fastjson does.
func (c *ConsumeStats) Encode() []byte {
	w := &beanWriter{}
	w.open()
	w.key("consumeTps")
	w.b = AppendJavaDouble(w.b, c.ConsumeTps)
	w.key("offsetTable")
	appendMQKeyedMap(w, c.OffsetTable, func(v OffsetWrapper) {
		w.open()
		w.intField("brokerOffset", v.BrokerOffset)
		w.intField("consumerOffset", v.ConsumerOffset)
		w.intField("lastTimestamp", v.LastTimestamp)
		w.close()
	})
	w.close()
	return w.b
}

// Decode reads the fastjson (object keys) form.
func (c *ConsumeStats) Decode(data []byte) error {
	var raw struct {
		ConsumeTps  float64                  `json:"consumeTps"`
		OffsetTable map[string]OffsetWrapper `json:"offsetTable"`
	}
	if err := decodeFastjson(data, &raw); err != nil {
		return err
	}
	m, err := mqKeyed(raw.OffsetTable)
	c.ConsumeTps, c.OffsetTable = raw.ConsumeTps, m
	return err
}

// ComputeTotalDiff is ConsumeStats.computeTotalDiff: the summed lag.
func (c *ConsumeStats) ComputeTotalDiff() int64 {
	var d int64
	for _, v := range c.OffsetTable {
		d += v.BrokerOffset - v.ConsumerOffset
	}
	return d
}

// javaBucket is the bucket of a key with hash h in a table of size n
// (HashMap.hash / ConcurrentHashMap.spread; n is a power of two).
func javaBucket(h int32, n int) int {
	u := uint32(h)
	return int((u ^ (u >> 16)) & 0x7fffffff & uint32(n-1))
}

// ConcurrentHashMapTableSize is the table size of a ConcurrentHashMap created
// with new ConcurrentHashMap(initialCapacity) (0 = the no-arg constructor)
// after n insertions: JDK 8+ sizes it tableSizeFor(1 + cap/0.75) and doubles
// once the count reaches 0.75 of the table.
func ConcurrentHashMapTableSize(initialCapacity, n int) int {
	size := 16
	if initialCapacity > 0 {
		want := int(1.0 + float64(initialCapacity)/0.75)
		size = 1
		for size < want {
			size *= 2
		}
	}
	for n >= size-size/4 {
		size *= 2
	}
	return size
}

// JavaHashOrder sorts keys in place into the iteration order of a Java hash
// table of size n, given each key's hashCode. Keys in the same bucket keep
// their relative order, so pass them in insertion order when it is known.
func JavaHashOrder[K any](keys []K, hash func(K) int32, n int) []K {
	type slot struct {
		bucket int
		key    K
	}
	slots := make([]slot, len(keys))
	for i, k := range keys {
		slots[i] = slot{javaBucket(hash(k), n), k}
	}
	slices.SortStableFunc(slots, func(a, b slot) int { return a.bucket - b.bucket })
	for i := range slots {
		keys[i] = slots[i].key
	}
	return keys
}

// MessageQueueOrder orders queues as a default java.util.HashMap holding
// exactly them iterates; ties are broken by topic, broker and queue id.
func MessageQueueOrder(mqs []MessageQueue) []MessageQueue {
	return JavaHashOrder(MessageQueueOrderStable(mqs), MessageQueue.HashCode, JavaHashMapCapacity(len(mqs), 16))
}

// appendMQKeyedMap writes m as fastjson writes a HashMap<MessageQueue, V>:
// each key is the queue bean, in MessageQueueOrder; val writes one value.
func appendMQKeyedMap[V any](w *beanWriter, m map[MessageQueue]V, val func(V)) {
	w.b = append(w.b, '{')
	for i, mq := range MessageQueueOrder(keysOf(m)) {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		mq.appendJSON(w)
		w.b = append(w.b, ':')
		val(m[mq])
	}
	w.b = append(w.b, '}')
}

// AppendJavaDouble formats f as fastjson writes a double (shortest repr in
// Java's Double.toString layout: "0.0", "0.25", "1.0E7", "1.0E-4"); NaN and
// infinities become null as in fastjson.
func AppendJavaDouble(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	abs := math.Abs(f)
	if abs == 0 || (abs >= 1e-3 && abs < 1e7) {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		dst = append(dst, s...)
		if !containsDot(s) {
			dst = append(dst, ".0"...)
		}
		return dst
	}
	s := strconv.FormatFloat(f, 'E', -1, 64) // e.g. 1E+07, 1.5E-04
	mant, exp := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == 'E' {
			mant, exp = s[:i], s[i+1:]
			break
		}
	}
	dst = append(dst, mant...)
	if !containsDot(mant) {
		dst = append(dst, ".0"...)
	}
	e, _ := strconv.Atoi(exp)
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(e), 10)
}

func containsDot(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return true
		}
	}
	return false
}

func keysOf[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
