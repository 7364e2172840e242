package store

// In-place record parsing for the dispatcher and recovery (the only record
// checker of the store; the validator and the re-dispatch both use it): the
// checks of Java CommitLog.checkMessageAndReturnSize without decoding the
// record into a message (no properties map, no copies unless a field is
// needed as a string).

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/consumequeue"
	"github.com/rocketmq-go/rmq/internal/message"
)

// recordStatus classifies the bytes at a record position, with the
// outcomes of Java checkMessageAndReturnSize.
type recordStatus int8

const (
	recordValid    recordStatus = iota // a whole, consistent record
	recordBlank                        // end-of-file blank record: go to the next file
	recordMismatch                     // header sane but fields disagree with TOTALSIZE (size known)
	recordBad                          // unreadable (short, bad magic, bad lengths, CRC mismatch)
)

// recordView locates the dispatch fields of one record. topic and props
// alias the CommitLog mapping: copy before keeping them.
type recordView struct {
	size            int32
	queueID         int32
	queueOffset     int64
	commitLogOffset int64
	sysFlag         int32
	bornTimestamp   int64
	storeTimestamp  int64
	preparedTxOff   int64
	topic           []byte
	props           []byte
}

// cursor reads big-endian fields from a record; any read past its end sets
// bad (like message's decoder, it never panics).
type cursor struct {
	b   []byte
	p   int
	bad bool
}

func (c *cursor) take(n int) []byte {
	if c.bad || n < 0 || len(c.b)-c.p < n {
		c.bad = true
		return nil
	}
	s := c.b[c.p : c.p+n : c.p+n]
	c.p += n
	return s
}

func (c *cursor) i32() int32 {
	if s := c.take(4); s != nil {
		return int32(binary.BigEndian.Uint32(s))
	}
	return 0
}

func (c *cursor) i64() int64 {
	if s := c.take(8); s != nil {
		return int64(binary.BigEndian.Uint64(s))
	}
	return 0
}

// parseRecord checks the record at the start of b and locates its fields
// (Java checkMessageAndReturnSize; with checkCRC the body CRC must match).
func parseRecord(b []byte, checkCRC bool) (recordView, recordStatus) {
	var v recordView
	if len(b) < 8 {
		return v, recordBad
	}
	be := binary.BigEndian
	total := int32(be.Uint32(b))
	switch int32(be.Uint32(b[message.PosMagic:])) {
	case message.MagicCode:
	case message.BlankMagicCode:
		return v, recordBlank
	default:
		return v, recordBad
	}
	if total < 8 || int(total) > len(b) {
		return v, recordBad
	}
	c := cursor{b: b[:total], p: message.PosBodyCRC}
	crc := c.i32()
	v.size, v.queueID = total, c.i32()
	c.i32() // flag
	v.queueOffset, v.commitLogOffset = c.i64(), c.i64()
	v.sysFlag = c.i32()
	v.bornTimestamp = c.i64()
	c.take(hostLen(v.sysFlag&message.SysFlagBornHostV6 != 0))
	v.storeTimestamp = c.i64()
	c.take(hostLen(v.sysFlag&message.SysFlagStoreHostV6 != 0))
	c.i32() // reconsumeTimes
	v.preparedTxOff = c.i64()
	body := c.take(int(c.i32()))
	// The CRC is computed before reading on, so the record is read in
	// address order (one pass through the cache lines); it only counts
	// once the layout has been found sound, as in Java.
	crcOK := !checkCRC || message.BodyCRC(body) == crc
	v.topic = c.take(int(int8(c.takeByte())))
	v.props = c.take(int(int16(c.u16())))
	switch {
	case c.bad:
		return v, recordBad
	case c.p != int(total):
		return v, recordMismatch
	case !crcOK:
		return v, recordBad
	}
	return v, recordValid
}

func (c *cursor) takeByte() byte {
	if s := c.take(1); s != nil {
		return s[0]
	}
	return 0
}

func (c *cursor) u16() uint16 {
	if s := c.take(2); s != nil {
		return binary.BigEndian.Uint16(s)
	}
	return 0
}

// hostLen is the stored length of a host: address + i32 port.
func hostLen(v6 bool) int {
	if v6 {
		return 20
	}
	return 8
}

// tagsCode is message.TagsCode of a TAGS value held as bytes, without a
// copy for ASCII tags.
func tagsCode(tags []byte) int64 {
	var h int32
	for _, c := range tags {
		if c >= utf8.RuneSelf {
			return message.TagsCode(string(tags))
		}
		h = 31*h + int32(c)
	}
	return int64(h)
}

// aliasString is b as a string without a copy: only for values that are
// dropped before b's bytes can change (the dispatcher's KEYS and UNIQ_KEY,
// which the index hashes and forgets, while the CommitLog buffer is held).
func aliasString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// dispatchRequest turns a parsed record into what the dispatchers need.
// withProps also builds the properties map (for the arriving listener).
func (s *DefaultMessageStore) dispatchRequest(v *recordView, withProps bool) commitlog.DispatchRequest {
	return s.dispatchRequestNamed(v, s.topicName(v.topic, v.queueID), withProps, nil)
}

