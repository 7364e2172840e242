package store

// The MessageStore contract the broker codes against (Java
// org.apache.rocketmq.store.MessageStore, GetMessageResult, GetMessageStatus,
// MessageFilter, MessageArrivingListener, QueryMessageResult).

import (
	"context"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/consumequeue"
	"github.com/rocketmq-go/rmq/internal/message"
)

// MessageStore is what the broker's processors, the HA service and the
// schedule/transaction services use. DefaultMessageStore implements it.
type MessageStore interface {
	// Start recovers the dispatch backlog and starts the services.
	Start() error
	// Shutdown stops everything, flushes and unmaps; idempotent.
	Shutdown(ctx context.Context) error

	// PutMessage appends one message and waits for the flush/replica
	// confirmation the configuration asks for (Java putMessage).
	PutMessage(m *message.MessageExt) commitlog.PutMessageResult
	// PutMessages appends a batch (already split from the batch body).
	PutMessages(ms []*message.MessageExt) commitlog.PutMessageResult
	// PutMessageAsync appends and calls done once confirmed; it never blocks
	// on the flush/replica wait (Java asyncPutMessage).
	PutMessageAsync(m *message.MessageExt, done func(commitlog.PutMessageResult))
	// PutMessagesAsync is the batch form of PutMessageAsync.
	PutMessagesAsync(ms []*message.MessageExt, done func(commitlog.PutMessageResult))

	// GetMessage reads up to maxMsgNums messages of a queue from offset
	// (Java getMessage). It returns nil when the store is shut down or not
	// readable.
	GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int32, filter MessageFilter) *GetMessageResult

	MaxOffsetInQueue(topic string, queueID int32) int64                       // 0 when unknown
	MinOffsetInQueue(topic string, queueID int32) int64                       // -1 when unknown
	CommitLogOffsetInQueue(topic string, queueID int32, cqOffset int64) int64 // 0 when unknown
	OffsetInQueueByTime(topic string, queueID int32, timestamp int64) int64
	MessageTotalInQueue(topic string, queueID int32) int64                   // -1 when unknown
	EarliestMessageTime(topic string, queueID int32) int64                   // -1 when unknown
	EarliestMessageTimeOfStore() int64                                       // store time at the CommitLog min offset
	MessageStoreTimeStamp(topic string, queueID int32, cqOffset int64) int64 // -1 when unknown
	CheckInDiskByConsumeOffset(topic string, queueID int32, consumeOffset int64) bool

	// LookMessageByOffset decodes the record at a CommitLog offset.
	LookMessageByOffset(commitLogOffset int64) (*message.MessageExt, error)
	// SelectOneMessageByOffset copies the whole record at a CommitLog
	// offset (size read from its header); nil when not readable.
	SelectOneMessageByOffset(commitLogOffset int64) []byte
	// SelectOneMessageByOffsetSize copies size bytes at a CommitLog offset.
	SelectOneMessageByOffsetSize(commitLogOffset int64, size int32) []byte

	// QueryMessage finds messages by key (or unique key) in [begin, end]
	// (Java queryMessage).
	QueryMessage(topic, key string, maxNum int, begin, end int64) *QueryMessageResult

	MaxPhyOffset() int64
	MinPhyOffset() int64
	// GetCommitLogData returns the readable CommitLog bytes from offset to
	// the end of its file (HA transfer); nil when not readable. Release it.
	GetCommitLogData(offset int64) *commitlog.Buffer
	// AppendToCommitLog appends replicated bytes at startOffset, which must
	// equal MaxPhyOffset (slave), and wakes the dispatcher.
	AppendToCommitLog(startOffset int64, data []byte) error
	// TruncateCommitLog drops CommitLog data at and after offset and the
	// consume-queue units pointing there (slave divergent tail).
	TruncateCommitLog(offset int64) error
	ConfirmOffset() int64
	SetConfirmOffset(phyOffset int64)
	// CommitLog exposes the CommitLog (HA registers its ReplicaWaiter).
	CommitLog() *commitlog.CommitLog

	// BrokerRole is the live role (role.go): brokerRole at start, then
	// what SetBrokerRole set (controller mode).
	BrokerRole() BrokerRole
	// SetBrokerRole switches the live role; a SLAVE refuses puts.
	SetBrokerRole(r BrokerRole) error
	// SettleReplicatedTail dispatches what was replicated, drops a torn
	// tail and rebuilds the queue offset table before the store acts as a
	// master; it returns the CommitLog max offset.
	SettleReplicatedTail() (int64, error)
	// SetFenced refuses puts (SERVICE_NOT_AVAILABLE) while on.
	SetFenced(on bool)
	// IsFenced reports whether puts are fenced.
	IsFenced() bool
	// SetInSyncReplicasCheck installs the minInSyncReplicas gate of a
	// controller-mode SYNC_MASTER (nil: none).
	SetInSyncReplicasCheck(f func() bool)

	DispatchBehindBytes() int64
	// Flush flushes the CommitLog and returns the flushed offset.
	Flush() int64
	IsOSPageCacheBusy() bool
	LockTimeMills() int64
	// Now is the store clock in ms.
	Now() int64
	// RuntimeInfo is the store part of GET_BROKER_RUNTIME_INFO.
	RuntimeInfo() map[string]string
	// StatsTotals returns the messages stored and handed out since start.
	StatsTotals() (putTimes, getTransferred int64)

	// ExecuteDeleteFilesManually forces the next 20 cleanup runs to delete
	// expired CommitLog files whatever the time of day.
	ExecuteDeleteFilesManually()
	// CleanUnusedTopic destroys the consume queues of every topic not in
	// keep (system schedule/op-half topics are kept); returns 0 like Java.
	CleanUnusedTopic(keep map[string]struct{}) int
	// CleanExpiredConsumerQueue destroys queues whose units all point below
	// the CommitLog min offset.
	CleanExpiredConsumerQueue()
	// DeleteTopics destroys the consume queues of the given topics.
	DeleteTopics(topics []string) int

	// MessageStoreConfig is the configuration the store runs with.
	MessageStoreConfig() *MessageStoreConfig
	// ConsumeQueue returns the queue or nil, without creating it
	// (QUERY_CONSUME_QUEUE reads its units).
	ConsumeQueue(topic string, queueID int32) *consumequeue.ConsumeQueue
	// IsTransientStorePoolDeficient is always false: the write buffer pool
	// (transientStorePoolEnable) is not implemented.
	IsTransientStorePoolDeficient() bool
}

