package body

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// This file holds the client-management bodies the broker reads or writes:
// GET_CONSUMER_LIST_BY_GROUP, LOCK_BATCH_MQ / UNLOCK_BATCH_MQ,
// GET_CONSUMER_CONNECTION_LIST, GET_PRODUCER_CONNECTION_LIST,
// QUERY_TOPIC_CONSUME_BY_WHO (GroupList), CHECK_CLIENT_CONFIG,
// QUERY_CONSUME_TIME_SPAN, RESET_CONSUMER_CLIENT_OFFSET for C clients and the
// client's GET_CONSUMER_RUNNING_INFO answer (common/protocol/body in 4.9.8).
// ResetOffsetBody lives in offset.go.

// GetConsumerListByGroupResponseBody is {"consumerIdList":[...]}, ids in the
// order the broker lists its channels.
type GetConsumerListByGroupResponseBody struct {
	ConsumerIDList []string
}

// Encode writes the fastjson form.
func (g *GetConsumerListByGroupResponseBody) Encode() []byte {
	w := &beanWriter{}
	w.open()
	if g.ConsumerIDList != nil {
		w.key("consumerIdList")
		w.b = AppendStringList(w.b, g.ConsumerIDList, false)
	}
	w.close()
	return w.b
}

// DecodeGetConsumerListByGroupResponseBody reads the body.
func DecodeGetConsumerListByGroupResponseBody(data []byte) (*GetConsumerListByGroupResponseBody, error) {
	var raw struct {
		ConsumerIDList []string `json:"consumerIdList"`
	}
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: consumer list: %w", err)
	}
	return &GetConsumerListByGroupResponseBody{ConsumerIDList: raw.ConsumerIDList}, nil
}

// LockBatchRequestBody is the LOCK_BATCH_MQ request body; UNLOCK_BATCH_MQ
// sends the same shape (UnlockBatchRequestBody). OnlyThisBroker is the 5.x
// field, read when present and written only when true.
type LockBatchRequestBody struct {
	ConsumerGroup  string
	ClientID       string
	MqSet          []MessageQueue
	OnlyThisBroker bool
}

// UnlockBatchRequestBody is the UNLOCK_BATCH_MQ request body.
type UnlockBatchRequestBody = LockBatchRequestBody

// Encode writes the fastjson form, queues in the order held.
func (l *LockBatchRequestBody) Encode() []byte {
	w := &beanWriter{}
	w.open()
	w.strField("clientId", l.ClientID)
	w.strField("consumerGroup", l.ConsumerGroup)
	w.key("mqSet")
	appendMQList(w, l.MqSet)
	if l.OnlyThisBroker {
		w.boolField("onlyThisBroker", true)
	}
	w.close()
	return w.b
}

// DecodeLockBatchRequestBody reads a LOCK_BATCH_MQ or UNLOCK_BATCH_MQ body.
func DecodeLockBatchRequestBody(data []byte) (*LockBatchRequestBody, error) {
	var raw struct {
		ConsumerGroup  lstr           `json:"consumerGroup"`
		ClientID       lstr           `json:"clientId"`
		MqSet          []MessageQueue `json:"mqSet"`
		OnlyThisBroker lbool          `json:"onlyThisBroker"`
	}
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: lock batch request: %w", err)
	}
	return &LockBatchRequestBody{ConsumerGroup: string(raw.ConsumerGroup), ClientID: string(raw.ClientID),
		MqSet: raw.MqSet, OnlyThisBroker: bool(raw.OnlyThisBroker)}, nil
}

// LockBatchResponseBody is {"lockOKMQSet":[...]}. The broker's set is a
// new HashSet(requested) — set InitialCapacity to the number of queues the
// request asked for so Encode writes Java's order (0 means 16).
type LockBatchResponseBody struct {
	LockOKMQSet     []MessageQueue
	InitialCapacity int
}

// Encode writes the fastjson form in HashSet order.
func (l *LockBatchResponseBody) Encode() []byte {
	init := l.InitialCapacity
	if init <= 0 {
		init = 16
	}
	mqs := sortedMQs(l.LockOKMQSet)
	JavaHashOrder(mqs, MessageQueue.HashCode, JavaHashMapCapacity(len(mqs), init))
	w := &beanWriter{}
	w.open()
	w.key("lockOKMQSet")
	appendMQList(w, mqs)
	w.close()
	return w.b
}

// DecodeLockBatchResponseBody reads the body.
func DecodeLockBatchResponseBody(data []byte) (*LockBatchResponseBody, error) {
	var raw struct {
		LockOKMQSet []MessageQueue `json:"lockOKMQSet"`
	}
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: lock batch response: %w", err)
	}
	return &LockBatchResponseBody{LockOKMQSet: raw.LockOKMQSet}, nil
}

func sortedMQs(in []MessageQueue) []MessageQueue {
	out := append([]MessageQueue(nil), in...)
	return MessageQueueOrderStable(out)
}

// MessageQueueOrderStable sorts queues by topic, broker and queue id (the
// deterministic tie-break inside a Java hash bucket).
func MessageQueueOrderStable(mqs []MessageQueue) []MessageQueue {
	slices.SortFunc(mqs, func(a, b MessageQueue) int {
		if c := cmp.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		if c := cmp.Compare(a.BrokerName, b.BrokerName); c != 0 {
			return c
		}
		return cmp.Compare(a.QueueID, b.QueueID)
	})
	return mqs
}

func appendMQList(w *beanWriter, mqs []MessageQueue) {
	w.b = append(w.b, '[')
	for i, mq := range mqs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		mq.appendJSON(w)
	}
	w.b = append(w.b, ']')
}

// Connection mirrors body/Connection (one client channel).
type Connection struct {
	ClientID   string `json:"clientId"`
	ClientAddr string `json:"clientAddr"`
	Language   string `json:"language"` // LanguageCode name, e.g. "JAVA", "GO"
	Version    int32  `json:"version"`
}

func (c *Connection) appendJSON(w *beanWriter) {
	w.open()
	w.strField("clientAddr", c.ClientAddr)
	w.strField("clientId", c.ClientID)
	if c.Language != "" {
		w.strField("language", c.Language)
	}
	w.intField("version", int64(c.Version))
	w.close()
}

func appendConnections(w *beanWriter, conns []Connection) {
	w.key("connectionSet")
	w.b = append(w.b, '[')
	for i := range conns {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		conns[i].appendJSON(w)
	}
	w.b = append(w.b, ']')
}

// ConsumerConnection is the GET_CONSUMER_CONNECTION_LIST answer. Java's
// connection set hashes channels by identity, so connections are written in
// the order given; the subscription table is written in the order of the
// ConcurrentHashMap the broker fills with putAll.
type ConsumerConnection struct {
	ConnectionSet     []Connection
	SubscriptionTable map[string]SubscriptionData
	ConsumeType       string
	MessageModel      string
	ConsumeFromWhere  string
}

// Encode writes the fastjson form.
func (c *ConsumerConnection) Encode() []byte {
	w := &beanWriter{}
	w.open()
	appendConnections(w, c.ConnectionSet)
	optStrField(w, "consumeFromWhere", c.ConsumeFromWhere)
	optStrField(w, "consumeType", c.ConsumeType)
	optStrField(w, "messageModel", c.MessageModel)
	w.key("subscriptionTable")
	w.b = append(w.b, '{')
	topics := keysOf(c.SubscriptionTable)
	slices.Sort(topics)
	for i, topic := range JavaHashOrder(topics, JavaStringHash, chmPutAllTableSize(len(topics))) {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = AppendKey(w.b, topic, false)
		sd := c.SubscriptionTable[topic]
		sd.appendJSON(w, true)
	}
	w.b = append(w.b, '}')
	w.close()
	return w.b
}

