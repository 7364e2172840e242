package header

import (
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// Send and pull headers read straight from a command: a request decoded
// with codec.DecodeLazy has no extFields map, and building one only to look
// the keys up again was most of the header cost of a send (issue #11). The
// values are picked out of the command's entries into slots in one pass;
// the same readers as FromExtFields then parse them, so the header and
// every error are the ones the map would give.

const maxSlots = 16

// Header keys by slot. V2's letters sit in V1's slots (l is
// maxReconsumeTimes, m batch, n bname).
var (
	sendKeysV1 = slotKeys("producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums", "queueId",
		"sysFlag", "bornTimestamp", "flag", "properties", "reconsumeTimes", "unitMode", "maxReconsumeTimes", "batch", "bname")
	sendKeysV2 = slotKeys("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n")
	pullKeys   = slotKeys("consumerGroup", "topic", "queueId", "queueOffset", "maxMsgNums", "sysFlag", "commitOffset",
		"suspendTimeoutMillis", "subscription", "subVersion", "expressionType", "maxMsgBytes", "requestSource",
		"proxyFrowardClientId", "bname")
)

// keyTable is a header's keys in slot order.
type keyTable struct {
	keys    [maxSlots]string
	n       int
	letters bool // keys are "a", "b"... in order
	// find is an open-addressed table of slot+1 by keyHash (0: empty),
	// so that naming an entry's slot costs one or two compares rather
	// than one per key.
	find [findSize]uint8
}

const findSize = 64 // a power of two, well above maxSlots

func slotKeys(keys ...string) *keyTable {
	t := &keyTable{n: len(keys), letters: true}
	for i, k := range keys {
		t.keys[i] = k
		t.letters = t.letters && k == string(rune('a'+i))
		h := keyHash(k)
		for t.find[h] != 0 {
			h = (h + 1) % findSize
		}
		t.find[h] = uint8(i + 1)
	}
	return t
}

// keyHash mixes a key's length and its first and last bytes: enough to
// tell the keys of one header apart in most cases.
func keyHash(k string) uint {
	if k == "" {
		return 0
	}
	return (uint(len(k))*131 + uint(k[0])*31 + uint(k[len(k)-1])) % findSize
}

// extSlots holds the raw values of a header's keys.
type extSlots struct {
	t    *keyTable
	v    [maxSlots]string
	have uint16 // bit i: key i was present
	next int    // the slot the next get most likely asks for
}

// index returns the slot of key k, or -1 for a key the header ignores.
func (s *extSlots) index(k string) int {
	if s.t.letters {
		if len(k) == 1 && k[0] >= 'a' && int(k[0]-'a') < s.t.n {
			return int(k[0] - 'a')
		}
		return -1
	}
	for h := keyHash(k); s.t.find[h] != 0; h = (h + 1) % findSize {
		if i := int(s.t.find[h]) - 1; s.t.keys[i] == k {
			return i
		}
	}
	return -1
}

// get is the map lookup of key. The readers mostly ask in slot order, so
// next usually hits.
func (s *extSlots) get(key string) (string, bool) {
	i := s.next
	if i >= s.t.n || s.t.keys[i] != key {
		if i = s.index(key); i < 0 {
			return "", false
		}
	}
	s.next = i + 1
	return s.v[i], s.have&(1<<i) != 0
}

// slotReader returns a reader over req's entries for the keys of t. It
// returns a value: a pointer would move the slots to the heap.
func slotReader(req *codec.RemotingCommand, t *keyTable) extReader {
	r := extReader{useSlots: true, slots: extSlots{t: t}}
	s := &r.slots
	req.RangeExt(func(k, v string) bool {
		if i := s.index(k); i >= 0 {
			s.v[i] = v
			s.have |= 1 << i
		}
		return true
	})
	return r
}

// DecodeSendRequestInto is DecodeSendMessageRequestHeader(req.Code,
// req.ExtFields) into the caller's h (which may then live on the stack),
// reading a lazily decoded request without building its map: the same
// header, the same errors; ok is false, h untouched, for a code with
// no send header. On error h is zero.
func DecodeSendRequestInto(h *SendMessageRequestHeader, req *codec.RemotingCommand) (ok bool, err error) {
	switch req.Code {
	case code.SendMessageV2, code.SendBatchMessage, code.SendReplyMessageV2:
		r := slotReader(req, sendKeysV2)
		return true, h.readV2(&r)
	case code.SendMessage, code.SendReplyMessage:
		r := slotReader(req, sendKeysV1)
		return true, h.read(&r)
	}
	return false, nil
}

// DecodePullRequestInto is h.FromExtFields(req.Fields()) without building
// a lazily decoded request's map: the same header, the same errors.
func DecodePullRequestInto(h *PullMessageRequestHeader, req *codec.RemotingCommand) error {
	r := slotReader(req, pullKeys)
	return h.read(&r)
}
