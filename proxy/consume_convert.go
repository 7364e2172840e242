package proxy

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/hex"
	"io"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// Property names used on the consume side that internal/message does not
// list (5.x MessageConst).
const (
	propPopCK             = "POP_CK"
	propTimerDelaySec     = "TIMER_DELAY_SEC"
	propTimerDeliverMS    = "TIMER_DELIVER_MS"
	propBornHost          = "__BORNHOST"
	propTraceContext      = "TRACE_CONTEXT"
	propDLQOriginTopic    = "DLQ_ORIGIN_TOPIC"
	propDLQOriginMsgID    = "DLQ_ORIGIN_MESSAGE_ID"
	maxDecompressedBodyMB = 64
)

// systemPropertyNames are the properties 5.x keeps out of a gRPC message's
// user_properties (MessageConst.STRING_HASH_SET of 5.3). __SHARDINGKEY,
// TRACE_CONTEXT and __transactionId__ are not in it, so 5.x shows them as user
// properties too; so do we.
var systemPropertyNames = func() map[string]struct{} {
	names := []string{
		"TRACE_ON", "MSG_REGION", "KEYS", "TAGS", "WAIT", "DELAY", "RETRY_TOPIC", "REAL_TOPIC", "REAL_QID",
		"TRAN_MSG", "PGROUP", "MIN_OFFSET", "MAX_OFFSET", "BUYER_ID", "ORIGIN_MESSAGE_ID", "TRANSFER_FLAG",
		"CORRECTION_FLAG", "MQ2_FLAG", "RECONSUME_TIME", "UNIQ_KEY", "MAX_RECONSUME_TIMES", "CONSUME_START_TIME",
		"POP_CK", "POP_CK_OFFSET", "1ST_POP_TIME", "TRAN_PREPARED_QUEUE_OFFSET", "DUP_INFO", "EXTEND_UNIQ_INFO",
		"INSTANCE_ID", "CORRELATION_ID", "REPLY_TO_CLIENT", "TTL", "ARRIVE_TIME", "PUSH_REPLY_TIME", "CLUSTER",
		"MSG_TYPE", "INNER_MULTI_QUEUE_OFFSET", "TIMER_DELAY_MS", "TIMER_DELAY_SEC", "TIMER_DELIVER_MS",
		"TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS", "TIMER_ROLL_TIMES", "TIMER_OUT_MS", "TIMER_DEL_UNIQKEY",
		"TIMER_DELAY_LEVEL", "__BORNHOST", "BORN_TIMESTAMP", "DLQ_ORIGIN_TOPIC", "DLQ_ORIGIN_MESSAGE_ID", "__CRC32#",
	}
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}()

// toV2Message converts a stored message, as a POP answer returns it, into
// the v2 Message a gRPC consumer receives, filling the system properties as
// 5.x's GrpcConverter.buildMessage does. The receipt handle is taken from the
// POP_CK property, which the receive path sets to the full handle first.
//
// One deliberate difference: a body stored compressed (by a remoting
// producer, with zlib) is inflated here and sent with IDENTITY encoding,
// because 5.x would label those zlib bytes GZIP and a 5.x SDK would fail to
// decode them.
func toV2Message(m *message.MessageExt, now int64) *apiv2.Message {
	props := m.Properties
	user := make(map[string]string, len(props))
	for k, v := range props {
		if _, sys := systemPropertyNames[k]; !sys {
			user[k] = v
		}
	}
	body := m.Body
	if m.SysFlag&message.SysFlagCompressed != 0 {
		if b, err := inflate(body); err == nil {
			body = b
		}
	}
	return &apiv2.Message{
		Topic:            &apiv2.Resource{Name: m.Topic},
		UserProperties:   user,
		SystemProperties: toV2SystemProperties(m, body, now),
		Body:             body,
	}
}