// DecodeConsumerConnection reads the body.
func DecodeConsumerConnection(data []byte) (*ConsumerConnection, error) {
	var raw struct {
		ConnectionSet     []Connection                   `json:"connectionSet"`
		SubscriptionTable map[string]rawSubscriptionData `json:"subscriptionTable"`
		ConsumeType       string                         `json:"consumeType"`
		MessageModel      string                         `json:"messageModel"`
		ConsumeFromWhere  string                         `json:"consumeFromWhere"`
	}
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: consumer connection: %w", err)
	}
	c := &ConsumerConnection{ConnectionSet: raw.ConnectionSet, ConsumeType: raw.ConsumeType,
		MessageModel: raw.MessageModel, ConsumeFromWhere: raw.ConsumeFromWhere,
		SubscriptionTable: make(map[string]SubscriptionData, len(raw.SubscriptionTable))}
	for topic, rs := range raw.SubscriptionTable {
		c.SubscriptionTable[topic] = rs.convert()
	}
	return c, nil
}

// chmPutAllTableSize is the table size of a no-arg ConcurrentHashMap after
// putAll of n entries: tryPresize allocates tableSizeFor(1.5n+1) and, since
// that is above 0.75 of itself, doubles it once more.
func chmPutAllTableSize(n int) int {
	if n == 0 {
		return 16
	}
	want := n + n>>1 + 1
	c := 1
	for c < want {
		c <<= 1
	}
	return c << 1
}

func optStrField(w *beanWriter, name, v string) {
	if v != "" {
		w.strField(name, v)
	}
}

// ProducerConnection is the GET_PRODUCER_CONNECTION_LIST answer.
type ProducerConnection struct {
	ConnectionSet []Connection
}

// Encode writes the fastjson form.
func (p *ProducerConnection) Encode() []byte {
	w := &beanWriter{}
	w.open()
	appendConnections(w, p.ConnectionSet)
	w.close()
	return w.b
}

// DecodeProducerConnection reads the body.
func DecodeProducerConnection(data []byte) (*ProducerConnection, error) {
	var raw struct {
		ConnectionSet []Connection `json:"connectionSet"`
	}
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: producer connection: %w", err)
	}
	return &ProducerConnection{ConnectionSet: raw.ConnectionSet}, nil
}

// GroupList is {"groupList":[...]} (QUERY_TOPIC_CONSUME_BY_WHO, and the
// QUERY_TOPIC_CONSUME_BY_WHO-like admin answers), a HashSet written in Java
// hash order.
type GroupList struct {
	GroupList []string
}

// Encode writes the fastjson form.
func (g *GroupList) Encode() []byte {
	groups := append([]string(nil), g.GroupList...)
	slices.Sort(groups)
	JavaHashOrder(groups, JavaStringHash, JavaHashMapCapacity(len(groups), 16))
	w := &beanWriter{}
	w.open()
	w.key("groupList")
	w.b = AppendStringList(w.b, groups, false)
	w.close()
	return w.b
}

// DecodeGroupList reads the body.
func DecodeGroupList(data []byte) (*GroupList, error) {
	var raw struct {
		GroupList []string `json:"groupList"`
	}
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: group list: %w", err)
	}
	return &GroupList{GroupList: raw.GroupList}, nil
}

// CheckClientRequestBody is the CHECK_CLIENT_CONFIG request body.
type CheckClientRequestBody struct {
	ClientID         string
	Group            string
	SubscriptionData *SubscriptionData
}

// Encode writes the fastjson form.
func (c *CheckClientRequestBody) Encode() []byte {
	w := &beanWriter{}
	w.open()
	w.strField("clientId", c.ClientID)
	w.strField("group", c.Group)
	if c.SubscriptionData != nil {
		w.key("subscriptionData")
		c.SubscriptionData.appendJSON(w, false)
	}
	w.close()
	return w.b
}

// DecodeCheckClientRequestBody reads the body.
func DecodeCheckClientRequestBody(data []byte) (*CheckClientRequestBody, error) {
	var raw struct {
		ClientID         lstr                 `json:"clientId"`
		Group            lstr                 `json:"group"`
		SubscriptionData *rawSubscriptionData `json:"subscriptionData"`
	}
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: check client request: %w", err)
	}
	c := &CheckClientRequestBody{ClientID: string(raw.ClientID), Group: string(raw.Group)}
	if raw.SubscriptionData != nil {
		sd := raw.SubscriptionData.convert()
		c.SubscriptionData = &sd
	}
	return c, nil
}

