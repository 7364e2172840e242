package proxy

import (
	"strconv"
	"strings"

	"github.com/rocketmq-go/rmq/broker/pop"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// extraInfo builds a broker POP_CK string (8 fields).
func extraInfo(ckOffset, popTime, invisible int64, reviveQid int32, mark, brokerName string, queueID int32, msgOffset int64) string {
	var b strings.Builder
	b.Grow(64)
	b.WriteString(strconv.FormatInt(ckOffset, 10))
	for _, s := range []string{strconv.FormatInt(popTime, 10), strconv.FormatInt(invisible, 10),
		strconv.FormatInt(int64(reviveQid), 10), mark, brokerName, strconv.FormatInt(int64(queueID), 10),
		strconv.FormatInt(msgOffset, 10)} {
		b.WriteByte(' ')
		b.WriteString(s)
	}
	return b.String()
}

// parseOffsetInfo reads a POP answer's "mark queueId value;..." list
// (startOffsetInfo, msgOffsetInfo, orderCountInfo) into key "mark@queueId" →
// the value's text. Malformed entries are skipped.
func parseOffsetInfo(s *string) map[string]string {
	if s == nil || *s == "" {
		return nil
	}
	m := make(map[string]string, 4)
	for _, one := range strings.Split(*s, ";") {
		f := strings.Split(one, " ")
		if len(f) != 3 {
			continue
		}
		m[f[0]+"@"+f[1]] = f[2]
	}
	return m
}

// assignReceiptHandles gives every popped message its receipt handle, the
// way a 5.x client and proxy do after POP_MESSAGE: the POP_CK extraInfo from
// the answer header (or the one the broker already put on a re-encoded retry
// message) plus the CommitLog offset, stored in the POP_CK property. It also
// sets the order count of FIFO pops as the reconsume times and reports every
// message under the consumer's topic.
func assignReceiptHandles(msgs []*message.MessageExt, h *header.PopMessageResponseHeader, topic, brokerName string, order bool) {
	start := parseOffsetInfo(h.StartOffsetInfo)
	offsets := parseOffsetInfo(h.MsgOffsetInfo)
	counts := parseOffsetInfo(h.OrderCountInfo)
	seen := make(map[string]int, 4) // key → messages of that key seen so far
	firstOffset := make(map[string]int64, 4)
	for _, m := range msgs {
		if m.Properties == nil {
			m.Properties = map[string]string{}
		}
		ck, has := m.Properties[propPopCK]
		mark := pop.RetryMark(m.Topic)
		if has {
			if f := strings.SplitN(ck, " ", 6); len(f) >= 5 {
				mark = f[4]
			}
		}
		key := mark + "@" + strconv.Itoa(int(m.QueueID))
		idx := seen[key]
		seen[key] = idx + 1
		if !has {
			ck = popCKFor(m, h, key, mark, brokerName, idx, start, offsets, firstOffset)
		}
		if order && counts != nil {
			c, ok := counts[mark+"@qo"+strconv.Itoa(int(m.QueueID))+"%"+strconv.FormatInt(m.QueueOffset, 10)]
			if !ok {
				c = counts[key]
			}
			if n, err := strconv.Atoi(c); err == nil && n > 0 {
				m.ReconsumeTimes = int32(n)
			}
		}
		m.Properties[propPopCK] = withCommitLogOffset(ck, m.CommitLogOffset)
		m.Topic = topic
	}
}

func popCKFor(m *message.MessageExt, h *header.PopMessageResponseHeader, key, mark, brokerName string, idx int,
	start, offsets map[string]string, firstOffset map[string]int64) string {
	if start == nil {
		// Old brokers send no offset lists: the checkpoint starts at the
		// first message of the queue in this answer.
		ckOff, ok := firstOffset[key]
		if !ok {
			ckOff = m.QueueOffset
			firstOffset[key] = ckOff
		}
		return extraInfo(ckOff, h.PopTime, h.InvisibleTime, h.ReviveQid, mark, brokerName, m.QueueID, m.QueueOffset)
	}
	ckOff, _ := strconv.ParseInt(start[key], 10, 64)
	msgOff := m.QueueOffset
	if list := strings.Split(offsets[key], ","); idx < len(list) {
		if v, err := strconv.ParseInt(list[idx], 10, 64); err == nil {
			msgOff = v
		}
	}
	return extraInfo(ckOff, h.PopTime, h.InvisibleTime, h.ReviveQid, mark, brokerName, m.QueueID, msgOff)
}