func toV2SystemProperties(m *message.MessageExt, body []byte, now int64) *apiv2.SystemProperties {
	props := m.Properties
	sp := &apiv2.SystemProperties{
		MessageId:      messageIDOf(m),
		BodyEncoding:   apiv2.Encoding_IDENTITY,
		MessageType:    messageTypeOf(props),
		BornTimestamp:  timestamppb.New(time.UnixMilli(m.BornTimestamp)),
		StoreTimestamp: timestamppb.New(time.UnixMilli(m.StoreTimestamp)),
		QueueId:        m.QueueID,
	}
	sum := md5.Sum(body)
	sp.BodyDigest = &apiv2.Digest{Type: apiv2.DigestType_MD5, Checksum: strings.ToUpper(hex.EncodeToString(sum[:]))}
	if tag, ok := props[message.PropertyTags]; ok {
		sp.Tag = &tag
	}
	if keys, ok := props[message.PropertyKeys]; ok {
		sp.Keys = strings.Split(keys, " ")
	}
	if h := props[propBornHost]; strings.TrimSpace(h) != "" {
		sp.BornHost = h
	} else if m.BornHost.IsValid() {
		sp.BornHost = m.BornHost.Addr().Unmap().String()
	}
	if m.StoreHost.IsValid() {
		sp.StoreHost = m.StoreHost.Addr().Unmap().String() + ":" + strconv.Itoa(int(m.StoreHost.Port()))
	}
	if ms, ok := deliveryTimeOf(props, now); ok {
		sp.DeliveryTimestamp = timestamppb.New(time.UnixMilli(ms))
	}
	if g, ok := props[message.PropertyShardingKey]; ok {
		sp.MessageGroup = &g
	}
	if h, ok := props[propPopCK]; ok {
		sp.ReceiptHandle = &h
	}
	off := m.QueueOffset
	sp.QueueOffset = &off
	attempt := m.ReconsumeTimes + 1
	sp.DeliveryAttempt = &attempt
	if tc, ok := props[propTraceContext]; ok {
		sp.TraceContext = &tc
	}
	topic, okT := props[propDLQOriginTopic]
	id, okID := props[propDLQOriginMsgID]
	if okT && okID {
		sp.DeadLetterQueue = &apiv2.DeadLetterQueue{Topic: topic, MessageId: id}
	}
	return sp
}

// messageIDOf is the client's message id (UNIQ_KEY), else the offset id.
func messageIDOf(m *message.MessageExt) string {
	if id, ok := m.Properties[message.PropertyUniqClientMessageIDKeyidx]; ok {
		return id
	}
	if m.MsgID != "" {
		return m.MsgID
	}
	if m.StoreHost.IsValid() {
		return message.OffsetMsgID(m.StoreHost, m.CommitLogOffset)
	}
	return ""
}

// messageTypeOf classifies a message the way 5.x's converter does, first
// match wins: transactional, delayed (level or timer), FIFO (has a message
// group), normal.
func messageTypeOf(props map[string]string) apiv2.MessageType {
	has := func(k string) bool { _, ok := props[k]; return ok }
	switch {
	case props[message.PropertyTransactionPrepared] == "true":
		return apiv2.MessageType_TRANSACTION
	case has(message.PropertyDelayTimeLevel) || has(propTimerDeliverMS) || has(propTimerDelaySec):
		return apiv2.MessageType_DELAY
	case has(message.PropertyShardingKey):
		return apiv2.MessageType_FIFO
	}
	return apiv2.MessageType_NORMAL
}

// deliveryTimeOf is the delivery timestamp 5.x reports: now + TIMER_DELAY_SEC,
// else TIMER_DELIVER_MS. A value that does not parse gives none (5.x would
// fail the whole receive on it).
func deliveryTimeOf(props map[string]string, now int64) (int64, bool) {
	if s, ok := props[propTimerDelaySec]; ok {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		return now + sec*1000, true
	}
	if s, ok := props[propTimerDeliverMS]; ok {
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		return ms, true
	}
	return 0, false
}

// inflate undoes the zlib compression of remoting producers, refusing
// bodies that grow past a bound.
func inflate(b []byte) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, maxDecompressedBodyMB<<20))
}

// filterExpressionOf maps a v2 FilterExpression to the expression type and
// text of a POP_MESSAGE header: SQL → SQL92, anything else → TAG; an empty
// tag expression subscribes to everything ("*"), as FilterAPI.build does.
func filterExpressionOf(fe *apiv2.FilterExpression) (exprType, expr string) {
	expr = fe.GetExpression()
	if fe.GetType() == apiv2.FilterType_SQL {
		return "SQL92", expr
	}
	if expr == "" {
		expr = "*"
	}
	return "TAG", expr
}
