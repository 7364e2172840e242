package header

import (
	"strconv"
	"strings"
)

// Hand-written codecs for the per-message headers (Java's FastCodesHeader
// set plus the V1 send header the Go client always uses). They must behave
// exactly like the reflective encode/decode driven by the struct tags;
// fast_test.go checks that they do.

// extReader reads typed values from extFields, or from slots when set,
// keeping the first error.
type extReader struct {
	ext      map[string]string
	useSlots bool
	slots    extSlots // by value: a pointer would move it to the heap
	err      error
}

func (r *extReader) raw(key string, required bool) (string, bool) {
	if r.err != nil {
		return "", false
	}
	var s string
	var ok bool
	if r.useSlots {
		s, ok = r.slots.get(key)
	} else {
		s, ok = r.ext[key]
	}
	if !ok && required {
		r.err = &MissingFieldError{Field: key}
	}
	return s, ok
}

func (r *extReader) str(key string, required bool) string {
	s, _ := r.raw(key, required)
	return s
}

func (r *extReader) int(key string, required bool, bits int) (int64, bool) {
	s, ok := r.raw(key, required)
	if !ok {
		return 0, false
	}
	if n, ok := smallDecimal(s); ok && (bits == 64 || n == int64(int32(n))) {
		return n, true
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		r.err = &BadValueError{Field: key, Value: s, Err: err}
		return 0, false
	}
	return n, true
}

// smallDecimal parses the integers clients send, -?[0-9]{1,18}, as
// strconv.ParseInt does but without its generality; ok is false for any
// other text (a '+' sign, more digits, none), which ParseInt then judges.
func smallDecimal(s string) (n int64, ok bool) {
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return 0, false
	}
	for i := 0; i < len(d); i++ {
		c := d[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + int64(c)
	}
	if len(d) != len(s) {
		n = -n
	}
	return n, true
}

func (r *extReader) i32(key string, required bool) int32 {
	n, _ := r.int(key, required, 32)
	return int32(n)
}

func (r *extReader) i64(key string, required bool) int64 {
	n, _ := r.int(key, required, 64)
	return n
}

func (r *extReader) optI32(key string) *int32 {
	n, ok := r.int(key, false, 32)
	if !ok {
		return nil
	}
	if n >= smallI32Min && n < smallI32Min+int64(len(smallI32)) {
		return &smallI32[n-smallI32Min]
	}
	v := int32(n)
	return &v
}

// smallI32 boxes the optional int32 values clients send in nearly every
// request (reconsumeTimes 0–16, maxReconsumeTimes -1 or 16) without an
// allocation each (issue #11). A decoded header's optional int32 may point
// here, so its holder reads it and never writes through it.
var smallI32 = func() (t [34]int32) {
	for i := range t {
		t[i] = int32(i + smallI32Min)
	}
	return t
}()

const smallI32Min = -1

func (r *extReader) optI64(key string) *int64 {
	n, ok := r.int(key, false, 64)
	if !ok {
		return nil
	}
	return &n
}

func (r *extReader) boolean(key string) bool {
	s, _ := r.raw(key, false)
	return strings.EqualFold(s, "true")
}

func putI32(m map[string]string, key string, v int32) { m[key] = strconv.FormatInt(int64(v), 10) }
func putI64(m map[string]string, key string, v int64) { m[key] = strconv.FormatInt(v, 10) }

func putOptI32(m map[string]string, key string, v *int32) {
	if v != nil {
		putI32(m, key, *v)
	}
}

func putOptI64(m map[string]string, key string, v *int64) {
	if v != nil {
		putI64(m, key, *v)
	}
}

func putOptStr(m map[string]string, key, v string) {
	if v != "" {
		m[key] = v
	}
}

// ToExtFields implements CommandCustomHeader.
func (h *SendMessageRequestHeaderV2) ToExtFields() map[string]string {
	m := make(map[string]string, 14)
	m["a"], m["b"], m["c"] = h.ProducerGroup, h.Topic, h.DefaultTopic
	putI32(m, "d", h.DefaultTopicQueueNums)
	putI32(m, "e", h.QueueID)
	putI32(m, "f", h.SysFlag)
	putI64(m, "g", h.BornTimestamp)
	putI32(m, "h", h.Flag)
	putOptStr(m, "i", h.Properties)
	putOptI32(m, "j", h.ReconsumeTimes)
	m["k"] = strconv.FormatBool(h.UnitMode)
	putOptI32(m, "l", h.MaxReconsumeTimes)
	m["m"] = strconv.FormatBool(h.Batch)
	putOptStr(m, "n", h.BrokerName)
	return m
}

// FromExtFields implements CommandCustomHeader.
func (h *SendMessageRequestHeaderV2) FromExtFields(ext map[string]string) error {
	r := extReader{ext: ext}
	return h.read(&r)
}

