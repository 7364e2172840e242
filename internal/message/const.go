package message

// Property names (Java org.apache.rocketmq.common.message.MessageConst).
const (
	PropertyKeys                           = "KEYS"
	PropertyTags                           = "TAGS"
	PropertyWaitStoreMsgOK                 = "WAIT"
	PropertyDelayTimeLevel                 = "DELAY"
	PropertyRetryTopic                     = "RETRY_TOPIC"
	PropertyRealTopic                      = "REAL_TOPIC"
	PropertyRealQueueID                    = "REAL_QID"
	PropertyTransactionPrepared            = "TRAN_MSG"
	PropertyProducerGroup                  = "PGROUP"
	PropertyMinOffset                      = "MIN_OFFSET"
	PropertyMaxOffset                      = "MAX_OFFSET"
	PropertyBuyerID                        = "BUYER_ID"
	PropertyOriginMessageID                = "ORIGIN_MESSAGE_ID"
	PropertyTransferFlag                   = "TRANSFER_FLAG"
	PropertyCorrectionFlag                 = "CORRECTION_FLAG"
	PropertyMQ2Flag                        = "MQ2_FLAG"
	PropertyReconsumeTime                  = "RECONSUME_TIME"
	PropertyMsgRegion                      = "MSG_REGION"
	PropertyTraceSwitch                    = "TRACE_ON"
	PropertyUniqClientMessageIDKeyidx      = "UNIQ_KEY"
	PropertyMaxReconsumeTimes              = "MAX_RECONSUME_TIMES"
	PropertyConsumeStartTimestamp          = "CONSUME_START_TIME"
	PropertyTransactionPreparedQueueOffset = "TRAN_PREPARED_QUEUE_OFFSET"
	PropertyTransactionCheckTimes          = "TRANSACTION_CHECK_TIMES"
	PropertyCheckImmunityTimeInSeconds     = "CHECK_IMMUNITY_TIME_IN_SECONDS"
	PropertyInstanceID                     = "INSTANCE_ID"
	PropertyCorrelationID                  = "CORRELATION_ID"
	PropertyMessageReplyToClient           = "REPLY_TO_CLIENT"
	PropertyMessageTTL                     = "TTL"
	PropertyReplyMessageArriveTime         = "ARRIVE_TIME"
	PropertyPushReplyTime                  = "PUSH_REPLY_TIME"
	PropertyCluster                        = "CLUSTER"
	PropertyMessageType                    = "MSG_TYPE"
	PropertyInnerMultiDispatch             = "INNER_MULTI_DISPATCH"
	PropertyInnerMultiQueueOffset          = "INNER_MULTI_QUEUE_OFFSET"
	PropertyTransactionID                  = "__transactionId__"
	PropertyShardingKey                    = "__SHARDINGKEY"
)

// Separators of the properties string (MessageDecoder.NAME_VALUE_SEPARATOR /
// PROPERTY_SEPARATOR).
const (
	NameValueSeparator = '\x01'
	PropertySeparator  = '\x02'
)

// Record magic codes (MessageDecoder / CommitLog).
const (
	MagicCode      int32 = -626843481 // 0xDAA320A7, MESSAGE_MAGIC_CODE
	BlankMagicCode int32 = -875286124 // 0xCBD43194, BLANK_MAGIC_CODE
)

// Well-known system topics the store treats specially.
const (
	ScheduleTopic = "SCHEDULE_TOPIC_XXXX" // TopicValidator.RMQ_SYS_SCHEDULE_TOPIC
)

// Limits of the record format.
const (
	MaxTopicLength      = 127   // topic length is a signed byte (magic V1)
	MaxPropertiesLength = 32767 // properties length is an i16
)
