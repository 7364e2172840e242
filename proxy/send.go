package proxy

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/rocketmq-go/rmq/internal/message"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// sendTimeout bounds one SEND_MESSAGE to a broker when the client set no
// deadline.
const sendTimeout = 3 * time.Second

// pipeline is the round-robin position of sends without a message group.
var pipeline atomic.Uint32

// SendMessage stores the request's messages on one queue of the topic
// (5.x's SendMessageActivity): the queue is chosen by the message group's
// hash for FIFO messages, round robin otherwise.
func (svc *service) SendMessage(ctx context.Context, req *apiv2.SendMessageRequest) (*apiv2.SendMessageResponse, error) {
	ci := callInfoOf(ctx)
	entries, err := svc.send(ctx, ci, req)
	if err != nil {
		return &apiv2.SendMessageResponse{Status: StatusOf(err)}, nil
	}
	return &apiv2.SendMessageResponse{Status: summarize(entries), Entries: entries}, nil
}

// summarize is the response status of per-message results: their common
// code, or MULTIPLE_RESULTS.
func summarize(entries []*apiv2.SendResultEntry) *apiv2.Status {
	if len(entries) == 0 {
		return newStatus(apiv2.Code_INTERNAL_SERVER_ERROR, "send status is empty")
	}
	c := entries[0].GetStatus().GetCode()
	for _, e := range entries[1:] {
		if e.GetStatus().GetCode() != c {
			return newStatus(apiv2.Code_MULTIPLE_RESULTS, "")
		}
	}
	return newStatus(c, "")
}

// outMessage is one message ready for SEND_MESSAGE_V2.
type outMessage struct {
	id      string // the client's message id (UNIQ_KEY)
	props   map[string]string
	sysFlag int32
	born    int64
	body    []byte
	attempt int32
	txn     bool
}

func (svc *service) send(ctx context.Context, ci callInfo, req *apiv2.SendMessageRequest) ([]*apiv2.SendResultEntry, error) {
	if err := ci.requireClientID(); err != nil {
		return nil, err
	}
	msgs := req.GetMessages()
	if len(msgs) == 0 {
		return nil, errorf(apiv2.Code_MESSAGE_CORRUPTED, "no message to send")
	}
	topic := msgs[0].GetTopic()
	if err := validateTopic(topic); err != nil {
		return nil, err
	}
	out := make([]outMessage, 0, len(msgs))
	for _, m := range msgs {
		if m.GetTopic().GetName() != topic.GetName() || m.GetTopic().GetResourceNamespace() != topic.GetResourceNamespace() {
			return nil, errorf(apiv2.Code_MESSAGE_CORRUPTED, "topic in message is not same")
		}
		om, err := svc.buildMessage(ci, m, topic.GetName())
		if err != nil {
			return nil, err
		}
		out = append(out, om)
	}
	rd, err := svc.routes.get(ctx, topic.GetName())
	if err != nil {
		return nil, err
	}
	qs := writeQueues(rd)
	if len(qs) == 0 {
		return nil, errorf(apiv2.Code_FORBIDDEN, "no writable queue")
	}
	var q writeQueue
	if g := msgs[0].GetSystemProperties().GetMessageGroup(); len(msgs) == 1 && g != "" {
		q = qs[consistentHash(int64(message.JavaStringHash(g)), len(qs))]
	} else {
		q = qs[int(pipeline.Add(1)-1)%len(qs)]
	}
	entries := make([]*apiv2.SendResultEntry, len(out))
	for i := range out {
		if entries[i], err = svc.sendOne(ctx, topic.GetName(), q, &out[i]); err != nil {
			return nil, err // as 5.x: a failed broker call fails the whole request
		}
	}
	return entries, nil
}

// buildMessage checks one message and builds its properties (5.x's
// buildMessage / buildMessageProperty, same codes and limits).
func (svc *service) buildMessage(ci callInfo, m *apiv2.Message, producerGroup string) (outMessage, error) {
	cfg := svc.cfg
	om := outMessage{body: m.GetBody(), born: time.Now().UnixMilli()}
	if cfg.EnableMessageBodyEmptyCheck && len(om.body) == 0 {
		return om, errorf(apiv2.Code_MESSAGE_BODY_EMPTY, "message body cannot be empty")
	}
	if cfg.MaxMessageSize > 0 && len(om.body) > cfg.MaxMessageSize {
		return om, errorf(apiv2.Code_MESSAGE_BODY_TOO_LARGE, "message body cannot exceed the max %d", cfg.MaxMessageSize)
	}
	sp := m.GetSystemProperties()
	if sp == nil {
		sp = &apiv2.SystemProperties{} // no id: refused below with ILLEGAL_MESSAGE_ID
	}
	props, err := userProperties(cfg, m.GetUserProperties(), sp)
	if err != nil {
		return om, err
	}
	om.props = props
	return om, svc.addSystemProperties(ci, &om, sp, producerGroup)
}

// userProperties checks the user properties, tag and keys and counts them
// against maxUserPropertySize, as 5.x does.
func userProperties(cfg *Config, user map[string]string, sp *apiv2.SystemProperties) (map[string]string, error) {
	if len(user) > cfg.UserPropertyMaxNum {
		return nil, errorf(apiv2.Code_MESSAGE_PROPERTIES_TOO_LARGE, "too many user properties, max is %d", cfg.UserPropertyMaxNum)
	}
	props := make(map[string]string, len(user)+8)
	size := 0
	for k, v := range user {
		switch {
		case systemProperties[k]:
			return nil, errorf(apiv2.Code_ILLEGAL_MESSAGE_PROPERTY_KEY, "property is used by system: %s", k)
		case hasControl(k):
			return nil, errorf(apiv2.Code_ILLEGAL_MESSAGE_PROPERTY_KEY, "the key of property cannot contain control character")
		case hasControl(v):
			return nil, errorf(apiv2.Code_ILLEGAL_MESSAGE_PROPERTY_KEY, "the value of property cannot contain control character")
		}
		size += len(k) + len(v)
		props[k] = v
	}
	if err := validateTag(sp.GetTag()); err != nil {
		return nil, err
	}
	if sp.Tag != nil {
		props[message.PropertyTags] = sp.GetTag()
	}
	size += len(sp.GetTag())
	for _, k := range sp.GetKeys() {
		if k != "" && strings.TrimSpace(k) == "" {
			return nil, errorf(apiv2.Code_ILLEGAL_MESSAGE_KEY, "key cannot be the char sequence of whitespace")
		}
		if hasControl(k) {
			return nil, errorf(apiv2.Code_ILLEGAL_MESSAGE_KEY, "key cannot contain control character")
		}
		size += len(k)
	}
	if len(sp.GetKeys()) > 0 {
		props[message.PropertyKeys] = strings.Join(sp.GetKeys(), keySeparator)
	}
	if size > cfg.MaxUserPropertySize {
		return nil, errorf(apiv2.Code_MESSAGE_PROPERTIES_TOO_LARGE, "the total size of user property is too large, max is %d", cfg.MaxUserPropertySize)
	}
	return props, nil
}

// addSystemProperties adds the id, transaction, timer, group, trace and born
// properties to om.
func (svc *service) addSystemProperties(ci callInfo, om *outMessage, sp *apiv2.SystemProperties, producerGroup string) error {
	cfg, props := svc.cfg, om.props
	om.id = sp.GetMessageId()
	if strings.TrimSpace(om.id) == "" {
		return errorf(apiv2.Code_ILLEGAL_MESSAGE_ID, "message id cannot be empty")
	}
	props[message.PropertyUniqClientMessageIDKeyidx] = om.id
	if sp.GetMessageType() == apiv2.MessageType_TRANSACTION {
		om.txn = true
		om.sysFlag |= transactionPreparedType
		props[message.PropertyTransactionPrepared] = "true"
		if d := sp.GetOrphanedTransactionRecoveryDuration(); d != nil {
			sec := d.GetSeconds()
			if cfg.MaxTransactionRecoverySecond > 0 && sec > cfg.MaxTransactionRecoverySecond {
				return errorf(apiv2.Code_BAD_REQUEST, "the max transaction recovery time of message is too large, max is %d", cfg.MaxTransactionRecoverySecond)
			}
			props[message.PropertyCheckImmunityTimeInSeconds] = strconv.FormatInt(sec, 10)
		}
	}
	if sp.GetBodyEncoding() == apiv2.Encoding_GZIP {
		om.sysFlag |= compressedFlag
	}
	if sp.DeliveryTimestamp != nil {
		at := sp.GetDeliveryTimestamp().AsTime().UnixMilli()
		if cfg.MaxDelayTimeMills > 0 && at-time.Now().UnixMilli() > cfg.MaxDelayTimeMills {
			return errorf(apiv2.Code_ILLEGAL_DELIVERY_TIME, "the max delay time of message is too large, max is %d", cfg.MaxDelayTimeMills)
		}
		props[propTimerDeliverMs] = strconv.FormatInt(at, 10)
	}
	om.attempt = sp.GetDeliveryAttempt()
	props[message.PropertyReconsumeTime] = strconv.Itoa(int(om.attempt))
	props[message.PropertyProducerGroup] = producerGroup
	if g := sp.GetMessageGroup(); g != "" {
		if err := validateMessageGroup(g, cfg.MaxMessageGroupSize); err != nil {
			return err
		}
		props[message.PropertyShardingKey] = g
	}
	if tc := sp.GetTraceContext(); tc != "" {
		props[propTraceContext] = tc
	}
	bornHost := sp.GetBornHost()
	if strings.TrimSpace(bornHost) == "" {
		bornHost = ci.RemoteAddr
	}
	if strings.TrimSpace(bornHost) != "" {
		props[propBornHost] = bornHost
	}
	if bt := sp.GetBornTimestamp(); bt != nil && bt.IsValid() {
		om.born = bt.AsTime().UnixMilli()
		props[propBornTimestamp] = strconv.FormatInt(om.born, 10)
	}
	return nil
}

func validateMessageGroup(g string, maxSize int) error {
	if strings.TrimSpace(g) == "" {
		return errorf(apiv2.Code_ILLEGAL_MESSAGE_GROUP, "message group cannot be the char sequence of whitespace")
	}
	if maxSize > 0 && len(g) >= maxSize {
		return errorf(apiv2.Code_ILLEGAL_MESSAGE_GROUP, "message group exceed the max size %d", maxSize)
	}
	if hasControl(g) || !utf8.ValidString(g) {
		return errorf(apiv2.Code_ILLEGAL_MESSAGE_GROUP, "message group cannot contain control character")
	}
	return nil
}

// sendOne sends one message with SEND_MESSAGE_V2 and converts the answer
// to a result entry (5.x's convertToSendMessageResponse).
func (svc *service) sendOne(ctx context.Context, topic string, q writeQueue, om *outMessage) (*apiv2.SendResultEntry, error) {
	h := &header.SendMessageRequestHeaderV2{
		ProducerGroup:         topic,
		Topic:                 topic,
		DefaultTopic:          defaultTopic,
		DefaultTopicQueueNums: defaultTopicQueueNums,
		QueueID:               q.queueID,
		SysFlag:               om.sysFlag,
		BornTimestamp:         om.born,
		Properties:            message.MarshalProperties(om.props),
		ReconsumeTimes:        header.Int32(om.attempt),
		BrokerName:            q.brokerName,
	}
	req := codec.NewRequest(code.SendMessageV2, h.ToExtFields(), om.body)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sendTimeout)
		defer cancel()
	}
	resp, err := svc.be.Invoke(ctx, q.addr, req)
	if err != nil {
		return nil, err
	}
	switch resp.Code {
	case code.Success:
	case code.FlushDiskTimeout:
		return &apiv2.SendResultEntry{Status: newStatus(apiv2.Code_MASTER_PERSISTENCE_TIMEOUT, "send message failed, sendStatus=FLUSH_DISK_TIMEOUT")}, nil
	case code.FlushSlaveTimeout:
		return &apiv2.SendResultEntry{Status: newStatus(apiv2.Code_SLAVE_PERSISTENCE_TIMEOUT, "send message failed, sendStatus=FLUSH_SLAVE_TIMEOUT")}, nil
	case code.SlaveNotAvailable:
		return &apiv2.SendResultEntry{Status: newStatus(apiv2.Code_HA_NOT_AVAILABLE, "send message failed, sendStatus=SLAVE_NOT_AVAILABLE")}, nil
	default:
		return nil, remoting.NewError(resp.Code, resp.Remark)
	}
	var rh header.SendMessageResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		return nil, err
	}
	txID := rh.TransactionID
	if txID == "" {
		txID = om.id
	}
	if om.txn {
		svc.txns.put(topic, txID, txnData{brokerName: q.brokerName, addr: q.addr, tranStateTableOffset: rh.QueueOffset,
			commitLogOffset: commitLogOffsetOf(rh.MsgID), msgID: om.id, at: time.Now()})
	}
	return &apiv2.SendResultEntry{Status: okStatus(), MessageId: om.id, TransactionId: txID, Offset: rh.QueueOffset, RecallHandle: rh.RecallHandle}, nil
}

// commitLogOffsetOf decodes the commit-log offset from a broker's offset
// message id (0 when malformed).
func commitLogOffsetOf(offsetMsgID string) int64 {
	_, off, err := message.DecodeOffsetMsgID(offsetMsgID)
	if err != nil {
		return 0
	}
	return off
}
