package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// The lean load generator (-mode send / echo) does not build a command per
// request: it encodes one SEND_MESSAGE_V2 frame with the codec, with
// same-width placeholders for the fields that change, and patches a copy
// of it per request. The wire bytes are those of a codec-encoded request.

// Placeholders: characters that neither a header value nor the
// lowercase-letter body contains, so each is found exactly once.
const (
	opaqueBase   = 1_000_000_000 // opaques are 10 digits: 1_000_000_000 + n
	opaqueSpan   = 1_000_000_000
	uniqSeqWidth = 12 // low hex digits of UNIQ_KEY that count messages
	bornWidth    = 13 // epoch milliseconds, 13 digits until 2286
)

// sendTemplate is one encoded SEND_MESSAGE_V2 frame and where its variable
// fields are.
type sendTemplate struct {
	frame   []byte
	ser     codec.SerializeType
	opaque  int // JSON: first of 10 digits; ROCKETMQ: the big-endian int32
	born    int
	queueID int
	qWidth  int
	uniqSeq int // first of the uniqSeqWidth hex digits that count
}

// newSendTemplate encodes the frame for topic with body; queues is the
// number of queue ids sends rotate over (their width is fixed).
func newSendTemplate(topic string, body []byte, queues int, ser codec.SerializeType) (*sendTemplate, error) {
	qWidth := len(strconv.Itoa(max(queues-1, 0)))
	pfx := fmt.Sprintf("7F000001%04X%08X", os.Getpid()&0xFFFF, uint32(time.Now().Unix()))
	uniqPH := pfx + strings.Repeat("^", uniqSeqWidth) // 20 + 12 = 32 hex digits, as a client makes
	props := message.PropertyUniqClientMessageIDKeyidx + string(rune(message.NameValueSeparator)) + uniqPH +
		string(rune(message.PropertySeparator)) + message.PropertyWaitStoreMsgOK + "\x01true"
	ext := map[string]string{
		"a": "benchmark_producer", "b": topic, "c": "TBW102", "d": "4", "e": strings.Repeat("%", qWidth), "f": "0",
		"g": strings.Repeat("@", bornWidth), "h": "0", "i": props, "j": "0", "k": "false", "m": "false",
	}
	cmd := codec.NewRequest(code.SendMessageV2, ext, body)
	cmd.SerializeType = ser
	cmd.Opaque = opaqueBase + opaqueSpan - 1
	frame, err := codec.Encode(cmd)
	if err != nil {
		return nil, err
	}
	t := &sendTemplate{frame: frame, ser: ser, qWidth: qWidth}
	hdrEnd := len(frame) - len(body)
	find := func(ph string) (int, error) {
		i := bytes.Index(frame[:hdrEnd], []byte(ph))
		if i < 0 || bytes.Contains(frame[i+len(ph):hdrEnd], []byte(ph)) {
			return 0, fmt.Errorf("send template: placeholder %q not found once", ph)
		}
		return i, nil
	}
	if t.born, err = find(strings.Repeat("@", bornWidth)); err != nil {
		return nil, err
	}
	if t.queueID, err = find(strings.Repeat("%", qWidth)); err != nil {
		return nil, err
	}
	if t.uniqSeq, err = find(strings.Repeat("^", uniqSeqWidth)); err != nil {
		return nil, err
	}
	if ser == codec.JSON {
		t.opaque, err = find(`"opaque":` + strconv.Itoa(opaqueBase+opaqueSpan-1))
		t.opaque += len(`"opaque":`)
	} else {
		t.opaque = 8 + 5 // length, type word, code(2) language(1) version(2)
	}
	return t, err
}

// appendSend appends a request with the given opaque offset (< opaqueSpan),
// queue id, born timestamp and message sequence number.
func (t *sendTemplate) appendSend(dst []byte, opaque int, queueID int, bornMS int64, seq uint64) []byte {
	at := len(dst)
	dst = append(dst, t.frame...)
	f := dst[at:]
	if t.ser == codec.JSON {
		putDecimal(f[t.opaque:t.opaque+10], uint64(opaqueBase+opaque))
	} else {
		binary.BigEndian.PutUint32(f[t.opaque:], uint32(opaqueBase+opaque))
	}
	putDecimal(f[t.born:t.born+bornWidth], uint64(bornMS))
	putDecimal(f[t.queueID:t.queueID+t.qWidth], uint64(queueID))
	const hexDigits = "0123456789ABCDEF"
	for i := t.uniqSeq + uniqSeqWidth - 1; i >= t.uniqSeq; i-- {
		f[i] = hexDigits[seq&15]
		seq >>= 4
	}
	return dst
}

// putDecimal writes v zero-padded into all of dst.
func putDecimal(dst []byte, v uint64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte('0' + v%10)
		v /= 10
	}
}

// responseHead returns the code and opaque of one frame (without its
// length prefix) without decoding the whole header: the fixed fields of a
// ROCKETMQ header, or the top-level "code" (fastjson writes it first) and
// "opaque" of a JSON one (extFields values are JSON strings, so neither
// key text can appear inside them unescaped).
func responseHead(frame []byte) (respCode int32, opaque int32, err error) {
	if len(frame) < 4 {
		return 0, 0, fmt.Errorf("response of %d bytes", len(frame))
	}
	w := binary.BigEndian.Uint32(frame)
	hl := int(w & 0xFFFFFF)
	if hl > len(frame)-4 {
		return 0, 0, fmt.Errorf("response header length %d of %d bytes", hl, len(frame))
	}
	h := frame[4 : 4+hl]
	if codec.SerializeType(w>>24) == codec.RocketMQ {
		if len(h) < 9 {
			return 0, 0, fmt.Errorf("ROCKETMQ header of %d bytes", len(h))
		}
		return int32(int16(binary.BigEndian.Uint16(h))), int32(binary.BigEndian.Uint32(h[5:])), nil
	}
	c, ok1 := jsonInt(h, bytes.Index(h, []byte(`"code":`)), len(`"code":`))
	o, ok2 := jsonInt(h, bytes.LastIndex(h, []byte(`"opaque":`)), len(`"opaque":`))
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("JSON header without code/opaque: %.80q", h)
	}
	return int32(c), int32(o), nil
}

// jsonInt parses the integer at h[at+skip:] (at < 0: not found).
func jsonInt(h []byte, at, skip int) (int64, bool) {
	if at < 0 {
		return 0, false
	}
	i := at + skip
	neg := i < len(h) && h[i] == '-'
	if neg {
		i++
	}
	var v int64
	start := i
	for ; i < len(h) && h[i] >= '0' && h[i] <= '9'; i++ {
		v = v*10 + int64(h[i]-'0')
	}
	if i == start {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}
