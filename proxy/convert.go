package proxy

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
)

// Message properties of 5.x that 4.9.8's MessageConst lacks.
const (
	propTimerDeliverMs      = "TIMER_DELIVER_MS"
	propTimerDelaySec       = "TIMER_DELAY_SEC"
	propTimerDelayMs        = "TIMER_DELAY_MS"
	propBornHost            = "__BORNHOST"
	propBornTimestamp       = "BORN_TIMESTAMP"
	propTraceContext        = "TRACE_CONTEXT"
	propPopCK               = "POP_CK"
	propDLQOriginTopic      = "DLQ_ORIGIN_TOPIC"
	propDLQOriginMessageID  = "DLQ_ORIGIN_MESSAGE_ID"
	compressedFlag          = 0x1 // MessageSysFlag.COMPRESSED_FLAG
	transactionPreparedType = 0x1 << 2
	transactionCommitType   = 0x2 << 2
	transactionRollbackType = 0x3 << 2
	transactionNotType      = 0
	defaultTopic            = "TBW102"
	defaultTopicQueueNums   = 4
	keySeparator            = " "
	systemPropertyCount     = 64
)

// systemProperties is 5.x's MessageConst.STRING_HASH_SET: property names a
// client may not set as user properties and that are not shown as such.
var systemProperties = func() map[string]bool {
	m := make(map[string]bool, systemPropertyCount)
	for _, p := range []string{
		"TRACE_ON", "MSG_REGION", "KEYS", "TAGS", "WAIT", "DELAY", "RETRY_TOPIC", "REAL_TOPIC", "REAL_QID",
		"TRAN_MSG", "PGROUP", "MIN_OFFSET", "MAX_OFFSET", "BUYER_ID", "ORIGIN_MESSAGE_ID", "TRANSFER_FLAG",
		"CORRECTION_FLAG", "MQ2_FLAG", "RECONSUME_TIME", "UNIQ_KEY", "MAX_RECONSUME_TIMES", "CONSUME_START_TIME",
		"POP_CK", "POP_CK_OFFSET", "1ST_POP_TIME", "TRAN_PREPARED_QUEUE_OFFSET", "DUP_INFO", "EXTEND_UNIQ_INFO",
		"INSTANCE_ID", "CORRELATION_ID", "REPLY_TO_CLIENT", "TTL", "ARRIVE_TIME", "PUSH_REPLY_TIME", "CLUSTER",
		"MSG_TYPE", "INNER_MULTI_QUEUE_OFFSET", "TIMER_DELAY_MS", "TIMER_DELAY_SEC", "TIMER_DELIVER_MS",
		"TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS", "TIMER_ROLL_TIMES", "TIMER_OUT_MS", "TIMER_DEL_UNIQKEY",
		"TIMER_DELAY_LEVEL", "__BORNHOST", "BORN_TIMESTAMP", "DLQ_ORIGIN_TOPIC", "DLQ_ORIGIN_MESSAGE_ID", "__CRC32#",
	} {
		m[p] = true
	}
	return m
}()

// ProtoMessage converts a stored message into the protocol's Message as
// 5.x's GrpcConverter.buildMessage does (user properties are the
// non-system ones; message id is UNIQ_KEY; body digest MD5).
func ProtoMessage(m *message.MessageExt) *apiv2.Message {
	props := m.Properties
	user := map[string]string{}
	for k, v := range props {
		if !systemProperties[k] {
			user[k] = v
		}
	}
	sp := &apiv2.SystemProperties{}
	if tag, ok := props[message.PropertyTags]; ok {
		sp.Tag = &tag
	}
	if keys, ok := props[message.PropertyKeys]; ok {
		sp.Keys = strings.Split(keys, keySeparator)
	}
	sp.MessageId = props[message.PropertyUniqClientMessageIDKeyidx]
	sum := md5.Sum(m.Body)
	sp.BodyDigest = &apiv2.Digest{Type: apiv2.DigestType_MD5, Checksum: strings.ToUpper(hex.EncodeToString(sum[:]))}
	sp.BodyEncoding = apiv2.Encoding_IDENTITY
	if m.SysFlag&compressedFlag != 0 {
		sp.BodyEncoding = apiv2.Encoding_GZIP
	}
	sp.MessageType = messageTypeOf(props)
	sp.BornTimestamp = timestamppb.New(time.UnixMilli(m.BornTimestamp))
	sp.BornHost = props[propBornHost]
	if sp.BornHost == "" && m.BornHost.IsValid() {
		sp.BornHost = m.BornHost.String()
	}
	sp.StoreTimestamp = timestamppb.New(time.UnixMilli(m.StoreTimestamp))
	if m.StoreHost.IsValid() {
		sp.StoreHost = m.StoreHost.String()
	}
	if sec, err := strconv.ParseInt(props[propTimerDelaySec], 10, 64); err == nil {
		sp.DeliveryTimestamp = timestamppb.New(time.Now().Add(time.Duration(sec) * time.Second))
	} else if ms, err := strconv.ParseInt(props[propTimerDeliverMs], 10, 64); err == nil {
		sp.DeliveryTimestamp = timestamppb.New(time.UnixMilli(ms))
	}
	if g, ok := props[message.PropertyShardingKey]; ok {
		sp.MessageGroup = &g
	}
	if h, ok := props[propPopCK]; ok {
		sp.ReceiptHandle = &h
	}
	sp.QueueId = m.QueueID
	off := m.QueueOffset
	sp.QueueOffset = &off
	attempt := m.ReconsumeTimes + 1
	sp.DeliveryAttempt = &attempt
	if tc, ok := props[propTraceContext]; ok {
		sp.TraceContext = &tc
	}
	if t, id := props[propDLQOriginTopic], props[propDLQOriginMessageID]; t != "" && id != "" {
		sp.DeadLetterQueue = &apiv2.DeadLetterQueue{Topic: t, MessageId: id}
	}
	return &apiv2.Message{
		Topic:            &apiv2.Resource{Name: m.Topic},
		UserProperties:   user,
		SystemProperties: sp,
		Body:             m.Body,
	}
}

func messageTypeOf(props map[string]string) apiv2.MessageType {
	switch {
	case props[message.PropertyTransactionPrepared] == "true":
		return apiv2.MessageType_TRANSACTION
	case props[message.PropertyDelayTimeLevel] != "" || props[propTimerDeliverMs] != "" || props[propTimerDelaySec] != "":
		return apiv2.MessageType_DELAY
	case props[message.PropertyShardingKey] != "":
		return apiv2.MessageType_FIFO
	default:
		return apiv2.MessageType_NORMAL
	}
}
