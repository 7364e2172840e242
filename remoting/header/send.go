package header

import "github.com/rocketmq-go/rmq/remoting/code"

// Send headers. They mirror Java 4.9.8's SendMessageRequestHeader,
// SendMessageRequestHeaderV2 (one-letter keys), SendMessageResponseHeader
// and ReplyMessageRequestHeader.

// SendMessageRequestHeader is SEND_MESSAGE (10) and SEND_REPLY_MESSAGE (324)
// with full key names; processors work on this form for every send code.
type SendMessageRequestHeader struct {
	ProducerGroup         string `ext:"producerGroup,required"`
	Topic                 string `ext:"topic,required"`
	DefaultTopic          string `ext:"defaultTopic,required"`
	DefaultTopicQueueNums int32  `ext:"defaultTopicQueueNums,required"`
	QueueID               int32  `ext:"queueId,required"`
	SysFlag               int32  `ext:"sysFlag,required"`
	BornTimestamp         int64  `ext:"bornTimestamp,required"`
	Flag                  int32  `ext:"flag,required"`
	Properties            string `ext:"properties"`
	ReconsumeTimes        *int32 `ext:"reconsumeTimes"`
	UnitMode              bool   `ext:"unitMode"`
	Batch                 bool   `ext:"batch"`
	MaxReconsumeTimes     *int32 `ext:"maxReconsumeTimes"`
	// Bname is RpcRequestHeader's broker name ("bname").
	Bname string `ext:"bname"`
}

// SendMessageRequestHeaderV2 is SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE
// (320) and SEND_REPLY_MESSAGE_V2 (325): the V1 fields under keys a..n.
type SendMessageRequestHeaderV2 struct {
	ProducerGroup         string `ext:"a,required"`
	Topic                 string `ext:"b,required"`
	DefaultTopic          string `ext:"c,required"`
	DefaultTopicQueueNums int32  `ext:"d,required"`
	QueueID               int32  `ext:"e,required"`
	SysFlag               int32  `ext:"f,required"`
	BornTimestamp         int64  `ext:"g,required"`
	Flag                  int32  `ext:"h,required"`
	Properties            string `ext:"i"`
	ReconsumeTimes        *int32 `ext:"j"`
	UnitMode              bool   `ext:"k"`
	MaxReconsumeTimes     *int32 `ext:"l"`
	Batch                 bool   `ext:"m"`
	BrokerName            string `ext:"n"`
}

// CreateSendMessageRequestHeaderV1 converts a V2 header to the V1 form, as
// Java's SendMessageRequestHeaderV2.createSendMessageRequestHeaderV1 does
// (key n becomes bname).
func CreateSendMessageRequestHeaderV1(v2 *SendMessageRequestHeaderV2) *SendMessageRequestHeader {
	return &SendMessageRequestHeader{
		ProducerGroup: v2.ProducerGroup, Topic: v2.Topic, DefaultTopic: v2.DefaultTopic,
		DefaultTopicQueueNums: v2.DefaultTopicQueueNums, QueueID: v2.QueueID, SysFlag: v2.SysFlag,
		BornTimestamp: v2.BornTimestamp, Flag: v2.Flag, Properties: v2.Properties,
		ReconsumeTimes: copyInt32(v2.ReconsumeTimes), UnitMode: v2.UnitMode,
		MaxReconsumeTimes: copyInt32(v2.MaxReconsumeTimes), Batch: v2.Batch, Bname: v2.BrokerName,
	}
}

// CreateSendMessageRequestHeaderV2 converts a V1 header to the V2 form
// (Java's createSendMessageRequestHeaderV2; bname becomes key n).
func CreateSendMessageRequestHeaderV2(v1 *SendMessageRequestHeader) *SendMessageRequestHeaderV2 {
	return &SendMessageRequestHeaderV2{
		ProducerGroup: v1.ProducerGroup, Topic: v1.Topic, DefaultTopic: v1.DefaultTopic,
		DefaultTopicQueueNums: v1.DefaultTopicQueueNums, QueueID: v1.QueueID, SysFlag: v1.SysFlag,
		BornTimestamp: v1.BornTimestamp, Flag: v1.Flag, Properties: v1.Properties,
		ReconsumeTimes: copyInt32(v1.ReconsumeTimes), UnitMode: v1.UnitMode,
		MaxReconsumeTimes: copyInt32(v1.MaxReconsumeTimes), Batch: v1.Batch, BrokerName: v1.Bname,
	}
}

func copyInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// DecodeSendMessageRequestHeader reads the send header of a send request
// the way AbstractSendMessageProcessor.parseRequestHeader and
// ReplyMessageProcessor.parseRequestHeader do: the V2 codes (310, 320, 325)
// carry one-letter keys and are converted to V1; 10 and 324 carry V1 keys.
// Any other code yields (nil, nil), as Java returns null.
func DecodeSendMessageRequestHeader(reqCode int32, ext map[string]string) (*SendMessageRequestHeader, error) {
	switch reqCode {
	case code.SendMessageV2, code.SendBatchMessage, code.SendReplyMessageV2:
		v1 := new(SendMessageRequestHeader)
		if err := v1.fromV2ExtFields(ext); err != nil {
			return nil, err
		}
		return v1, nil
	case code.SendMessage, code.SendReplyMessage:
		v1 := new(SendMessageRequestHeader)
		if err := v1.FromExtFields(ext); err != nil {
			return nil, err
		}
		return v1, nil
	default:
		return nil, nil
	}
}

// SendMessageResponseHeader answers every send code. MsgID is the
// offsetMsgId (comma-separated for a batch). BatchUniqID and RecallHandle
// are 5.x optional keys.
type SendMessageResponseHeader struct {
	MsgID         string `ext:"msgId,required"`
	QueueID       int32  `ext:"queueId,required"`
	QueueOffset   int64  `ext:"queueOffset,required"`
	TransactionID string `ext:"transactionId"`
	BatchUniqID   string `ext:"batchUniqId"`
	RecallHandle  string `ext:"recallHandle"`
}

// ReplyMessageRequestHeader is PUSH_REPLY_MESSAGE_TO_CLIENT (326), the
// broker-to-requester push of a reply message.
type ReplyMessageRequestHeader struct {
	ProducerGroup         string `ext:"producerGroup,required"`
	Topic                 string `ext:"topic,required"`
	DefaultTopic          string `ext:"defaultTopic,required"`
	DefaultTopicQueueNums int32  `ext:"defaultTopicQueueNums,required"`
	QueueID               int32  `ext:"queueId,required"`
	SysFlag               int32  `ext:"sysFlag,required"`
	BornTimestamp         int64  `ext:"bornTimestamp,required"`
	Flag                  int32  `ext:"flag,required"`
	Properties            string `ext:"properties"`
	ReconsumeTimes        *int32 `ext:"reconsumeTimes"`
	UnitMode              bool   `ext:"unitMode"`
	BornHost              string `ext:"bornHost,required"`
	StoreHost             string `ext:"storeHost,required"`
	StoreTimestamp        int64  `ext:"storeTimestamp,required"`
}

// ToExtFields implements CommandCustomHeader.
func (h *ReplyMessageRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ReplyMessageRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }
