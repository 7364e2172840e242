package header

// Transaction headers (Java 4.9.8 EndTransactionRequestHeader,
// CheckTransactionStateRequestHeader and friends).

// EndTransactionRequestHeader is END_TRANSACTION (37), oneway.
// CommitOrRollback is a MessageSysFlag transaction type (0 not-type,
// 8 commit, 12 rollback).
type EndTransactionRequestHeader struct {
	ProducerGroup        string `ext:"producerGroup,required"`
	TranStateTableOffset int64  `ext:"tranStateTableOffset,required"`
	CommitLogOffset      int64  `ext:"commitLogOffset,required"`
	CommitOrRollback     int32  `ext:"commitOrRollback,required"`
	// FromTransactionCheck is a Boolean Java initialises to false, so it is
	// always written.
	FromTransactionCheck bool   `ext:"fromTransactionCheck"`
	MsgID                string `ext:"msgId,required"`
	TransactionID        string `ext:"transactionId"`
	Bname                string `ext:"bname"`
}

// EndTransactionResponseHeader answers END_TRANSACTION (no fields).
type EndTransactionResponseHeader struct{}

// CheckTransactionStateRequestHeader is the broker-to-producer
// CHECK_TRANSACTION_STATE (39).
type CheckTransactionStateRequestHeader struct {
	TranStateTableOffset int64  `ext:"tranStateTableOffset,required"`
	CommitLogOffset      int64  `ext:"commitLogOffset,required"`
	MsgID                string `ext:"msgId"`
	TransactionID        string `ext:"transactionId"`
	OffsetMsgID          string `ext:"offsetMsgId"`
	Bname                string `ext:"bname"`
}

// CheckTransactionStateResponseHeader is Java's (unused on the wire in
// 4.9.8) answer to CHECK_TRANSACTION_STATE.
type CheckTransactionStateResponseHeader struct {
	ProducerGroup        string `ext:"producerGroup,required"`
	TranStateTableOffset int64  `ext:"tranStateTableOffset,required"`
	CommitLogOffset      int64  `ext:"commitLogOffset,required"`
	CommitOrRollback     int32  `ext:"commitOrRollback,required"`
}

// ResumeCheckHalfMessageRequestHeader is RESUME_CHECK_HALF_MESSAGE (323).
type ResumeCheckHalfMessageRequestHeader struct {
	MsgID string `ext:"msgId"`
}

// ToExtFields implements CommandCustomHeader.
func (h *EndTransactionRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *EndTransactionRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *EndTransactionResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *EndTransactionResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *CheckTransactionStateRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *CheckTransactionStateRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *CheckTransactionStateResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *CheckTransactionStateResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *ResumeCheckHalfMessageRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ResumeCheckHalfMessageRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}
