package header

import (
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Send headers read straight from a command: a request decoded with
// codec.DecodeLazy has no extFields map, and building one only to look the
// fourteen keys up again was most of the header cost of a send (issue
// #11). The values are picked out of the command's entries into slots in
// one pass; the same readers as FromExtFields then parse them, so the
// header and every error are the ones the map would give.

// Send header keys by slot: the V1 field order, V2's letters in the same
// slots (l is maxReconsumeTimes, m batch, n bname).
var (
	sendKeysV1 = [numSendSlots]string{"producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums", "queueId",
		"sysFlag", "bornTimestamp", "flag", "properties", "reconsumeTimes", "unitMode", "maxReconsumeTimes", "batch", "bname"}
	sendKeysV2 = [numSendSlots]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"}
)

const numSendSlots = 14

// sendSlots holds the raw values of a send header's keys.
type sendSlots struct {
	keys *[numSendSlots]string
	v    [numSendSlots]string
	have uint16 // bit i: keys[i] was present
	next int    // the slot the next get most likely asks for
}

// index returns the slot of key k, or -1 for a key the header ignores.
func (s *sendSlots) index(k string) int {
	if s.keys == &sendKeysV2 {
		if len(k) == 1 && k[0] >= 'a' && k[0] < 'a'+numSendSlots {
			return int(k[0] - 'a')
		}
		return -1
	}
	for i := range s.keys {
		if s.keys[i] == k {
			return i
		}
	}
	return -1
}

// get is the map lookup of key. The readers ask in slot order (V1's
// batch and maxReconsumeTimes aside), so next usually hits.
func (s *sendSlots) get(key string) (string, bool) {
	i := s.next
	if i >= numSendSlots || s.keys[i] != key {
		if i = s.index(key); i < 0 {
			return "", false
		}
	}
	s.next = i + 1
	return s.v[i], s.have&(1<<i) != 0
}

// DecodeSendRequest is DecodeSendMessageRequestHeader(req.Code,
// req.ExtFields) that reads a lazily decoded request without building its
// map: the same header, the same errors.
func DecodeSendRequest(req *codec.RemotingCommand) (*SendMessageRequestHeader, error) {
	h := new(SendMessageRequestHeader)
	if ok, err := DecodeSendRequestInto(h, req); !ok || err != nil {
		return nil, err
	}
	return h, nil
}

// DecodeSendRequestInto is DecodeSendRequest into the caller's h (which
// may then live on the stack); ok is false, h untouched, for a code with
// no send header. On error h is zero.
func DecodeSendRequestInto(h *SendMessageRequestHeader, req *codec.RemotingCommand) (ok bool, err error) {
	r := extReader{useSlots: true, slots: sendSlots{keys: &sendKeysV1}}
	s := &r.slots
	switch req.Code {
	case code.SendMessageV2, code.SendBatchMessage, code.SendReplyMessageV2:
		s.keys = &sendKeysV2
	case code.SendMessage, code.SendReplyMessage:
	default:
		return false, nil
	}
	req.RangeExt(func(k, v string) bool {
		if i := s.index(k); i >= 0 {
			s.v[i] = v
			s.have |= 1 << i
		}
		return true
	})
	if s.keys == &sendKeysV2 {
		return true, h.readV2(&r)
	}
	return true, h.read(&r)
}
