package body

import (
	"fmt"
	"slices"
	"strconv"

	jsoniter "github.com/json-iterator/go"
)

// This file holds the offset-shaped bodies: ConsumerOffsetSerializeWrapper
// (consumerOffset.json and the GET_ALL_CONSUMER_OFFSET answer),
// DelayOffsetSerializeWrapper (delayOffset.json, GET_ALL_DELAY_OFFSET) and
// ResetOffsetBody (INVOKE_BROKER_TO_RESET_OFFSET answer and
// RESET_CONSUMER_CLIENT_OFFSET request). All of them are written exactly as
// fastjson writes the Java maps: integer keys unquoted, MessageQueue keys as
// objects, entries in Java hash-table order. Decoding accepts both the
// fastjson and the standard-JSON forms.

// Java table capacities of the maps behind these bodies (the broker's own
// managers hand their tables to the wrappers, so their capacities decide
// the order fastjson writes).
const (
	consumerOffsetTableCapacity = 512 // ConsumerOffsetManager.offsetTable
	queueOffsetTableCapacity    = 32  // per topic@group ConcurrentHashMap<Integer, Long>(32)
	delayOffsetTableCapacity    = 32  // ScheduleMessageService.offsetTable
)

// ConsumerOffsetSerializeWrapper is {"offsetTable":{"topic@group":{queueId:offset}}}.
type ConsumerOffsetSerializeWrapper struct {
	OffsetTable map[string]map[int32]int64
}

// Encode writes the compact fastjson form.
func (c *ConsumerOffsetSerializeWrapper) Encode() []byte {
	w := &beanWriter{}
	w.open()
	w.key("offsetTable")
	keys := keysOf(c.OffsetTable)
	slices.Sort(keys)
	n := ConcurrentHashMapTableSize(consumerOffsetTableCapacity, len(keys))
	w.b = append(w.b, '{')
	for i, k := range JavaHashOrder(keys, JavaStringHash, n) {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = AppendString(w.b, k, false)
		w.b = append(w.b, ':')
		w.b = appendIntKeyed(w.b, c.OffsetTable[k], queueOffsetTableCapacity)
	}
	w.b = append(w.b, '}')
	w.close()
	return w.b
}

// Decode reads either form.
func (c *ConsumerOffsetSerializeWrapper) Decode(data []byte) error {
	var raw struct {
		OffsetTable map[string]map[string]int64 `json:"offsetTable"`
	}
	if err := decodeFastjson(data, &raw); err != nil {
		return err
	}
	c.OffsetTable = make(map[string]map[int32]int64, len(raw.OffsetTable))
	for k, m := range raw.OffsetTable {
		im, err := intKeyed(m)
		if err != nil {
			return fmt.Errorf("body: offsetTable[%s]: %w", k, err)
		}
		c.OffsetTable[k] = im
	}
	return nil
}

// DelayOffsetSerializeWrapper is {"offsetTable":{level:offset}}.
type DelayOffsetSerializeWrapper struct {
	OffsetTable map[int32]int64
}

// Encode writes the compact fastjson form.
func (d *DelayOffsetSerializeWrapper) Encode() []byte {
	w := &beanWriter{}
	w.open()
	w.key("offsetTable")
	w.b = appendIntKeyed(w.b, d.OffsetTable, delayOffsetTableCapacity)
	w.close()
	return w.b
}

// Decode reads either form.
func (d *DelayOffsetSerializeWrapper) Decode(data []byte) error {
	var raw struct {
		OffsetTable map[string]int64 `json:"offsetTable"`
	}
	if err := decodeFastjson(data, &raw); err != nil {
		return err
	}
	m, err := intKeyed(raw.OffsetTable)
	d.OffsetTable = m
	return err
}

// ResetOffsetBody is {"offsetTable":{{mq}:offset}}; fastjson omits a null table.
type ResetOffsetBody struct {
	OffsetTable map[MessageQueue]int64
}

// Encode writes the compact fastjson form (HashMap order of the queues).
func (r *ResetOffsetBody) Encode() []byte {
	w := &beanWriter{}
	w.open()
	if r.OffsetTable != nil {
		w.key("offsetTable")
		appendMQKeyedMap(w, r.OffsetTable, func(v int64) { w.b = strconv.AppendInt(w.b, v, 10) })
	}
	w.close()
	return w.b
}

// Decode reads the fastjson (object keys) form.
func (r *ResetOffsetBody) Decode(data []byte) error {
	var raw struct {
		OffsetTable map[string]int64 `json:"offsetTable"`
	}
	if err := decodeFastjson(data, &raw); err != nil {
		return err
	}
	if raw.OffsetTable == nil {
		r.OffsetTable = nil
		return nil
	}
	m, err := mqKeyed(raw.OffsetTable)
	r.OffsetTable = m
	return err
}

// appendIntKeyed writes a ConcurrentHashMap<Integer, Long>(capacity) as
// fastjson does: {k:v,...} with unquoted keys in table order.
func appendIntKeyed(b []byte, m map[int32]int64, capacity int) []byte {
	keys := keysOf(m)
	slices.Sort(keys)
	n := ConcurrentHashMapTableSize(capacity, len(keys))
	b = append(b, '{')
	for i, k := range JavaHashOrder(keys, func(k int32) int32 { return k }, n) {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, m[k], 10)
	}
	return append(b, '}')
}

func intKeyed(m map[string]int64) (map[int32]int64, error) {
	out := make(map[int32]int64, len(m))
	for k, v := range m {
		n, err := strconv.ParseInt(k, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("body: integer key %q: %w", k, err)
		}
		out[int32(n)] = v
	}
	return out, nil
}

// mqKeyed turns normalized MessageQueue keys (each the compact JSON of the
// key object) back into MessageQueue values.
func mqKeyed[V any](m map[string]V) (map[MessageQueue]V, error) {
	out := make(map[MessageQueue]V, len(m))
	for k, v := range m {
		var mq MessageQueue
		if err := jsoniter.ConfigCompatibleWithStandardLibrary.UnmarshalFromString(k, &mq); err != nil {
			return nil, fmt.Errorf("body: MessageQueue key %q: %w", k, err)
		}
		out[mq] = v
	}
	return out, nil
}

// beanWriter writes compact fastjson bean output: '{', "name":value pairs
// separated by ',', '}'.
type beanWriter struct {
	b     []byte
	first []bool // per open bean: no field written yet
}

func (w *beanWriter) open() {
	w.b = append(w.b, '{')
	w.first = append(w.first, true)
}

func (w *beanWriter) close() {
	w.first = w.first[:len(w.first)-1]
	w.b = append(w.b, '}')
}

func (w *beanWriter) key(name string) {
	top := len(w.first) - 1
	if !w.first[top] {
		w.b = append(w.b, ',')
	}
	w.first[top] = false
	w.b = AppendString(w.b, name, false)
	w.b = append(w.b, ':')
}

func (w *beanWriter) strField(name, v string) {
	w.key(name)
	w.b = AppendString(w.b, v, false)
}

func (w *beanWriter) intField(name string, v int64) {
	w.key(name)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *beanWriter) boolField(name string, v bool) {
	w.key(name)
	w.b = strconv.AppendBool(w.b, v)
}

// EncodeForC writes the same table as ResetOffsetBodyForC, the body the
// broker sends C++ clients (language CPP) instead: a list of
// MessageQueueForC {"brokerName","offset","queueId","topic"} in the
// HashMap order of the table.
func (r *ResetOffsetBody) EncodeForC() []byte {
	w := &beanWriter{}
	w.open()
	if r.OffsetTable != nil {
		w.key("offsetTable")
		w.b = append(w.b, '[')
		for i, mq := range MessageQueueOrder(keysOf(r.OffsetTable)) {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.open()
			w.strField("brokerName", mq.BrokerName)
			w.intField("offset", r.OffsetTable[mq])
			w.intField("queueId", int64(mq.QueueID))
			w.strField("topic", mq.Topic)
			w.close()
		}
		w.b = append(w.b, ']')
	}
	w.close()
	return w.b
}

// ConsumeQueueData mirrors protocol/body/ConsumeQueueData: one consume-queue
// entry as QUERY_CONSUME_QUEUE reports it. Empty strings stand for Java
// nulls and are omitted.
type ConsumeQueueData struct {
	PhysicOffset   int64
	PhysicSize     int32
	TagsCode       int64
	ExtendDataJSON string
	BitMap         string
	Eval           bool
	Msg            string
}

func (d *ConsumeQueueData) appendJSON(w *beanWriter) {
	w.open()
	if d.BitMap != "" {
		w.strField("bitMap", d.BitMap)
	}
	w.boolField("eval", d.Eval)
	if d.ExtendDataJSON != "" {
		w.strField("extendDataJson", d.ExtendDataJSON)
	}
	if d.Msg != "" {
		w.strField("msg", d.Msg)
	}
	w.intField("physicOffset", d.PhysicOffset)
	w.intField("physicSize", int64(d.PhysicSize))
	w.intField("tagsCode", d.TagsCode)
	w.close()
}

// QueryConsumeQueueResponseBody mirrors the QUERY_CONSUME_QUEUE answer.
// A nil SubscriptionData or QueueData and an empty FilterData are Java
// nulls and are omitted, as fastjson does.
type QueryConsumeQueueResponseBody struct {
	SubscriptionData *SubscriptionData
	FilterData       string
	QueueData        []ConsumeQueueData
	MaxQueueIndex    int64
	MinQueueIndex    int64
}

// Encode writes the body as fastjson does (fields sorted, sets of the
// subscription in Java HashSet order).
func (q *QueryConsumeQueueResponseBody) Encode() []byte {
	w := &beanWriter{}
	w.open()
	if q.FilterData != "" {
		w.strField("filterData", q.FilterData)
	}
	w.intField("maxQueueIndex", q.MaxQueueIndex)
	w.intField("minQueueIndex", q.MinQueueIndex)
	if q.QueueData != nil {
		w.key("queueData")
		w.b = append(w.b, '[')
		for i := range q.QueueData {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			q.QueueData[i].appendJSON(w)
		}
		w.b = append(w.b, ']')
	}
	if q.SubscriptionData != nil {
		w.key("subscriptionData")
		q.SubscriptionData.appendJSON(w, true)
	}
	w.close()
	return w.b
}
