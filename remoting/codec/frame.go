package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Sentinel errors; returned errors wrap them with detail.
var (
	ErrFrameTooLarge   = errors.New("codec: frame too large")
	ErrBadFrame        = errors.New("codec: bad frame")
	ErrMalformedHeader = errors.New("codec: malformed header")
	ErrFieldRange      = errors.New("codec: field out of range for serialize type")
)

const (
	prefixLen    = 4          // the length word
	minFrameLen  = 8          // length word + type/header-length word
	maxHeaderLen = 1<<24 - 1  // header length has 24 bits
	headerMask   = 0x00FFFFFF // low 24 bits of word 2
)

// FrameLength returns the size of the first frame in buf including its 4-byte
// length prefix, or (0, nil) when fewer than 4 bytes are buffered. It does not
// require the whole frame to be present. Lengths that can never form a frame
// or exceed max wrap ErrBadFrame or ErrFrameTooLarge.
func FrameLength(buf []byte, max int) (int, error) {
	if len(buf) < prefixLen {
		return 0, nil
	}
	l := int64(int32(binary.BigEndian.Uint32(buf)))
	if l < minFrameLen-prefixLen {
		return 0, fmt.Errorf("%w: length field %d", ErrBadFrame, l)
	}
	total := l + prefixLen
	if total > int64(max) {
		return 0, fmt.Errorf("%w: %d bytes, limit %d", ErrFrameTooLarge, total, max)
	}
	return int(total), nil
}

// decoded puts a command and its layout in one allocation.
type decoded struct {
	cmd RemotingCommand
	lay headerLayout
}

// Decode parses one whole frame (length prefix included). Body aliases frame;
// every string is copied, so only Body pins the frame buffer.
func Decode(frame []byte) (*RemotingCommand, error) { return decode(frame, false) }

// DecodeLazy is Decode for a server's incoming requests: for the request
// codes of LazyExtCode it leaves the extFields map unbuilt (lazy.go), so
// read their custom header with Ext, RangeExt or Fields, not through
// ExtFields directly. Every other frame decodes exactly as with Decode.
func DecodeLazy(frame []byte) (*RemotingCommand, error) { return decode(frame, true) }

func decode(frame []byte, lazyOK bool) (*RemotingCommand, error) {
	if len(frame) < minFrameLen {
		return nil, fmt.Errorf("%w: %d bytes", ErrBadFrame, len(frame))
	}
	l := int64(binary.BigEndian.Uint32(frame))
	if l != int64(len(frame)-prefixLen) {
		return nil, fmt.Errorf("%w: length field %d, frame has %d bytes", ErrBadFrame, l, len(frame)-prefixLen)
	}
	w := binary.BigEndian.Uint32(frame[4:])
	st := SerializeType(w >> 24)
	hl := int(w & headerMask)
	if hl > len(frame)-minFrameLen {
		return nil, fmt.Errorf("%w: header length %d, frame has %d bytes", ErrBadFrame, hl, len(frame)-minFrameLen)
	}
	d := newDecoded(lazyOK)
	d.cmd.layout = &d.lay
	d.lay.ser = st
	d.lay.exact = true
	d.lay.extOrder = d.lay.extBuf[:0]
	hdr := frame[minFrameLen : minFrameLen+hl]
	var err error
	switch st {
	case JSON:
		err = decodeJSON(&d.cmd, &d.lay, hdr, lazyOK)
	case RocketMQ:
		err = decodeBinary(&d.cmd, &d.lay, hdr, lazyOK)
	default:
		err = fmt.Errorf("%w: serialize type %d", ErrBadFrame, st)
	}
	if err != nil {
		return nil, err
	}
	if d.lay.lazy && !lazyRequest(&d.cmd) {
		d.cmd.materialize() // a JSON header names its code or flag after extFields
	}
	d.lay.reindexExt()
	d.cmd.SerializeType = st
	if body := frame[minFrameLen+hl:]; len(body) > 0 {
		d.cmd.Body = body
	}
	return &d.cmd, nil
}

// Encode returns the whole frame for c, length prefix included.
func Encode(c *RemotingCommand) ([]byte, error) {
	return AppendFrame(nil, c)
}

// AppendFrame appends the whole frame for c to dst.
func AppendFrame(dst []byte, c *RemotingCommand) ([]byte, error) {
	if dst == nil {
		dst = make([]byte, 0, estimateSize(c))
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	lay := c.layout
	if lay != nil && lay.ser != c.SerializeType {
		lay = nil
	}
	var err error
	switch c.SerializeType {
	case JSON:
		dst = appendJSONHeader(dst, c, lay)
	case RocketMQ:
		dst, err = appendBinaryHeader(dst, c, lay)
	default:
		err = fmt.Errorf("%w: serialize type %d", ErrFieldRange, c.SerializeType)
	}
	if err != nil {
		return dst[:start], err
	}
	hl := len(dst) - start - minFrameLen
	if hl > maxHeaderLen {
		return dst[:start], fmt.Errorf("%w: header of %d bytes", ErrFrameTooLarge, hl)
	}
	dst = append(dst, c.Body...)
	total := len(dst) - start - prefixLen
	if int64(total) > 1<<31-1 {
		return dst[:start], fmt.Errorf("%w: %d bytes", ErrFrameTooLarge, total)
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(total))
	binary.BigEndian.PutUint32(dst[start+4:], uint32(c.SerializeType)<<24|uint32(hl))
	return dst, nil
}

func estimateSize(c *RemotingCommand) int {
	n := len(c.ExtFields)
	if c.lazyExt() {
		n = len(c.layout.extOrder)
	}
	return minFrameLen + 192 + len(c.Remark) + len(c.Body) + 48*n
}
