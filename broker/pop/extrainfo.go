package pop

// The receipt-handle strings of 5.x POP (ExtraInfoUtil, KeyBuilder): the
// POP_CK property / extraInfo of one message and the startOffsetInfo,
// msgOffsetInfo and orderCountInfo of a POP_MESSAGE answer.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// OrderReviveQueue is the revive queue id a FIFO pop reports
// (KeyBuilder.POP_ORDER_REVIVE_QUEUE): orderly pops write no checkpoint.
const OrderReviveQueue = 999

// Retry marks of the receipt handle: which topic a message was popped from.
const (
	RetryNormal = "0" // the topic itself
	RetryV1     = "1" // %RETRY%<group>_<topic>
	RetryV2     = "2" // %RETRY%<group>+<topic>
)

// RetryGroupTopicPrefix is MixAll.RETRY_GROUP_TOPIC_PREFIX.
const RetryGroupTopicPrefix = "%RETRY%"

// ErrExtraInfo is returned for a malformed extraInfo / offset-info string.
var ErrExtraInfo = errors.New("pop: malformed extraInfo")

// RetryTopicV1 is KeyBuilder.buildPopRetryTopicV1, 5.x's default naming.
func RetryTopicV1(topic, group string) string { return RetryGroupTopicPrefix + group + "_" + topic }

// RetryTopicV2 is KeyBuilder.buildPopRetryTopicV2 (enableRetryTopicV2).
func RetryTopicV2(topic, group string) string { return RetryGroupTopicPrefix + group + "+" + topic }

// RetryTopic is KeyBuilder.buildPopRetryTopic.
func RetryTopic(topic, group string, v2 bool) string {
	if v2 {
		return RetryTopicV2(topic, group)
	}
	return RetryTopicV1(topic, group)
}

// isRetryTopicV2 is KeyBuilder.isPopRetryTopicV2.
func isRetryTopicV2(topic string) bool {
	return strings.HasPrefix(topic, RetryGroupTopicPrefix) && strings.Contains(topic, "+")
}

// RetryMark is ExtraInfoUtil.getRetry(topic): which kind of topic topic is.
func RetryMark(topic string) string {
	switch {
	case isRetryTopicV2(topic):
		return RetryV2
	case strings.HasPrefix(topic, RetryGroupTopicPrefix):
		return RetryV1
	default:
		return RetryNormal
	}
}

// RealTopic is ExtraInfoUtil.getRealTopic: the topic a receipt handle's
// retry mark points at, for a request that names the original topic.
func RealTopic(topic, group, mark string) (string, error) {
	switch mark {
	case RetryNormal:
		return topic, nil
	case RetryV1:
		return RetryTopicV1(topic, group), nil
	case RetryV2:
		return RetryTopicV2(topic, group), nil
	}
	return "", fmt.Errorf("%w: retry mark %q", ErrExtraInfo, mark)
}

// ExtraInfo is one message's receipt handle, the POP_CK property:
// "ckOffset popTime invisibleTime reviveQid retry brokerName queueId
// [queueOffset]" joined by single spaces (MessageConst.KEY_SEPARATOR).
type ExtraInfo struct {
	CkQueueOffset int64 // start offset of the checkpoint that covers the message
	PopTime       int64
	InvisibleTime int64
	ReviveQid     int32
	Retry         string // RetryNormal, RetryV1 or RetryV2
	BrokerName    string
	QueueID       int32
	// QueueOffset is the message's own queue offset; -1 when the handle
	// has only seven fields.
	QueueOffset int64
}

// BuildExtraInfo is ExtraInfoUtil.buildExtraInfo with the message offset
// (eight fields); topic is the topic the message was popped from.
func BuildExtraInfo(ckOffset, popTime, invisibleTime int64, reviveQid int32, topic, brokerName string,
	queueID int32, msgQueueOffset int64) string {
	var b strings.Builder
	b.Grow(64 + len(brokerName))
	b.WriteString(strconv.FormatInt(ckOffset, 10))
	for _, f := range []string{
		strconv.FormatInt(popTime, 10), strconv.FormatInt(invisibleTime, 10),
		strconv.Itoa(int(reviveQid)), RetryMark(topic), brokerName, strconv.Itoa(int(queueID)),
		strconv.FormatInt(msgQueueOffset, 10),
	} {
		b.WriteByte(' ')
		b.WriteString(f)
	}
	return b.String()
}

// ParseExtraInfo splits a receipt handle. It needs the first seven fields
// (what an ACK or CHANGE_MESSAGE_INVISIBLETIME reads); the eighth is
// optional. Java's String.split drops trailing empty fields, so do we.
func ParseExtraInfo(s string) (ExtraInfo, error) {
	f := strings.Split(s, " ")
	for len(f) > 0 && f[len(f)-1] == "" {
		f = f[:len(f)-1]
	}
	if len(f) < 7 {
		return ExtraInfo{}, fmt.Errorf("%w: %d fields", ErrExtraInfo, len(f))
	}
	var e ExtraInfo
	var err error
	num := func(i int, bits int) int64 {
		if err != nil {
			return 0
		}
		var n int64
		n, err = strconv.ParseInt(f[i], 10, bits)
		return n
	}
	e.CkQueueOffset = num(0, 64)
	e.PopTime = num(1, 64)
	e.InvisibleTime = num(2, 64)
	e.ReviveQid = int32(num(3, 32))
	e.Retry = f[4]
	e.BrokerName = f[5]
	e.QueueID = int32(num(6, 32))
	e.QueueOffset = -1
	if len(f) > 7 {
		e.QueueOffset = num(7, 64)
	}
	if err != nil {
		return ExtraInfo{}, fmt.Errorf("%w: %w", ErrExtraInfo, err)
	}
	return e, nil
}

