package header

// Client-management headers: unregister, consumer lists and notifications,
// send-back of failed messages, and the broker-to-client admin calls (Java
// 4.9.8 classes of the same names).

// UnregisterClientRequestHeader is UNREGISTER_CLIENT (35). Note the key
// "clientID" (upper-case ID), as Java spells the field.
type UnregisterClientRequestHeader struct {
	ClientID      string `ext:"clientID,required"`
	ProducerGroup string `ext:"producerGroup"`
	ConsumerGroup string `ext:"consumerGroup"`
}

// UnregisterClientResponseHeader answers UNREGISTER_CLIENT (no fields).
type UnregisterClientResponseHeader struct{}

// GetConsumerListByGroupRequestHeader is GET_CONSUMER_LIST_BY_GROUP (38).
type GetConsumerListByGroupRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
}

// GetConsumerListByGroupResponseHeader answers GET_CONSUMER_LIST_BY_GROUP
// (no fields; the list is the body).
type GetConsumerListByGroupResponseHeader struct{}

// NotifyConsumerIdsChangedRequestHeader is the broker-to-client
// NOTIFY_CONSUMER_IDS_CHANGED (40).
type NotifyConsumerIdsChangedRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
}

// ConsumerSendMsgBackRequestHeader is CONSUMER_SEND_MSG_BACK (36).
type ConsumerSendMsgBackRequestHeader struct {
	Offset            int64  `ext:"offset,required"`
	Group             string `ext:"group,required"`
	DelayLevel        int32  `ext:"delayLevel,required"`
	OriginMsgID       string `ext:"originMsgId"`
	OriginTopic       string `ext:"originTopic"`
	UnitMode          bool   `ext:"unitMode"`
	MaxReconsumeTimes *int32 `ext:"maxReconsumeTimes"`
	Bname             string `ext:"bname"`
}

// GetConsumerRunningInfoRequestHeader is GET_CONSUMER_RUNNING_INFO (307),
// forwarded by the broker to the client.
type GetConsumerRunningInfoRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
	ClientID      string `ext:"clientId,required"`
	JstackEnable  bool   `ext:"jstackEnable"`
}

// ConsumeMessageDirectlyResultRequestHeader is CONSUME_MESSAGE_DIRECTLY
// (309), forwarded by the broker to the client (the broker adds brokerName).
type ConsumeMessageDirectlyResultRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
	ClientID      string `ext:"clientId"`
	MsgID         string `ext:"msgId"`
	BrokerName    string `ext:"brokerName"`
}

// GetConsumerStatusRequestHeader is INVOKE_BROKER_TO_GET_CONSUMER_STATUS
// (223) and the broker-to-client GET_CONSUMER_STATUS_FROM_CLIENT (221).
type GetConsumerStatusRequestHeader struct {
	Topic      string `ext:"topic,required"`
	Group      string `ext:"group,required"`
	ClientAddr string `ext:"clientAddr"`
}

// ToExtFields implements CommandCustomHeader.
func (h *UnregisterClientRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *UnregisterClientRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *UnregisterClientResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *UnregisterClientResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetConsumerListByGroupRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetConsumerListByGroupRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetConsumerListByGroupResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetConsumerListByGroupResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *NotifyConsumerIdsChangedRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *NotifyConsumerIdsChangedRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *ConsumerSendMsgBackRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ConsumerSendMsgBackRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetConsumerRunningInfoRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetConsumerRunningInfoRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *ConsumeMessageDirectlyResultRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ConsumeMessageDirectlyResultRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetConsumerStatusRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetConsumerStatusRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}