// MessageQueueForC is one entry of ResetOffsetBodyForC.
type MessageQueueForC struct {
	BrokerName string `json:"brokerName"`
	Offset     int64  `json:"offset"`
	QueueID    int32  `json:"queueId"`
	Topic      string `json:"topic"`
}

// ResetOffsetBodyForC is the RESET_CONSUMER_CLIENT_OFFSET body sent to C++
// clients: {"offsetTable":[{"brokerName":..,"offset":..,"queueId":..,"topic":..}]}.
type ResetOffsetBodyForC struct {
	OffsetTable []MessageQueueForC
}

// Encode writes the fastjson form, entries in the order given.
func (r *ResetOffsetBodyForC) Encode() []byte {
	w := &beanWriter{}
	w.open()
	if r.OffsetTable != nil {
		w.key("offsetTable")
		w.b = append(w.b, '[')
		for i, e := range r.OffsetTable {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.open()
			w.strField("brokerName", e.BrokerName)
			w.intField("offset", e.Offset)
			w.intField("queueId", int64(e.QueueID))
			w.strField("topic", e.Topic)
			w.close()
		}
		w.b = append(w.b, ']')
	}
	w.close()
	return w.b
}

// DecodeResetOffsetBodyForC reads the body.
func DecodeResetOffsetBodyForC(data []byte) (*ResetOffsetBodyForC, error) {
	var raw struct {
		OffsetTable []MessageQueueForC `json:"offsetTable"`
	}
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: reset offset for c: %w", err)
	}
	return &ResetOffsetBodyForC{OffsetTable: raw.OffsetTable}, nil
}

// QueueTimeSpan mirrors body/QueueTimeSpan. fastjson also writes its three
// *Str getters: the times formatted "yyyy-MM-dd#HH:mm:ss:SSS" in the
// broker's local time zone (Location; nil means time.Local).
type QueueTimeSpan struct {
	MessageQueue     MessageQueue `json:"messageQueue"`
	MinTimeStamp     int64        `json:"minTimeStamp"`
	MaxTimeStamp     int64        `json:"maxTimeStamp"`
	ConsumeTimeStamp int64        `json:"consumeTimeStamp"`
	DelayTime        int64        `json:"delayTime"`
}

// QueryConsumeTimeSpanBody is the QUERY_CONSUME_TIME_SPAN answer.
type QueryConsumeTimeSpanBody struct {
	ConsumeTimeSpanSet []QueueTimeSpan
	Location           *time.Location
}

// Encode writes the fastjson form, spans in list order.
func (q *QueryConsumeTimeSpanBody) Encode() []byte {
	loc := q.Location
	if loc == nil {
		loc = time.Local
	}
	w := &beanWriter{}
	w.open()
	w.key("consumeTimeSpanSet")
	w.b = append(w.b, '[')
	for i, s := range q.ConsumeTimeSpanSet {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.open()
		w.intField("consumeTimeStamp", s.ConsumeTimeStamp)
		w.strField("consumeTimeStampStr", javaDateString(s.ConsumeTimeStamp, loc))
		w.intField("delayTime", s.DelayTime)
		w.intField("maxTimeStamp", s.MaxTimeStamp)
		w.strField("maxTimeStampStr", javaDateString(s.MaxTimeStamp, loc))
		w.key("messageQueue")
		s.MessageQueue.appendJSON(w)
		w.intField("minTimeStamp", s.MinTimeStamp)
		w.strField("minTimeStampStr", javaDateString(s.MinTimeStamp, loc))
		w.close()
	}
	w.b = append(w.b, ']')
	w.close()
	return w.b
}