// GetMessageStatus is Java's GetMessageStatus; String gives the Java name.
type GetMessageStatus int

// GetMessageStatus values in Java's declaration order.
const (
	Found GetMessageStatus = iota
	NoMatchedMessage
	MessageWasRemoving
	OffsetFoundNull
	OffsetOverflowBadly
	OffsetOverflowOne
	OffsetTooSmall
	NoMatchedLogicQueue
	NoMessageInQueue
)

var getStatusNames = [...]string{
	"FOUND", "NO_MATCHED_MESSAGE", "MESSAGE_WAS_REMOVING", "OFFSET_FOUND_NULL",
	"OFFSET_OVERFLOW_BADLY", "OFFSET_OVERFLOW_ONE", "OFFSET_TOO_SMALL",
	"NO_MATCHED_LOGIC_QUEUE", "NO_MESSAGE_IN_QUEUE",
}

func (s GetMessageStatus) String() string {
	if s >= 0 && int(s) < len(getStatusNames) {
		return getStatusNames[s]
	}
	return "UNKNOWN"
}

// GetMessageResult is the answer of GetMessage. The message bytes are
// copied out of the mapped files: Body is the concatenation of the raw
// CommitLog records (what a PULL_MESSAGE response carries) and Messages
// holds one sub-slice of Body per record.
type GetMessageResult struct {
	Status                  GetMessageStatus
	NextBeginOffset         int64
	MinOffset               int64
	MaxOffset               int64
	SuggestPullingFromSlave bool
	Body                    []byte
	Messages                [][]byte
	// MaxPhyOffsetPulling is the CommitLog offset of the last unit scanned.
	MaxPhyOffsetPulling int64
}

// MessageCount is the number of messages returned.
func (r *GetMessageResult) MessageCount() int { return len(r.Messages) }

// BufferTotalSize is the number of message bytes returned.
func (r *GetMessageResult) BufferTotalSize() int { return len(r.Body) }

// CqExtUnit is the consume-queue extension unit (Java ConsumeQueueExt.CqExtUnit).
// The extension file (enableConsumeQueueExt) is not implemented, so the
// store always passes nil; the type keeps the filter contract Java-shaped.
type CqExtUnit struct {
	TagsCode     int64
	MsgStoreTime int64
	FilterBitMap []byte
}

// MessageFilter decides which messages a GetMessage returns (Java
// MessageFilter; the broker implements it for tag and SQL92 subscriptions).
type MessageFilter interface {
	// IsMatchedByConsumeQueue filters by the unit's tagsCode (and the ext
	// unit's bloom bitmap when present; always nil here).
	IsMatchedByConsumeQueue(tagsCode int64, cqExt *CqExtUnit) bool
	// IsMatchedByCommitLog filters by the message itself. The store passes
	// the raw record and nil properties; the long-poll service passes nil
	// msg and the dispatched properties.
	IsMatchedByCommitLog(msg []byte, properties map[string]string) bool
}

// MessageArrivingListener is told about every unit dispatched on a master
// (Java MessageArrivingListener; the broker's long-poll service).
// logicOffset is the queue's max offset after this message (queue offset
// + 1), as Java passes it.
type MessageArrivingListener interface {
	Arriving(topic string, queueID int32, logicOffset, tagsCode, msgStoreTime int64,
		filterBitMap []byte, properties map[string]string)
}

// ArrivingPropertiesWanter may be implemented by a MessageArrivingListener
// that reads the properties map only in some states (the long-poll service:
// only while it holds a pull whose filter reads them). While
// WantsArrivingProperties is false the dispatcher passes nil properties
// instead of building a map per message; a listener without the method
// always gets the map.
type ArrivingPropertiesWanter interface {
	WantsArrivingProperties() bool
}

// PropertiesMatcher may be implemented by a MessageFilter:
// UsesCommitLogProperties false promises that IsMatchedByCommitLog accepts
// every message whatever its properties (a TAG subscription), so a
// long-poll holder need not ask for them.
type PropertiesMatcher interface {
	UsesCommitLogProperties() bool
}

// QueryMessageResult is the answer of QueryMessage: the records found,
// copied, oldest physical offset first.
type QueryMessageResult struct {
	Messages                 [][]byte
	IndexLastUpdateTimestamp int64
	IndexLastUpdatePhyoffset int64
}

// BufferTotalSize is the number of bytes in Messages.
func (r *QueryMessageResult) BufferTotalSize() int {
	n := 0
	for _, m := range r.Messages {
		n += len(m)
	}
	return n
}
