package header

// POP headers (5.x): PopMessageRequestHeader / PopMessageResponseHeader,
// AckMessageRequestHeader, ChangeInvisibleTimeRequestHeader /
// ChangeInvisibleTimeResponseHeader (remoting/protocol/header of
// rocketmq-all-5.3.x). The request headers extend TopicQueueRequestHeader,
// whose RpcRequestHeader part adds the optional "bname".

// PopMessageRequestHeader is POP_MESSAGE (200050).
type PopMessageRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
	Topic         string `ext:"topic,required"`
	// QueueID < 0 pops from every readable queue of the topic.
	QueueID int32 `ext:"queueId,required"`
	// MaxMsgNums is at most 32.
	MaxMsgNums int32 `ext:"maxMsgNums,required"`
	// InvisibleTime (ms) is how long popped messages stay hidden.
	InvisibleTime int64 `ext:"invisibleTime,required"`
	// PollTime (ms) is how long an empty pop may be held (long polling).
	PollTime int64 `ext:"pollTime,required"`
	// BornTime (ms) is when the client sent the request; the broker fills
	// it with its own clock when absent or 0.
	BornTime int64 `ext:"bornTime,required"`
	// InitMode is ConsumeInitMode: 0 = MIN (from the first message), 1 =
	// MAX (from the last one) for a group without an offset.
	InitMode int32  `ext:"initMode,required"`
	ExpType  string `ext:"expType"`
	Exp      string `ext:"exp"`
	// Order is FIFO pop; Java's Boolean.FALSE default is written.
	Order     bool   `ext:"order"`
	AttemptID string `ext:"attemptId"`
	Bname     string `ext:"bname"`
}

// PopMessageResponseHeader answers POP_MESSAGE. The four numbers are Java
// primitives and therefore always present, even on error answers.
type PopMessageResponseHeader struct {
	PopTime       int64 `ext:"popTime,required"`
	InvisibleTime int64 `ext:"invisibleTime,required"`
	ReviveQid     int32 `ext:"reviveQid,required"`
	// RestNum is how many messages are left in the queues looked at.
	RestNum         int64   `ext:"restNum,required"`
	StartOffsetInfo *string `ext:"startOffsetInfo"`
	MsgOffsetInfo   *string `ext:"msgOffsetInfo"`
	OrderCountInfo  *string `ext:"orderCountInfo"`
}

// AckMessageRequestHeader is ACK_MESSAGE (200051).
type AckMessageRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
	Topic         string `ext:"topic,required"`
	QueueID       int32  `ext:"queueId,required"`
	// ExtraInfo is the message's POP_CK property (the receipt handle).
	ExtraInfo string `ext:"extraInfo,required"`
	// Offset is the acknowledged message's queue offset.
	Offset int64  `ext:"offset,required"`
	Bname  string `ext:"bname"`
}

// ChangeInvisibleTimeRequestHeader is CHANGE_MESSAGE_INVISIBLETIME (200053).
type ChangeInvisibleTimeRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
	Topic         string `ext:"topic,required"`
	QueueID       int32  `ext:"queueId,required"`
	ExtraInfo     string `ext:"extraInfo,required"`
	Offset        int64  `ext:"offset,required"`
	// InvisibleTime (ms) counts from now.
	InvisibleTime int64  `ext:"invisibleTime,required"`
	Bname         string `ext:"bname"`
}

// ChangeInvisibleTimeResponseHeader answers CHANGE_MESSAGE_INVISIBLETIME: the
// new pop time and invisible time, from which the caller builds the
// message's new receipt handle (ExtraInfo).
type ChangeInvisibleTimeResponseHeader struct {
	PopTime       int64 `ext:"popTime,required"`
	InvisibleTime int64 `ext:"invisibleTime,required"`
	ReviveQid     int32 `ext:"reviveQid,required"`
}

// ToExtFields implements CommandCustomHeader.
func (h *PopMessageRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *PopMessageRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *PopMessageResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *PopMessageResponseHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *AckMessageRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *AckMessageRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *ChangeInvisibleTimeRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ChangeInvisibleTimeRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *ChangeInvisibleTimeResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ChangeInvisibleTimeResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// NotificationRequestHeader is NOTIFICATION (200054): does the group have a
// message to pop (waiting up to pollTime)?
type NotificationRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
	Topic         string `ext:"topic,required"`
	QueueID       int32  `ext:"queueId,required"`
	PollTime      int64  `ext:"pollTime,required"`
	BornTime      int64  `ext:"bornTime,required"`
	Order         bool   `ext:"order"`
	AttemptID     string `ext:"attemptId"`
	Bname         string `ext:"bname"`
}

// NotificationResponseHeader answers NOTIFICATION (both Java primitives).
type NotificationResponseHeader struct {
	HasMsg      bool `ext:"hasMsg,required"`
	PollingFull bool `ext:"pollingFull"`
}

// PeekMessageRequestHeader is PEEK_MESSAGE (200052): read without popping.
// The answer carries a PopMessageResponseHeader (restNum only).
type PeekMessageRequestHeader struct {
	Topic         string `ext:"topic,required"`
	QueueID       int32  `ext:"queueId,required"`
	MaxMsgNums    int32  `ext:"maxMsgNums,required"`
	ConsumerGroup string `ext:"consumerGroup,required"`
	Bname         string `ext:"bname"`
}

// PollingInfoRequestHeader is POLLING_INFO (200055).
type PollingInfoRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
	Topic         string `ext:"topic,required"`
	QueueID       int32  `ext:"queueId,required"`
	Bname         string `ext:"bname"`
}

// PollingInfoResponseHeader answers POLLING_INFO: pops held for
// topic@group@queueId.
type PollingInfoResponseHeader struct {
	PollingNum int32 `ext:"pollingNum,required"`
}

// ToExtFields implements CommandCustomHeader.
func (h *NotificationRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *NotificationRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *NotificationResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *NotificationResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *PeekMessageRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *PeekMessageRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *PollingInfoRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *PollingInfoRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *PollingInfoResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *PollingInfoResponseHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }
