package message

import (
	"encoding/binary"
	"fmt"
)

// BatchItem is one message of a SEND_BATCH_MESSAGE body (wire format §4).
type BatchItem struct {
	Flag             int32
	Body             []byte // aliases the batch body
	PropertiesString string
}

// DecodeBatch splits a SEND_BATCH_MESSAGE body (MessageDecoder.decodesBatch /
// MessageExtBatch):
//
//	totalSize i32 | magic i32 | bodyCRC i32 | flag i32 | bodyLen i32 | body | propsLen i16 | props
//
// magic and bodyCRC are ignored (the client writes 0). totalSize must match.
func DecodeBatch(body []byte) ([]BatchItem, error) {
	var out []BatchItem
	for off := 0; off < len(body); {
		r := &reader{b: body, p: off}
		total := r.i32()
		r.take(8)
		flag := r.i32()
		b := r.take(int(r.i32()))
		props := r.take(int(int16(r.u16())))
		if r.bad {
			return out, fmt.Errorf("%w: batch item at %d", ErrShortRecord, off)
		}
		if int(total) != r.p-off {
			return out, fmt.Errorf("%w: batch item at %d", ErrBadRecordSize, off)
		}
		out = append(out, BatchItem{Flag: flag, Body: b, PropertiesString: string(props)})
		off = r.p
	}
	return out, nil
}

// EncodeBatch is the inverse of DecodeBatch (MessageDecoder.encodeMessages as
// a client writes it, magic and CRC 0).
func EncodeBatch(dst []byte, items []BatchItem) []byte {
	be := binary.BigEndian
	for _, it := range items {
		n := 20 + len(it.Body) + 2 + len(it.PropertiesString)
		dst = be.AppendUint32(dst, uint32(n))
		dst = be.AppendUint64(dst, 0)
		dst = be.AppendUint32(dst, uint32(it.Flag))
		dst = be.AppendUint32(dst, uint32(len(it.Body)))
		dst = append(dst, it.Body...)
		dst = be.AppendUint16(dst, uint16(len(it.PropertiesString)))
		dst = append(dst, it.PropertiesString...)
	}
	return dst
}
