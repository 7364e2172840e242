package proxy

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// ErrBadReceiptHandle reports a receipt handle that does not parse.
var ErrBadReceiptHandle = errors.New("proxy: malformed receipt handle")

// Retry markers of a receipt handle (5.x ExtraInfoUtil / ReceiptHandle):
// which topic the popped message was read from.
const (
	receiptNormalTopic  = "0" // the topic itself
	receiptRetryTopicV1 = "1" // %RETRY%<group>_<topic>
	receiptRetryTopicV2 = "2" // %RETRY%<group>+<topic>
)

// ReceiptHandle is what a gRPC consumer holds for a received message: the
// broker's POP_CK string (checkpoint queue offset, pop time, invisible time,
// revive queue, retry marker, broker name, queue id, message queue offset)
// followed by the message's CommitLog offset, space separated, as 5.x's proxy
// hands it out (ConsumerProcessor.createHandle). The client echoes it back in
// AckMessage, ChangeInvisibleDuration and ForwardMessageToDeadLetterQueue.
type ReceiptHandle struct {
	StartOffset     int64  // checkpoint start offset in the queue
	RetrieveTime    int64  // pop time, ms since the epoch
	InvisibleTime   int64  // ms
	ReviveQueueID   int32  // revive queue of the checkpoint
	TopicType       string // receiptNormalTopic, receiptRetryTopicV1 or V2
	BrokerName      string
	QueueID         int32
	Offset          int64 // queue offset of the message
	CommitLogOffset int64 // -1 when the handle carried only 8 fields

	// Raw is the broker's extraInfo: the handle without the CommitLog
	// offset, which is what ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME take.
	Raw string
}

// ParseReceiptHandle decodes a handle of 8 or 9 space-separated fields.
// Extra fields past the ninth are ignored, as 5.x does.
func ParseReceiptHandle(s string) (ReceiptHandle, error) {
	f := strings.Split(s, " ")
	if len(f) < 8 {
		return ReceiptHandle{}, ErrBadReceiptHandle
	}
	var h ReceiptHandle
	var err error
	num := func(i int, bits int) int64 {
		if err != nil {
			return 0
		}
		var v int64
		v, err = strconv.ParseInt(f[i], 10, bits)
		return v
	}
	h.StartOffset = num(0, 64)
	h.RetrieveTime = num(1, 64)
	h.InvisibleTime = num(2, 64)
	h.ReviveQueueID = int32(num(3, 32))
	h.TopicType = f[4]
	h.BrokerName = f[5]
	h.QueueID = int32(num(6, 32))
	h.Offset = num(7, 64)
	h.CommitLogOffset = -1
	if len(f) >= 9 {
		h.CommitLogOffset = num(8, 64)
	}
	if err != nil {
		return ReceiptHandle{}, ErrBadReceiptHandle
	}
	h.Raw = strings.Join(f[:8], " ")
	return h, nil
}

// Encode writes the handle in its 9-field form.
func (h ReceiptHandle) Encode() string {
	var b strings.Builder
	b.Grow(96)
	for i, v := range []string{
		strconv.FormatInt(h.StartOffset, 10),
		strconv.FormatInt(h.RetrieveTime, 10),
		strconv.FormatInt(h.InvisibleTime, 10),
		strconv.FormatInt(int64(h.ReviveQueueID), 10),
		h.TopicType,
		h.BrokerName,
		strconv.FormatInt(int64(h.QueueID), 10),
		strconv.FormatInt(h.Offset, 10),
		strconv.FormatInt(h.CommitLogOffset, 10),
	} {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v)
	}
	return b.String()
}

// NextVisibleTime is when the message becomes visible again, ms.
func (h ReceiptHandle) NextVisibleTime() int64 { return h.RetrieveTime + h.InvisibleTime }

// Expired reports whether the handle can no longer ack or change the
// message (5.x ReceiptHandle.isExpired: next visible time not after now).
func (h ReceiptHandle) Expired(now time.Time) bool {
	return h.NextVisibleTime() <= now.UnixMilli()
}

// RealTopic is the topic the message was popped from: the consumer's topic or
// the group's pop retry topic.
func (h ReceiptHandle) RealTopic(topic, group string) string {
	switch h.TopicType {
	case receiptRetryTopicV1:
		return "%RETRY%" + group + "_" + topic
	case receiptRetryTopicV2:
		return "%RETRY%" + group + "+" + topic
	}
	return topic
}

// withCommitLogOffset appends a CommitLog offset to a broker extraInfo
// string, making the handle given to gRPC clients.
func withCommitLogOffset(extraInfo string, commitLogOffset int64) string {
	return extraInfo + " " + strconv.FormatInt(commitLogOffset, 10)
}