// dispatchRequestNamed is dispatchRequest with the topic name as a string;
// without withProps, str (nil: a plain conversion) makes the KEYS and
// UNIQ_KEY strings.
func (s *DefaultMessageStore) dispatchRequestNamed(v *recordView, topic string, withProps bool,
	str func([]byte) string) commitlog.DispatchRequest {
	d := commitlog.DispatchRequest{
		Topic: topic, QueueID: v.queueID, CommitLogOffset: v.commitLogOffset, MsgSize: v.size,
		StoreTimestamp: v.storeTimestamp, ConsumeQueueOffset: v.queueOffset, SysFlag: v.sysFlag,
		PreparedTransactionOffset: v.preparedTxOff, BornTimestamp: v.bornTimestamp,
	}
	if withProps {
		// One pass over the properties: the map the listener gets also
		// gives the values the dispatchers need (same rules: non-empty
		// name and value, the last occurrence wins), as substrings of the
		// map's one copy.
		m := message.UnmarshalProperties(string(v.props))
		d.Properties = m
		d.Keys, d.UniqKey = m[message.PropertyKeys], m[message.PropertyUniqClientMessageIDKeyidx]
		d.TagsCode = message.TagsCode(m[message.PropertyTags])
		if d.Topic == message.ScheduleTopic {
			s.delayTagsCode(&d, m[message.PropertyDelayTimeLevel])
		}
		return d
	}
	p := scanDispatchProps(v.props)
	if str == nil {
		str = func(b []byte) string { return string(b) }
	}
	if p.keys != nil {
		d.Keys = str(p.keys)
	}
	if p.uniqKey != nil {
		d.UniqKey = str(p.uniqKey)
	}
	d.TagsCode = tagsCode(p.tags)
	if d.Topic == message.ScheduleTopic {
		s.delayTagsCode(&d, string(p.delay))
	}
	return d
}

// dispatchProps are the property values the dispatchers read.
type dispatchProps struct{ keys, uniqKey, tags, delay []byte }

// scanDispatchProps finds KEYS, UNIQ_KEY, TAGS and DELAY in one pass over
// a properties string, with message.UnmarshalProperties' rules (non-empty name
// and value, a later duplicate wins); the recovery scan and a slave's dispatcher
// read every record's properties this way.
func scanDispatchProps(props []byte) dispatchProps {
	var p dispatchProps
	for len(props) > 0 {
		seg := props
		if i := bytes.IndexByte(props, message.PropertySeparator); i >= 0 {
			seg, props = props[:i], props[i+1:]
		} else {
			props = nil
		}
		i := bytes.IndexByte(seg, message.NameValueSeparator)
		if i <= 0 || i >= len(seg)-1 {
			continue
		}
		switch val := seg[i+1:]; string(seg[:i]) {
		case message.PropertyKeys:
			p.keys = val
		case message.PropertyUniqClientMessageIDKeyidx:
			p.uniqKey = val
		case message.PropertyTags:
			p.tags = val
		case message.PropertyDelayTimeLevel:
			p.delay = val
		}
	}
	return p
}

// delayTagsCode makes a delayed record's tagsCode its delivery time.
func (s *DefaultMessageStore) delayTagsCode(d *commitlog.DispatchRequest, level string) {
	if lv, err := strconv.Atoi(level); err == nil && lv > 0 {
		d.TagsCode = s.deliverTimestamp(lv, d.StoreTimestamp)
	}
}

// deliverTimestamp is ScheduleMessageService.computeDeliverTimestamp with
// the level clamped to the max level (the tagsCode of a delayed record).
func (s *DefaultMessageStore) deliverTimestamp(level int, storeTS int64) int64 {
	if s.maxDelayLevel > 0 && level > s.maxDelayLevel {
		level = s.maxDelayLevel
	}
	if d, ok := s.delayLevels[level]; ok {
		return storeTS + d
	}
	return storeTS + 1000
}

// topicName returns the topic as a string, shared with the queue table
// when the topic has queues (no copy per record).
func (s *DefaultMessageStore) topicName(b []byte, queueID int32) string {
	name, _ := s.queueOf(b, queueID)
	return name
}

// queueOf is topicName plus the record's consume queue when it exists
// (nil otherwise: putMessagePositionInfo creates it), from one read-locked
// lookup: the dispatcher needs both for every record.
func (s *DefaultMessageStore) queueOf(b []byte, queueID int32) (string, *consumequeue.ConsumeQueue) {
	s.cqMu.RLock()
	defer s.cqMu.RUnlock()
	m := s.cqTable[string(b)]
	if cq := m[queueID]; cq != nil {
		return cq.Topic(), cq
	}
	for _, cq := range m {
		return cq.Topic(), nil
	}
	return string(b), nil
}