func (h *SendMessageRequestHeaderV2) read(r *extReader) error {
	*h = SendMessageRequestHeaderV2{
		ProducerGroup: r.str("a", true), Topic: r.str("b", true), DefaultTopic: r.str("c", true),
		DefaultTopicQueueNums: r.i32("d", true), QueueID: r.i32("e", true), SysFlag: r.i32("f", true),
		BornTimestamp: r.i64("g", true), Flag: r.i32("h", true), Properties: r.str("i", false),
		ReconsumeTimes: r.optI32("j"), UnitMode: r.boolean("k"), MaxReconsumeTimes: r.optI32("l"),
		Batch: r.boolean("m"), BrokerName: r.str("n", false),
	}
	return r.done(h)
}

// fromV2ExtFields fills h from a V2 header's one-letter keys: the same as
// SendMessageRequestHeaderV2.FromExtFields followed by
// CreateSendMessageRequestHeaderV1, without the intermediate header and the
// copies of its optional fields (every send decodes this).
func (h *SendMessageRequestHeader) fromV2ExtFields(ext map[string]string) error {
	r := extReader{ext: ext}
	return h.readV2(&r)
}

func (h *SendMessageRequestHeader) readV2(r *extReader) error {
	*h = SendMessageRequestHeader{
		ProducerGroup: r.str("a", true), Topic: r.str("b", true), DefaultTopic: r.str("c", true),
		DefaultTopicQueueNums: r.i32("d", true), QueueID: r.i32("e", true), SysFlag: r.i32("f", true),
		BornTimestamp: r.i64("g", true), Flag: r.i32("h", true), Properties: r.str("i", false),
		ReconsumeTimes: r.optI32("j"), UnitMode: r.boolean("k"), MaxReconsumeTimes: r.optI32("l"),
		Batch: r.boolean("m"), Bname: r.str("n", false),
	}
	return r.done(h)
}

// done returns r's error after resetting h when there is one, so a failed
// decode never leaves a half-filled header behind.
func (r *extReader) done(reset interface{ reset() }) error {
	if r.err != nil {
		reset.reset()
	}
	return r.err
}

func (h *SendMessageRequestHeaderV2) reset() { *h = SendMessageRequestHeaderV2{} }
func (h *SendMessageRequestHeader) reset()   { *h = SendMessageRequestHeader{} }
func (h *PullMessageRequestHeader) reset()   { *h = PullMessageRequestHeader{} }
func (h *PullMessageResponseHeader) reset()  { *h = PullMessageResponseHeader{} }
func (h *SendMessageResponseHeader) reset()  { *h = SendMessageResponseHeader{} }

// ToExtFields implements CommandCustomHeader.
func (h *SendMessageRequestHeader) ToExtFields() map[string]string {
	m := make(map[string]string, 14)
	m["producerGroup"], m["topic"], m["defaultTopic"] = h.ProducerGroup, h.Topic, h.DefaultTopic
	putI32(m, "defaultTopicQueueNums", h.DefaultTopicQueueNums)
	putI32(m, "queueId", h.QueueID)
	putI32(m, "sysFlag", h.SysFlag)
	putI64(m, "bornTimestamp", h.BornTimestamp)
	putI32(m, "flag", h.Flag)
	putOptStr(m, "properties", h.Properties)
	putOptI32(m, "reconsumeTimes", h.ReconsumeTimes)
	m["unitMode"] = strconv.FormatBool(h.UnitMode)
	m["batch"] = strconv.FormatBool(h.Batch)
	putOptI32(m, "maxReconsumeTimes", h.MaxReconsumeTimes)
	putOptStr(m, "bname", h.Bname)
	return m
}

// FromExtFields implements CommandCustomHeader.
func (h *SendMessageRequestHeader) FromExtFields(ext map[string]string) error {
	r := extReader{ext: ext}
	return h.read(&r)
}

func (h *SendMessageRequestHeader) read(r *extReader) error {
	*h = SendMessageRequestHeader{
		ProducerGroup: r.str("producerGroup", true), Topic: r.str("topic", true),
		DefaultTopic: r.str("defaultTopic", true), DefaultTopicQueueNums: r.i32("defaultTopicQueueNums", true),
		QueueID: r.i32("queueId", true), SysFlag: r.i32("sysFlag", true),
		BornTimestamp: r.i64("bornTimestamp", true), Flag: r.i32("flag", true),
		Properties: r.str("properties", false), ReconsumeTimes: r.optI32("reconsumeTimes"),
		UnitMode: r.boolean("unitMode"), Batch: r.boolean("batch"),
		MaxReconsumeTimes: r.optI32("maxReconsumeTimes"), Bname: r.str("bname", false),
	}
	return r.done(h)
}

