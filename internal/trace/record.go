package trace

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Separators of the trace body (TraceConstants).
const (
	ContentSplitter = '\u0001' // between the fields of one record
	FieldSplitter   = '\u0002' // after each record
	keySeparator    = ' '      // MessageConst.KEY_SEPARATOR
)

// DefaultTopic is TopicValidator.RMQ_SYS_TRACE_TOPIC, the trace topic of
// clients and of a broker with traceTopicEnable and no msgTraceTopicName.
const DefaultTopic = "RMQ_SYS_TRACE_TOPIC"

// Type is TraceType: which step of a message's life a record describes.
type Type string

// The trace types of 4.9.8.
const (
	Pub            Type = "Pub"            // a send
	SubBefore      Type = "SubBefore"      // a consumer is about to consume
	SubAfter       Type = "SubAfter"       // a consumer has consumed
	EndTransaction Type = "EndTransaction" // a transactional send was committed or rolled back
)

// MessageType is common.message.MessageType, written as its ordinal.
type MessageType int

// Message types by ordinal.
const (
	NormalMsg MessageType = iota
	TransMsgHalf
	TransMsgCommit
	DelayMsg
	messageTypes
)

var messageTypeNames = [...]string{"Normal_Msg", "Trans_Msg_Half", "Trans_msg_Commit", "Delay_Msg"}

func (t MessageType) String() string {
	if t >= 0 && t < messageTypes {
		return messageTypeNames[t]
	}
	return strconv.Itoa(int(t))
}

// transactionStates are LocalTransactionState's names.
var transactionStates = []string{"COMMIT_MESSAGE", "ROLLBACK_MESSAGE", "UNKNOW"}

// Bean is TraceBean: the message a record is about.
type Bean struct {
	Topic, MsgID, OffsetMsgID, Tags, Keys, StoreHost, ClientHost string
	RetryTimes, BodyLength                                       int32
	MsgType                                                      MessageType
	TransactionID, TransactionState                              string
	FromTransactionCheck                                         bool
}

// Context is TraceContext: one record. Decoded records always hold exactly
// one bean.
type Context struct {
	Type        Type
	TimeStamp   int64 // ms
	RegionID    string
	GroupName   string
	CostTime    int32 // ms
	Success     bool
	RequestID   string
	ContextCode int32
	Beans       []Bean
	// Cloud leaves the timestamp and group out of SubAfter records, as
	// Java does for AccessChannel.CLOUD (Encode only).
	Cloud bool
}

// ErrBadRecord reports a record Java's decoder would throw on.
var ErrBadRecord = errors.New("trace: bad record")

// javaSplit is String.split on a one-character separator: trailing empty
// strings are dropped, and "" splits into one empty string.
func javaSplit(s string, sep rune) []string {
	if s == "" {
		return []string{""}
	}
	parts := strings.Split(s, string(sep))
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// Decode is TraceDataEncoder.decoderFromTraceDataString: the records of a
// trace message body, in order. Records of unknown type are skipped, as Java
// skips them; a record Java would fail on (too few fields, a bad number) is
// left out and reported in the joined error, the others are still returned.
func Decode(data string) ([]Context, error) {
	if data == "" {
		return nil, nil
	}
	var out []Context
	var errs []error
	for i, rec := range javaSplit(data, FieldSplitter) {
		c, ok, err := decodeRecord(javaSplit(rec, ContentSplitter))
		if err != nil {
			errs = append(errs, fmt.Errorf("%w %d: %w", ErrBadRecord, i, err))
			continue
		}
		if ok {
			out = append(out, c)
		}
	}
	return out, errors.Join(errs...)
}

// fields reads a record's fields, keeping the first conversion error.
type fields struct {
	f   []string
	err error
}

func (r *fields) need(n int) bool {
	if len(r.f) < n && r.err == nil {
		r.err = fmt.Errorf("%s has %d fields, want at least %d", r.f[0], len(r.f), n)
	}
	return r.err == nil
}

func (r *fields) int64(i int) int64 {
	v, err := strconv.ParseInt(r.f[i], 10, 64)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("field %d: %w", i, err)
	}
	return v
}

func (r *fields) int32(i int) int32 {
	v, err := strconv.ParseInt(r.f[i], 10, 32)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("field %d: %w", i, err)
	}
	return int32(v)
}

// bool is Boolean.parseBoolean.
func (r *fields) bool(i int) bool { return strings.EqualFold(r.f[i], "true") }

func (r *fields) msgType(i int) MessageType {
	v := r.int32(i)
	if (v < 0 || MessageType(v) >= messageTypes) && r.err == nil {
		r.err = fmt.Errorf("field %d: message type %d", i, v)
	}
	return MessageType(v)
}

func decodeRecord(f []string) (Context, bool, error) {
	var c Context
	if len(f) == 0 { // a record of separators only
		return c, false, nil
	}
	r := &fields{f: f}
	var b Bean
	switch Type(f[0]) {
	case Pub:
		if !r.need(12) {
			break
		}
		c.TimeStamp, c.RegionID, c.GroupName = r.int64(1), f[2], f[3]
		b.Topic, b.MsgID, b.Tags, b.Keys, b.StoreHost = f[4], f[5], f[6], f[7], f[8]
		b.BodyLength, c.CostTime, b.MsgType = r.int32(9), r.int32(10), r.msgType(11)
		switch {
		case len(f) == 13:
			c.Success = r.bool(12)
		case len(f) >= 14:
			b.OffsetMsgID, c.Success = f[12], r.bool(13)
		}
		if len(f) >= 15 {
			b.ClientHost = f[14]
		}
	case SubBefore:
		if !r.need(8) {
			break
		}
		c.TimeStamp, c.RegionID, c.GroupName, c.RequestID = r.int64(1), f[2], f[3], f[4]
		b.MsgID, b.RetryTimes, b.Keys = f[5], r.int32(6), f[7]
	case SubAfter:
		if !r.need(6) {
			break
		}
		c.RequestID, b.MsgID, c.CostTime, c.Success, b.Keys = f[1], f[2], r.int32(3), r.bool(4), f[5]
		if len(f) >= 7 {
			c.ContextCode = r.int32(6)
		}
		if len(f) >= 9 {
			c.TimeStamp, c.GroupName = r.int64(7), f[8]
		}
	case EndTransaction:
		if !r.need(13) {
			break
		}
		c.TimeStamp, c.RegionID, c.GroupName = r.int64(1), f[2], f[3]
		b.Topic, b.MsgID, b.Tags, b.Keys, b.StoreHost = f[4], f[5], f[6], f[7], f[8]
		b.MsgType, b.TransactionID, b.TransactionState = r.msgType(9), f[10], f[11]
		b.FromTransactionCheck = r.bool(12)
		if !slices.Contains(transactionStates, b.TransactionState) && r.err == nil {
			r.err = fmt.Errorf("transaction state %q", b.TransactionState)
		}
	default:
		return c, false, nil
	}
	if r.err != nil {
		return c, false, r.err
	}
	c.Type, c.Beans = Type(f[0]), []Bean{b}
	return c, true, nil
}

// Encode is TraceDataEncoder.encoderFromContextBean: the record text of c
// and the keys its trace message is indexed by (each bean's msgId and its
// space-separated keys). Pub and EndTransaction records describe the first
// bean; SubBefore and SubAfter one record per bean.
func Encode(c *Context) (data string, keys []string) {
	var sb strings.Builder
	w := func(last rune, vs ...string) {
		for i, v := range vs {
			sb.WriteString(v)
			if i < len(vs)-1 {
				sb.WriteRune(ContentSplitter)
			}
		}
		sb.WriteRune(last)
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	i32 := func(v int32) string { return strconv.FormatInt(int64(v), 10) }
	bl := strconv.FormatBool
	switch c.Type {
	case Pub:
		b := c.Beans[0]
		w(FieldSplitter, string(c.Type), i64(c.TimeStamp), c.RegionID, c.GroupName, b.Topic, b.MsgID, b.Tags, b.Keys,
			b.StoreHost, i32(b.BodyLength), i32(c.CostTime), strconv.Itoa(int(b.MsgType)), b.OffsetMsgID, bl(c.Success))
	case SubBefore:
		for _, b := range c.Beans {
			w(FieldSplitter, string(c.Type), i64(c.TimeStamp), c.RegionID, c.GroupName, c.RequestID, b.MsgID,
				i32(b.RetryTimes), b.Keys)
		}
	case SubAfter:
		for _, b := range c.Beans {
			head := []string{string(c.Type), c.RequestID, b.MsgID, i32(c.CostTime), bl(c.Success), b.Keys, i32(c.ContextCode)}
			if c.Cloud {
				w(ContentSplitter, head...)
				continue
			}
			w(FieldSplitter, append(head, i64(c.TimeStamp), c.GroupName)...)
		}
	case EndTransaction:
		b := c.Beans[0]
		w(FieldSplitter, string(c.Type), i64(c.TimeStamp), c.RegionID, c.GroupName, b.Topic, b.MsgID, b.Tags, b.Keys,
			b.StoreHost, strconv.Itoa(int(b.MsgType)), b.TransactionID, b.TransactionState, bl(b.FromTransactionCheck))
	}
	for _, b := range c.Beans {
		keys = append(keys, b.MsgID)
		if b.Keys != "" {
			keys = append(keys, javaSplit(b.Keys, keySeparator)...)
		}
	}
	return sb.String(), keys
}
