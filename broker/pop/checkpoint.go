package pop

// The revive log's records (5.x store/pop): a checkpoint (PopCheckPoint,
// tag "ck") per popped batch of one queue, an ack (AckMsg, tag "ack") per
// acknowledged message and a batch ack (BatchAckMsg, tag "bAck"). Bodies are
// fastjson: short field names in alphabetical order; fastjson also writes
// the checkpoint's derived getter reviveTime.

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
)

// Revive log constants (PopAckConstants).
const (
	ReviveTopicPrefix = "rmq_sys_REVIVE_LOG_"
	ReviveGroup       = "CID_RMQ_SYS_REVIVE_GROUP"
	CkTag             = "ck"
	AckTag            = "ack"
	BatchAckTag       = "bAck"
	// AckTimeInterval is PopAckConstants.ackTimeInterval (ms).
	AckTimeInterval = 1000
	// RetryQueueNum is PopAckConstants.retryQueueNum: queues of a pop
	// retry topic.
	RetryQueueNum = 1
)

// ReviveTopic is PopAckConstants.buildClusterReviveTopic.
func ReviveTopic(cluster string) string { return ReviveTopicPrefix + cluster }

// Checkpoint is PopCheckPoint: the messages of one queue handed out by one
// pop, as offsets relative to StartOffset.
type Checkpoint struct {
	BitMap          int32   `json:"bm"`
	BrokerName      string  `json:"bn"`
	CID             string  `json:"c"`
	QueueOffsetDiff []int32 `json:"d"`
	InvisibleTime   int64   `json:"it"`
	Num             int8    `json:"n"`
	PopTime         int64   `json:"pt"`
	QueueID         int32   `json:"q"`
	// ReviveTime is written (fastjson serialises the getter) and ignored on
	// read: it is always PopTime + InvisibleTime.
	ReviveTime   int64   `json:"reviveTime"`
	ReviveOffset int64   `json:"ro"`
	RePutTimes   *string `json:"rp,omitempty"`
	StartOffset  int64   `json:"so"`
	Topic        string  `json:"t"`
}

// Due is getReviveTime.
func (c *Checkpoint) Due() int64 { return c.PopTime + c.InvisibleTime }

// Offset returns the queue offset of the i-th message.
func (c *Checkpoint) Offset(i int) int64 { return c.StartOffset + int64(c.QueueOffsetDiff[i]) }

// Index returns the position of queue offset off in the checkpoint, or -1.
func (c *Checkpoint) Index(off int64) int {
	d := off - c.StartOffset
	for i, v := range c.QueueOffsetDiff {
		if int64(v) == d {
			return i
		}
	}
	return -1
}

// UniqueID is PopMessageProcessor.genCkUniqueId (the record's UNIQ_KEY).
func (c *Checkpoint) UniqueID() string {
	return strings.Join([]string{c.Topic, strconv.Itoa(int(c.QueueID)), strconv.FormatInt(c.StartOffset, 10),
		c.CID, strconv.FormatInt(c.PopTime, 10), c.BrokerName, CkTag}, "@")
}

// AckMsg is AckMsg, and BatchAckMsg when AckOffsetList is set.
type AckMsg struct {
	AckOffset     int64   `json:"ao"`
	AckOffsetList []int64 `json:"aol,omitempty"`
	BrokerName    string  `json:"bn"`
	ConsumerGroup string  `json:"c"`
	PopTime       int64   `json:"pt"`
	QueueID       int32   `json:"q"`
	StartOffset   int64   `json:"so"`
	Topic         string  `json:"t"`
}

// UniqueID is PopMessageProcessor.genAckUniqueId.
func (a *AckMsg) UniqueID() string {
	return strings.Join([]string{a.Topic, strconv.Itoa(int(a.QueueID)), strconv.FormatInt(a.AckOffset, 10),
		a.ConsumerGroup, strconv.FormatInt(a.PopTime, 10), a.BrokerName, AckTag}, "@")
}

// Offsets returns the acknowledged queue offsets.
func (a *AckMsg) Offsets() []int64 {
	if len(a.AckOffsetList) > 0 {
		return a.AckOffsetList
	}
	return []int64{a.AckOffset}
}

// ckKey identifies the checkpoint an ack belongs to.
type ckKey struct {
	topic, group, brokerName string
	queueID                  int32
	startOffset, popTime     int64
}

func (c *Checkpoint) key() ckKey {
	return ckKey{c.Topic, c.CID, c.BrokerName, c.QueueID, c.StartOffset, c.PopTime}
}

func (a *AckMsg) key() ckKey {
	return ckKey{a.Topic, a.ConsumerGroup, a.BrokerName, a.QueueID, a.StartOffset, a.PopTime}
}

// UnmarshalJSON also reads the long names a fastjson writer may produce
// for the getter getCId ("cId"), so a revive log written by a 5.x broker
// pairs too.
func (c *Checkpoint) UnmarshalJSON(b []byte) error {
	type plain Checkpoint
	var v struct {
		plain
		CIDLong string `json:"cid"` // matches "cId" and "cid" (case-insensitive)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Checkpoint(v.plain)
	if c.CID == "" {
		c.CID = v.CIDLong
	}
	return nil
}

// UnmarshalJSON also reads AckMsg's alternateNames (the long field names).
func (a *AckMsg) UnmarshalJSON(b []byte) error {
	type plain AckMsg
	var v struct {
		plain
		AckOffsetL     *int64  `json:"ackOffset"`
		AckOffsetListL []int64 `json:"ackOffsetList"`
		BrokerNameL    string  `json:"brokerName"`
		ConsumerGroupL string  `json:"consumerGroup"`
		PopTimeL       *int64  `json:"popTime"`
		QueueIDL       *int32  `json:"queueId"`
		StartOffsetL   *int64  `json:"startOffset"`
		TopicL         string  `json:"topic"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*a = AckMsg(v.plain)
	if v.AckOffsetL != nil {
		a.AckOffset = *v.AckOffsetL
	}
	if len(v.AckOffsetListL) > 0 {
		a.AckOffsetList = v.AckOffsetListL
	}
	a.BrokerName = cmp.Or(a.BrokerName, v.BrokerNameL)
	a.ConsumerGroup = cmp.Or(a.ConsumerGroup, v.ConsumerGroupL)
	a.Topic = cmp.Or(a.Topic, v.TopicL)
	if v.PopTimeL != nil {
		a.PopTime = *v.PopTimeL
	}
	if v.QueueIDL != nil {
		a.QueueID = *v.QueueIDL
	}
	if v.StartOffsetL != nil {
		a.StartOffset = *v.StartOffsetL
	}
	return nil
}