// ToExtFields implements CommandCustomHeader.
func (h *PullMessageRequestHeader) ToExtFields() map[string]string {
	m := make(map[string]string, 14)
	m["consumerGroup"], m["topic"] = h.ConsumerGroup, h.Topic
	putI32(m, "queueId", h.QueueID)
	putI64(m, "queueOffset", h.QueueOffset)
	putI32(m, "maxMsgNums", h.MaxMsgNums)
	putI32(m, "sysFlag", h.SysFlag)
	putI64(m, "commitOffset", h.CommitOffset)
	putI64(m, "suspendTimeoutMillis", h.SuspendTimeoutMillis)
	putOptStr(m, "subscription", h.Subscription)
	putI64(m, "subVersion", h.SubVersion)
	putOptStr(m, "expressionType", h.ExpressionType)
	putOptI32(m, "maxMsgBytes", h.MaxMsgBytes)
	putOptI32(m, "requestSource", h.RequestSource)
	putOptStr(m, "proxyFrowardClientId", h.ProxyFrowardClientID)
	putOptStr(m, "bname", h.Bname)
	return m
}

// FromExtFields implements CommandCustomHeader.
func (h *PullMessageRequestHeader) FromExtFields(ext map[string]string) error {
	r := extReader{ext: ext}
	return h.read(&r)
}

func (h *PullMessageRequestHeader) read(r *extReader) error {
	*h = PullMessageRequestHeader{
		ConsumerGroup: r.str("consumerGroup", true), Topic: r.str("topic", true),
		QueueID: r.i32("queueId", true), QueueOffset: r.i64("queueOffset", true),
		MaxMsgNums: r.i32("maxMsgNums", true), SysFlag: r.i32("sysFlag", true),
		CommitOffset: r.i64("commitOffset", true), SuspendTimeoutMillis: r.i64("suspendTimeoutMillis", true),
		Subscription: r.str("subscription", false), SubVersion: r.i64("subVersion", true),
		ExpressionType: r.str("expressionType", false), MaxMsgBytes: r.optI32("maxMsgBytes"),
		RequestSource: r.optI32("requestSource"), ProxyFrowardClientID: r.str("proxyFrowardClientId", false),
		Bname: r.str("bname", false),
	}
	return r.done(h)
}

// ToExtFields implements CommandCustomHeader.
func (h *PullMessageResponseHeader) ToExtFields() map[string]string {
	m := make(map[string]string, 4)
	putI64(m, "suggestWhichBrokerId", h.SuggestWhichBrokerID)
	putI64(m, "nextBeginOffset", h.NextBeginOffset)
	putI64(m, "minOffset", h.MinOffset)
	putI64(m, "maxOffset", h.MaxOffset)
	putOptI64(m, "offsetDelta", h.OffsetDelta)
	putOptI32(m, "topicSysFlag", h.TopicSysFlag)
	putOptI32(m, "groupSysFlag", h.GroupSysFlag)
	putOptI32(m, "forbiddenType", h.ForbiddenType)
	return m
}

// FromExtFields implements CommandCustomHeader.
func (h *PullMessageResponseHeader) FromExtFields(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = PullMessageResponseHeader{
		SuggestWhichBrokerID: r.i64("suggestWhichBrokerId", true), NextBeginOffset: r.i64("nextBeginOffset", true),
		MinOffset: r.i64("minOffset", true), MaxOffset: r.i64("maxOffset", true),
		OffsetDelta: r.optI64("offsetDelta"), TopicSysFlag: r.optI32("topicSysFlag"),
		GroupSysFlag: r.optI32("groupSysFlag"), ForbiddenType: r.optI32("forbiddenType"),
	}
	return r.done(h)
}

// ToExtFields implements CommandCustomHeader.
func (h *SendMessageResponseHeader) ToExtFields() map[string]string {
	m := make(map[string]string, 4)
	h.PutExtFields(m)
	return m
}

// PutExtFields adds the header's fields to m, the extFields of a response
// that already carries others (the send path's MSG_REGION and TRACE_ON),
// without the intermediate map ToExtFields would build.
func (h *SendMessageResponseHeader) PutExtFields(m map[string]string) {
	m["msgId"] = h.MsgID
	putI32(m, "queueId", h.QueueID)
	putI64(m, "queueOffset", h.QueueOffset)
	putOptStr(m, "transactionId", h.TransactionID)
	putOptStr(m, "batchUniqId", h.BatchUniqID)
	putOptStr(m, "recallHandle", h.RecallHandle)
}

// FromExtFields implements CommandCustomHeader.
func (h *SendMessageResponseHeader) FromExtFields(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = SendMessageResponseHeader{
		MsgID: r.str("msgId", true), QueueID: r.i32("queueId", true), QueueOffset: r.i64("queueOffset", true),
		TransactionID: r.str("transactionId", false), BatchUniqID: r.str("batchUniqId", false),
		RecallHandle: r.str("recallHandle", false),
	}
	return r.done(h)
}
