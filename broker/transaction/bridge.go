package transaction

// Bridge mirrors TransactionalMessageBridge (broker/transaction/queue,
// 4.9.8): the store, offset and topic plumbing of the transaction service.

import (
	"net/netip"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/broker/store"
	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/body"
)

// Topic, tag and group names (TopicValidator, TransactionalMessageUtil,
// MixAll.CID_SYS_RMQ_TRANS).
const (
	HalfTopic         = "RMQ_SYS_TRANS_HALF_TOPIC"
	OpTopic           = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
	CheckMaxTimeTopic = "TRANS_CHECK_MAX_TIME_TOPIC"
	ConsumerGroup     = "CID_RMQ_SYS_TRANS"
	RemoveTag         = "d"
)

// Topic permissions (PermName).
const (
	permWrite = 2
	permRead  = 4
)

// Store is the part of the message store the service needs.
type Store interface {
	GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int32, filter store.MessageFilter) *store.GetMessageResult
	MinOffsetInQueue(topic string, queueID int32) int64
	PutMessage(m *message.MessageExt) commitlog.PutMessageResult
	LookMessageByOffset(commitLogOffset int64) (*message.MessageExt, error)
}

// Offsets is the consumer offset manager.
type Offsets interface {
	QueryOffset(group, topic string, queueID int32) int64
	CommitOffset(clientHost, group, topic string, queueID int32, offset int64)
}

// Topics is the topic config manager.
type Topics interface {
	SelectTopicConfig(topic string) *body.TopicConfig
	CreateTopicInSendMessageBackMethod(topic string, queueNums, perm, topicSysFlag int32) (*body.TopicConfig, bool)
	CreateTopicOfTranCheckMaxTime(queueNums, perm int32) (*body.TopicConfig, bool)
}

// Options configure a Bridge.
type Options struct {
	Store   Store
	Offsets Offsets
	Topics  Topics
	// StoreHost is brokerIP1:listenPort, the born/store host of op records
	// (read at each write: the port is known only after Start).
	StoreHost func() netip.AddrPort
	// FileReservedTime is the store's fileReservedTime (half messages born
	// longer ago are discarded); nil → 72 h.
	FileReservedTime func() time.Duration
	// Now is the clock; nil → time.Now.
	Now func() time.Time
	// Logger; nil → zap.NewNop().
	Logger *zap.Logger
}

// Bridge is TransactionalMessageBridge.
type Bridge struct {
	opts Options
	lg   *zap.Logger
}

// NewBridge returns a Bridge over the given store and managers.
func NewBridge(opts Options) *Bridge {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.FileReservedTime == nil {
		opts.FileReservedTime = func() time.Duration { return 72 * time.Hour }
	}
	if opts.StoreHost == nil {
		opts.StoreHost = func() netip.AddrPort { return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), 0) }
	}
	return &Bridge{opts: opts, lg: opts.Logger}
}

func (br *Bridge) nowMillis() int64 { return br.opts.Now().UnixMilli() }

// fetchConsumeOffset is the CID_RMQ_SYS_TRANS offset of a queue, or the
// queue's min offset when none was committed.
func (br *Bridge) fetchConsumeOffset(topic string, queueID int32) int64 {
	off := br.opts.Offsets.QueryOffset(ConsumerGroup, topic, queueID)
	if off == -1 {
		off = br.opts.Store.MinOffsetInQueue(topic, queueID)
	}
	return off
}

// updateConsumeOffset commits the CID_RMQ_SYS_TRANS offset of a queue.
func (br *Bridge) updateConsumeOffset(topic string, queueID int32, off int64) {
	br.opts.Offsets.CommitOffset(br.opts.StoreHost().String(), ConsumerGroup, topic, queueID, off)
}

// fetchMessageQueues lists the read queues of topic, creating the topic as
// Java's selectTopicConfig does when it is missing.
func (br *Bridge) fetchMessageQueues(topic string) []int32 {
	tc := br.opts.Topics.SelectTopicConfig(topic)
	if tc == nil {
		tc, _ = br.opts.Topics.CreateTopicInSendMessageBackMethod(topic, 1, permWrite|permRead, 0)
	}
	if tc == nil {
		return nil
	}
	out := make([]int32, 0, max(tc.ReadQueueNums, 0))
	for i := int32(0); i < tc.ReadQueueNums; i++ {
		out = append(out, i)
	}
	return out
}

// pullStatus is the client PullStatus the bridge maps store answers to.
type pullStatus int

const (
	pullFound pullStatus = iota
	pullNoNewMsg
	pullNoMatchedMsg
	pullOffsetIllegal
)

// pullResult is the part of a PullResult the check pass reads. msgs is nil
// unless the status is pullFound.
type pullResult struct {
	status          pullStatus
	nextBeginOffset int64
	msgs            []*message.MessageExt
}

// getMessage is TransactionalMessageBridge.getMessage: read nums records of
// a system queue as CID_RMQ_SYS_TRANS. nil when the store is not readable.
func (br *Bridge) getMessage(topic string, queueID int32, offset int64, nums int32) *pullResult {
	res := br.opts.Store.GetMessage(ConsumerGroup, topic, queueID, offset, nums, nil)
	if res == nil {
		br.lg.Error("get message from store returned nothing", zap.String("topic", topic),
			zap.Int32("queueId", queueID), zap.Int64("queueOffset", offset))
		return nil
	}
	pr := &pullResult{status: pullNoNewMsg, nextBeginOffset: res.NextBeginOffset}
	switch res.Status {
	case store.Found:
		pr.status = pullFound
		pr.msgs = make([]*message.MessageExt, 0, len(res.Messages))
		for _, rec := range res.Messages {
			if m, err := message.DecodeRecord(rec, true); err == nil {
				pr.msgs = append(pr.msgs, m)
			}
		}
	case store.NoMatchedMessage:
		pr.status = pullNoMatchedMsg
	case store.NoMessageInQueue, store.OffsetOverflowOne:
		pr.status = pullNoNewMsg
	default:
		pr.status = pullOffsetIllegal
	}
	return pr
}

// Confirmer is the optional store method that waits for the flush and
// replication of the CommitLog up to end (store.DefaultMessageStore has
// it). Without it a put's flush/slave verdict is taken as final.
type Confirmer interface {
	AwaitConfirmed(end int64) commitlog.PutMessageStatus
}

// putOutcome is what a bridge write achieved.
type putOutcome int

const (
	putFailed      putOutcome = iota // nothing written
	putUnconfirmed                   // appended; flush or slave confirmation missing
	putConfirmed                     // PUT_OK: as durable as the store's mode promises
)

// put stores m and classifies the result.
//
// Java sets waitStoreMsgOK=false on every record the bridge writes (after
// rendering the properties string, which keeps WAIT=true), so its store
// answers PUT_OK once the record is appended, flushed or not, replicated or
// not. Here only PUT_OK from a put that waited counts as confirmed:
// FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT and SLAVE_NOT_AVAILABLE mean the
// record is in the CommitLog but a crash or failover may still lose it.
func (br *Bridge) put(m *message.MessageExt) (commitlog.PutMessageResult, putOutcome) {
	res := br.opts.Store.PutMessage(m)
	switch res.Status {
	case commitlog.PutOK:
		if message.PropertyValue(m.PropertiesString, message.PropertyWaitStoreMsgOK) != "false" {
			return res, putConfirmed
		}
		if br.confirm(putEnd(res)) { // the put did not wait
			return res, putConfirmed
		}
		return res, putUnconfirmed
	case commitlog.FlushDiskTimeout, commitlog.FlushSlaveTimeout, commitlog.SlaveNotAvailable:
		if _, ok := br.opts.Store.(Confirmer); !ok {
			return res, putConfirmed
		}
		br.lg.Warn("transaction record written but not confirmed", zap.String("topic", m.Topic),
			zap.Int32("queueId", m.QueueID), zap.Stringer("status", res.Status))
		return res, putUnconfirmed
	}
	br.lg.Error("put message failed", zap.String("topic", m.Topic), zap.Int32("queueId", m.QueueID),
		zap.Stringer("status", res.Status))
	return res, putFailed
}

// putMessage stores m and reports whether the write is confirmed.
func (br *Bridge) putMessage(m *message.MessageExt) (commitlog.PutMessageResult, bool) {
	res, o := br.put(m)
	return res, o == putConfirmed
}

// confirm waits once for the CommitLog up to end to be flushed and
// replicated as the store's mode requires.
func (br *Bridge) confirm(end int64) bool {
	c, ok := br.opts.Store.(Confirmer)
	if !ok {
		return true
	}
	return c.AwaitConfirmed(end) == commitlog.PutOK
}

func putEnd(r commitlog.PutMessageResult) int64 {
	return r.Append.WroteOffset + int64(r.Append.WroteBytes)
}

// LookMessageByOffset decodes the record at a CommitLog offset (nil when
// there is none).
func (br *Bridge) LookMessageByOffset(off int64) *message.MessageExt {
	m, err := br.opts.Store.LookMessageByOffset(off)
	if err != nil {
		return nil
	}
	return m
}

// PutOpMessage is putOpMessage with REMOVETAG (addRemoveTagInTransactionOp):
// an op record for the half message in the op queue of the same id.
func (br *Bridge) PutOpMessage(half *message.MessageExt) bool {
	host := br.opts.StoreHost()
	p := &Props{}
	p.Put(message.PropertyWaitStoreMsgOK, "true") // new Message(...) waits by default
	p.Put(message.PropertyTags, RemoveTag)
	op := &message.MessageExt{
		Message:          message.Message{Topic: OpTopic, Body: []byte(strconv.FormatInt(half.QueueOffset, 10)), Properties: p.Map()},
		PropertiesString: p.String(),
		QueueID:          half.QueueID,
		BornTimestamp:    br.nowMillis(),
		BornHost:         host,
		StoreHost:        host,
	}
	_, ok := br.putMessage(op)
	return ok
}

// renewHalfMessage is renewHalfMessageInner: a copy of the half message for
// its own queue with the (possibly updated) properties.
func renewHalfMessage(m *message.MessageExt, p *Props) *message.MessageExt {
	return &message.MessageExt{
		Message:          message.Message{Topic: m.Topic, Body: m.Body, Properties: p.Map()},
		PropertiesString: p.String(),
		QueueID:          m.QueueID,
		SysFlag:          m.SysFlag,
		BornTimestamp:    m.BornTimestamp,
		BornHost:         m.BornHost,
		StoreHost:        m.StoreHost,
	}
}

// renewImmunityHalfMessage is renewImmunityHalfMessageInner: also records
// the original queue offset as TRAN_PREPARED_QUEUE_OFFSET.
func renewImmunityHalfMessage(m *message.MessageExt, p *Props) *message.MessageExt {
	q := p.Clone()
	if v, ok := p.Get(message.PropertyTransactionPreparedQueueOffset); ok {
		q.Put(message.PropertyTransactionPreparedQueueOffset, v)
	} else {
		q.Put(message.PropertyTransactionPreparedQueueOffset, strconv.FormatInt(m.QueueOffset, 10))
	}
	return renewHalfMessage(m, q)
}
