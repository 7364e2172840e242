package header

// Offset headers: consumer offsets, queue max/min offsets, search by time,
// consume-queue inspection, offset reset and cloning (Java 4.9.8 classes of
// the same names).

// QueryConsumerOffsetRequestHeader is QUERY_CONSUMER_OFFSET (14).
type QueryConsumerOffsetRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
	Topic         string `ext:"topic,required"`
	QueueID       int32  `ext:"queueId,required"`
	// SetZeroIfNotFound is 5.x only.
	SetZeroIfNotFound *bool  `ext:"setZeroIfNotFound"`
	Bname             string `ext:"bname"`
}

// QueryConsumerOffsetResponseHeader answers QUERY_CONSUMER_OFFSET.
type QueryConsumerOffsetResponseHeader struct {
	Offset int64 `ext:"offset,required"`
}

// UpdateConsumerOffsetRequestHeader is UPDATE_CONSUMER_OFFSET (15).
type UpdateConsumerOffsetRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
	Topic         string `ext:"topic,required"`
	QueueID       int32  `ext:"queueId,required"`
	CommitOffset  int64  `ext:"commitOffset,required"`
	Bname         string `ext:"bname"`
}

// UpdateConsumerOffsetResponseHeader answers UPDATE_CONSUMER_OFFSET (no fields).
type UpdateConsumerOffsetResponseHeader struct{}

// GetMaxOffsetRequestHeader is GET_MAX_OFFSET (30).
type GetMaxOffsetRequestHeader struct {
	Topic   string `ext:"topic,required"`
	QueueID int32  `ext:"queueId,required"`
	// Committed is 5.x only (a primitive defaulting to true there): nil means
	// absent, which a 5.x broker treats as true.
	Committed *bool  `ext:"committed"`
	Bname     string `ext:"bname"`
}

// GetMaxOffsetResponseHeader answers GET_MAX_OFFSET.
type GetMaxOffsetResponseHeader struct {
	Offset int64 `ext:"offset,required"`
}

// GetMinOffsetRequestHeader is GET_MIN_OFFSET (31).
type GetMinOffsetRequestHeader struct {
	Topic   string `ext:"topic,required"`
	QueueID int32  `ext:"queueId,required"`
	Bname   string `ext:"bname"`
}

// GetMinOffsetResponseHeader answers GET_MIN_OFFSET.
type GetMinOffsetResponseHeader struct {
	Offset int64 `ext:"offset,required"`
}

// GetEarliestMsgStoretimeRequestHeader is GET_EARLIEST_MSG_STORETIME (32).
type GetEarliestMsgStoretimeRequestHeader struct {
	Topic   string `ext:"topic,required"`
	QueueID int32  `ext:"queueId,required"`
	Bname   string `ext:"bname"`
}

// GetEarliestMsgStoretimeResponseHeader answers GET_EARLIEST_MSG_STORETIME.
type GetEarliestMsgStoretimeResponseHeader struct {
	Timestamp int64 `ext:"timestamp,required"`
}

// SearchOffsetRequestHeader is SEARCH_OFFSET_BY_TIMESTAMP (29).
type SearchOffsetRequestHeader struct {
	Topic     string `ext:"topic,required"`
	QueueID   int32  `ext:"queueId,required"`
	Timestamp int64  `ext:"timestamp,required"`
	// BoundaryType ("lower"/"upper") is 5.x only.
	BoundaryType string `ext:"boundaryType"`
	Bname        string `ext:"bname"`
}

// SearchOffsetResponseHeader answers SEARCH_OFFSET_BY_TIMESTAMP.
type SearchOffsetResponseHeader struct {
	Offset int64 `ext:"offset,required"`
}

// QueryConsumeQueueRequestHeader is QUERY_CONSUME_QUEUE (321). Java declares
// no field required; the numbers are primitives and always written.
type QueryConsumeQueueRequestHeader struct {
	Topic         string `ext:"topic"`
	QueueID       int32  `ext:"queueId"`
	Index         int64  `ext:"index"`
	Count         int32  `ext:"count"`
	ConsumerGroup string `ext:"consumerGroup"`
}

// QueryCorrectionOffsetHeader is QUERY_CORRECTION_OFFSET (308).
type QueryCorrectionOffsetHeader struct {
	FilterGroups string `ext:"filterGroups"`
	CompareGroup string `ext:"compareGroup,required"`
	Topic        string `ext:"topic,required"`
}

// CloneGroupOffsetRequestHeader is CLONE_GROUP_OFFSET (314).
type CloneGroupOffsetRequestHeader struct {
	SrcGroup  string `ext:"srcGroup,required"`
	DestGroup string `ext:"destGroup,required"`
	Topic     string `ext:"topic"`
	Offline   bool   `ext:"offline"`
}

// ResetOffsetRequestHeader is INVOKE_BROKER_TO_RESET_OFFSET (222) and the
// broker-to-client RESET_CONSUMER_CLIENT_OFFSET (220).
type ResetOffsetRequestHeader struct {
	Topic string `ext:"topic,required"`
	Group string `ext:"group,required"`
	// QueueID and Offset are 5.x only (5.x defaults queueId to -1, meaning
	// every queue, and resets to Offset instead of Timestamp when set); nil
	// means absent, as 4.9.8 sends it.
	QueueID   *int32 `ext:"queueId"`
	Offset    *int64 `ext:"offset"`
	Timestamp int64  `ext:"timestamp,required"`
	IsForce   bool   `ext:"isForce,required"`
}

// ToExtFields implements CommandCustomHeader.
func (h *QueryConsumerOffsetRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QueryConsumerOffsetRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *QueryConsumerOffsetResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QueryConsumerOffsetResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *UpdateConsumerOffsetRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *UpdateConsumerOffsetRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *UpdateConsumerOffsetResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *UpdateConsumerOffsetResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetMaxOffsetRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetMaxOffsetRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *GetMaxOffsetResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetMaxOffsetResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetMinOffsetRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetMinOffsetRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *GetMinOffsetResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetMinOffsetResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetEarliestMsgStoretimeRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetEarliestMsgStoretimeRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetEarliestMsgStoretimeResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetEarliestMsgStoretimeResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *SearchOffsetRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *SearchOffsetRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *SearchOffsetResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *SearchOffsetResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *QueryConsumeQueueRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QueryConsumeQueueRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *QueryCorrectionOffsetHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QueryCorrectionOffsetHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *CloneGroupOffsetRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *CloneGroupOffsetRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *ResetOffsetRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ResetOffsetRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }
