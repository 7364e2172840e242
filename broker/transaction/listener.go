package transaction

// CheckListener mirrors AbstractTransactionalMessageCheckListener and
// DefaultTransactionalMessageCheckListener (4.9.8).

import (
	"strconv"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// tcmtQueueNums is the queue count of TRANS_CHECK_MAX_TIME_TOPIC.
const tcmtQueueNums = 1

// CheckSender sends CHECK_TRANSACTION_STATE with the encoded message to an
// available producer of group; false when none is connected or the write
// failed.
type CheckSender func(group string, h *header.CheckTransactionStateRequestHeader, msg []byte) bool

// CheckListener is the default listener: ask a producer of the group, and
// move messages checked too often to TRANS_CHECK_MAX_TIME_TOPIC.
type CheckListener struct {
	br   *Bridge
	send CheckSender
	lg   *zap.Logger
}

// NewCheckListener returns the default listener.
func NewCheckListener(br *Bridge, send CheckSender) *CheckListener {
	return &CheckListener{br: br, send: send, lg: br.lg}
}

// ResolveHalfMsg is sendCheckMessage. Java hands it to a small executor;
// here it runs on the check goroutine, since the oneway send only queues
// the frame.
func (l *CheckListener) ResolveHalfMsg(m *message.MessageExt, p *Props) {
	h, rec, err := CheckRequest(m, p)
	if err != nil {
		l.lg.Error("send check message failed", zap.String("msgId", m.MsgID), zap.Error(err))
		return
	}
	group, _ := p.Get(message.PropertyProducerGroup)
	if !l.send(group, h, rec) {
		l.lg.Warn("check transaction failed, no producer channel", zap.String("producerGroup", group))
	}
}

// CheckRequest builds the CHECK_TRANSACTION_STATE header and body for the
// (re-put) half message m: the record with its real topic and queue.
func CheckRequest(m *message.MessageExt, p *Props) (*header.CheckTransactionStateRequestHeader, []byte, error) {
	uniq, _ := p.Get(message.PropertyUniqClientMessageIDKeyidx)
	h := &header.CheckTransactionStateRequestHeader{
		CommitLogOffset:      m.CommitLogOffset,
		OffsetMsgID:          m.MsgID,
		MsgID:                uniq,
		TransactionID:        uniq,
		TranStateTableOffset: m.QueueOffset,
	}
	realTopic, _ := p.Get(message.PropertyRealTopic)
	qid, _ := p.Get(message.PropertyRealQueueID)
	q, err := strconv.ParseInt(qid, 10, 32)
	if err != nil {
		return nil, nil, err
	}
	out := *m
	out.Topic, out.QueueID = realTopic, int32(q)
	out.PropertiesString = p.String()
	rec, err := message.EncodeRecord(nil, &out)
	if err != nil {
		return nil, nil, err
	}
	return h, rec, nil
}

// ResolveDiscardMsg puts the half message into TRANS_CHECK_MAX_TIME_TOPIC.
func (l *CheckListener) ResolveDiscardMsg(m *message.MessageExt, p *Props) {
	l.lg.Error("half message checked too many times, moving it to TRANS_CHECK_MAX_TIME_TOPIC",
		zap.String("msgId", m.MsgID), zap.Int64("commitLogOffset", m.CommitLogOffset))
	tc, _ := l.br.opts.Topics.CreateTopicOfTranCheckMaxTime(tcmtQueueNums, permRead|permWrite)
	topicName := CheckMaxTimeTopic
	if tc != nil {
		topicName = tc.TopicName
	}
	inner := &message.MessageExt{
		Message:          message.Message{Topic: topicName, Flag: m.Flag, Body: m.Body, Properties: p.Map()},
		PropertiesString: p.String(),
		QueueID:          0, // random % TCMT_QUEUE_NUMS (1)
		SysFlag:          m.SysFlag,
		BornHost:         m.BornHost,
		BornTimestamp:    m.BornTimestamp,
		StoreHost:        m.StoreHost,
		ReconsumeTimes:   m.ReconsumeTimes,
	}
	if _, ok := l.br.putMessage(inner); ok {
		realTopic, _ := p.Get(message.PropertyRealTopic)
		l.lg.Info("put checked-too-many-times half message to TRANS_CHECK_MAX_TIME_TOPIC",
			zap.Int64("queueOffset", m.QueueOffset), zap.Int64("commitLogOffset", m.CommitLogOffset),
			zap.String("topic", realTopic))
	}
}