// DecodeQueryConsumeTimeSpanBody reads the body (the *Str fields are ignored).
func DecodeQueryConsumeTimeSpanBody(data []byte) (*QueryConsumeTimeSpanBody, error) {
	var raw struct {
		ConsumeTimeSpanSet []QueueTimeSpan `json:"consumeTimeSpanSet"`
	}
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: consume time span: %w", err)
	}
	return &QueryConsumeTimeSpanBody{ConsumeTimeSpanSet: raw.ConsumeTimeSpanSet}, nil
}

// javaDateString is SimpleDateFormat("yyyy-MM-dd#HH:mm:ss:SSS").
func javaDateString(ms int64, loc *time.Location) string {
	t := time.UnixMilli(ms).In(loc)
	return t.Format("2006-01-02#15:04:05") + fmt.Sprintf(":%03d", t.Nanosecond()/1e6)
}

// ProcessQueueInfo mirrors body/ProcessQueueInfo (a consumer's view of one queue).
type ProcessQueueInfo struct {
	CommitOffset            int64 `json:"commitOffset"`
	CachedMsgMinOffset      int64 `json:"cachedMsgMinOffset"`
	CachedMsgMaxOffset      int64 `json:"cachedMsgMaxOffset"`
	CachedMsgCount          int32 `json:"cachedMsgCount"`
	CachedMsgSizeInMiB      int32 `json:"cachedMsgSizeInMiB"`
	TransactionMsgMinOffset int64 `json:"transactionMsgMinOffset"`
	TransactionMsgMaxOffset int64 `json:"transactionMsgMaxOffset"`
	TransactionMsgCount     int32 `json:"transactionMsgCount"`
	Locked                  bool  `json:"locked"`
	TryUnlockTimes          int64 `json:"tryUnlockTimes"`
	LastLockTimestamp       int64 `json:"lastLockTimestamp"`
	Droped                  bool  `json:"droped"`
	LastPullTimestamp       int64 `json:"lastPullTimestamp"`
	LastConsumeTimestamp    int64 `json:"lastConsumeTimestamp"`
}

// ConsumeStatus mirrors body/ConsumeStatus.
type ConsumeStatus struct {
	PullRT            float64 `json:"pullRT"`
	PullTPS           float64 `json:"pullTPS"`
	ConsumeRT         float64 `json:"consumeRT"`
	ConsumeOKTPS      float64 `json:"consumeOKTPS"`
	ConsumeFailedTPS  float64 `json:"consumeFailedTPS"`
	ConsumeFailedMsgs int64   `json:"consumeFailedMsgs"`
}

// ConsumerRunningInfo is a client's GET_CONSUMER_RUNNING_INFO answer, which
// the broker relays to the admin tool untouched; decoded for inspection.
type ConsumerRunningInfo struct {
	Properties      map[string]string
	SubscriptionSet []SubscriptionData
	MqTable         map[MessageQueue]ProcessQueueInfo
	StatusTable     map[string]ConsumeStatus
	Jstack          string
}

// DecodeConsumerRunningInfo reads the body (fastjson MessageQueue keys accepted).
func DecodeConsumerRunningInfo(data []byte) (*ConsumerRunningInfo, error) {
	var raw struct {
		Properties      map[string]any              `json:"properties"`
		SubscriptionSet []rawSubscriptionData       `json:"subscriptionSet"`
		MqTable         map[string]ProcessQueueInfo `json:"mqTable"`
		StatusTable     map[string]ConsumeStatus    `json:"statusTable"`
		Jstack          string                      `json:"jstack"`
	}
	if err := decodeFastjsonNumbers(data, &raw); err != nil {
		return nil, fmt.Errorf("body: consumer running info: %w", err)
	}
	info := &ConsumerRunningInfo{Properties: map[string]string{}, StatusTable: raw.StatusTable, Jstack: raw.Jstack}
	for k, v := range raw.Properties {
		info.Properties[k] = anyString(v)
	}
	for _, rs := range raw.SubscriptionSet {
		info.SubscriptionSet = append(info.SubscriptionSet, rs.convert())
	}
	mq, err := mqKeyed(raw.MqTable)
	if err != nil {
		return nil, err
	}
	info.MqTable = mq
	return info, nil
}

func anyString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