// IsOrder is ExtraInfoUtil.isOrder.
func (e ExtraInfo) IsOrder() bool { return e.ReviveQid == OrderReviveQueue }

// OffsetInfo accumulates the ";"-separated "retry queueId value" entries of
// startOffsetInfo, msgOffsetInfo and orderCountInfo.
type OffsetInfo struct{ b strings.Builder }

func (o *OffsetInfo) head(topic string, queueID int32) {
	if o.b.Len() > 0 {
		o.b.WriteByte(';')
	}
	o.b.WriteString(RetryMark(topic))
	o.b.WriteByte(' ')
	o.b.WriteString(strconv.Itoa(int(queueID)))
	o.b.WriteByte(' ')
}

// AddStart is ExtraInfoUtil.buildStartOffsetInfo.
func (o *OffsetInfo) AddStart(topic string, queueID int32, startOffset int64) {
	o.head(topic, queueID)
	o.b.WriteString(strconv.FormatInt(startOffset, 10))
}

// AddMsgOffsets is ExtraInfoUtil.buildMsgOffsetInfo.
func (o *OffsetInfo) AddMsgOffsets(topic string, queueID int32, offsets []int64) {
	o.head(topic, queueID)
	for i, off := range offsets {
		if i > 0 {
			o.b.WriteByte(',')
		}
		o.b.WriteString(strconv.FormatInt(off, 10))
	}
}

// AddOrderCount is ExtraInfoUtil.buildQueueIdOrderCountInfo.
func (o *OffsetInfo) AddOrderCount(topic string, queueID int32, count int) {
	o.head(topic, queueID)
	o.b.WriteString(strconv.Itoa(count))
}

// String returns the accumulated text.
func (o *OffsetInfo) String() string { return o.b.String() }

// InfoKey is the map key of the Parse* functions: "retry@queueId"
// (ExtraInfoUtil.getStartOffsetInfoMapKey).
func InfoKey(topic string, queueID int32) string {
	return RetryMark(topic) + "@" + strconv.Itoa(int(queueID))
}

// parseInfo splits "r q v;r q v" into key "r@q" → v, rejecting duplicates
// and entries without exactly three fields, as Java does.
func parseInfo(s string) (map[string]string, error) {
	if s == "" {
		return nil, nil
	}
	out := make(map[string]string, 4)
	for one := range strings.SplitSeq(s, ";") {
		f := strings.Split(one, " ")
		for len(f) > 0 && f[len(f)-1] == "" {
			f = f[:len(f)-1]
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("%w: entry %q", ErrExtraInfo, one)
		}
		k := f[0] + "@" + f[1]
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%w: duplicate %q", ErrExtraInfo, k)
		}
		out[k] = f[2]
	}
	return out, nil
}

// ParseStartOffsetInfo is ExtraInfoUtil.parseStartOffsetInfo.
func ParseStartOffsetInfo(s string) (map[string]int64, error) {
	m, err := parseInfo(s)
	if err != nil || m == nil {
		return nil, err
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrExtraInfo, err)
		}
		out[k] = n
	}
	return out, nil
}

// ParseMsgOffsetInfo is ExtraInfoUtil.parseMsgOffsetInfo.
func ParseMsgOffsetInfo(s string) (map[string][]int64, error) {
	m, err := parseInfo(s)
	if err != nil || m == nil {
		return nil, err
	}
	out := make(map[string][]int64, len(m))
	for k, v := range m {
		var l []int64
		for p := range strings.SplitSeq(v, ",") {
			n, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrExtraInfo, err)
			}
			l = append(l, n)
		}
		out[k] = l
	}
	return out, nil
}

// ParseOrderCountInfo is ExtraInfoUtil.parseOrderCountInfo.
func ParseOrderCountInfo(s string) (map[string]int, error) {
	m, err := parseInfo(s)
	if err != nil || m == nil {
		return nil, err
	}
	out := make(map[string]int, len(m))
	for k, v := range m {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrExtraInfo, err)
		}
		out[k] = int(n)
	}
	return out, nil
}

// Message properties of POP (MessageConst).
const (
	PropertyPopCk        = "POP_CK"
	PropertyFirstPopTime = "1ST_POP_TIME"
)

// NormalTopic is KeyBuilder.parseNormalTopic(topic, cid): the original
// topic of a pop retry topic of group.
func NormalTopic(t, group string) string {
	if !strings.HasPrefix(t, RetryGroupTopicPrefix) {
		return t
	}
	if p := RetryGroupTopicPrefix + group + "+"; strings.HasPrefix(t, p) {
		return t[len(p):]
	}
	if p := RetryGroupTopicPrefix + group + "_"; strings.HasPrefix(t, p) {
		return t[len(p):]
	}
	return t
}
