package message

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// Errors returned by the record codec.
var (
	ErrShortRecord   = errors.New("message: record truncated")
	ErrBadMagic      = errors.New("message: bad magic code")
	ErrBadRecordSize = errors.New("message: record size does not match its fields")
	ErrTopicTooLong  = errors.New("message: topic longer than 127 bytes")
	ErrPropsTooLong  = errors.New("message: properties longer than 32767 bytes")
)

// Fixed positions in a record (independent of host address families).
const (
	PosTotalSize   = 0
	PosMagic       = 4
	PosBodyCRC     = 8
	PosQueueID     = 12
	PosFlag        = 16
	PosQueueOffset = 20
	PosPhysOffset  = 28
	PosSysFlag     = 36
	PosBornTime    = 40
	PosBornHost    = 48
	BlankRecordLen = 8 // TOTALSIZE + MAGICCODE of the end-of-file record
)

// hostLen is the stored length of a host (address + i32 port).
func hostLen(v6 bool) int {
	if v6 {
		return 20
	}
	return 8
}

// StoreTimestampPos is the position of STORETIMESTAMP for this sysFlag.
func StoreTimestampPos(sysFlag int32) int {
	return PosBornHost + hostLen(sysFlag&SysFlagBornHostV6 != 0)
}

// StoreTimestampOf reads STORETIMESTAMP from a stored record; ok is false
// when rec is too short to hold it.
func StoreTimestampOf(rec []byte) (ts int64, ok bool) {
	if len(rec) < PosSysFlag+4 {
		return 0, false
	}
	p := StoreTimestampPos(int32(binary.BigEndian.Uint32(rec[PosSysFlag:])))
	if p+8 > len(rec) {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(rec[p:])), true
}

// StoreHostPos is the position of STOREHOST for this sysFlag.
func StoreHostPos(sysFlag int32) int { return StoreTimestampPos(sysFlag) + 8 }

// bodyLenPos is the position of BODYLEN for this sysFlag.
func bodyLenPos(sysFlag int32) int {
	return StoreHostPos(sysFlag) + hostLen(sysFlag&SysFlagStoreHostV6 != 0) + 4 + 8
}

// RecordLen is the stored size of a record (CommitLog.calMsgLength).
func RecordLen(sysFlag int32, bodyLen, topicLen, propsLen int) int {
	return bodyLenPos(sysFlag) + 4 + bodyLen + 1 + topicLen + 2 + propsLen
}

// is6 reports whether a must be stored as 16 bytes.
func is6(a netip.Addr) bool { return a.Is6() && !a.Is4In6() }

// hostFlags returns sysFlag with the IPv6 bits set from the hosts' families.
func hostFlags(sysFlag int32, born, store netip.AddrPort) int32 {
	sysFlag &^= SysFlagBornHostV6 | SysFlagStoreHostV6
	if is6(born.Addr()) {
		sysFlag |= SysFlagBornHostV6
	}
	if is6(store.Addr()) {
		sysFlag |= SysFlagStoreHostV6
	}
	return sysFlag
}

// putHost writes ip and port at b and returns the bytes written.
func putHost(b []byte, h netip.AddrPort) int {
	a := h.Addr()
	n := 4
	if !a.IsValid() { // unknown host: 0.0.0.0 with the port
		clear(b[:4])
	} else if is6(a) {
		s := a.As16()
		copy(b, s[:])
		n = 16
	} else {
		s := a.Unmap().As4()
		copy(b, s[:])
	}
	binary.BigEndian.PutUint32(b[n:], uint32(h.Port()))
	return n + 4
}

// EncodeRecord appends m as one CommitLog record to dst. The IPv6 bits of
// SysFlag follow the families of BornHost/StoreHost; BODYCRC is computed from
// the body; StoreSize, MsgID and Properties are ignored (PropertiesString is
// written).
func EncodeRecord(dst []byte, m *MessageExt) ([]byte, error) {
	n, sys, err := RecordSize(m)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	PutRecord(dst[start:], m, sys, BodyCRC(m.Body))
	return dst, nil
}

// RecordSize checks the variable-length fields of m and returns the stored
// size of its record and the sysFlag to store (SysFlag with the IPv6 bits set
// from the host families). With PutRecord it lets a writer size and checksum
// a record before taking its append lock, then render it in place.
func RecordSize(m *MessageExt) (n int, sysFlag int32, err error) {
	if len(m.Topic) > MaxTopicLength {
		return 0, 0, ErrTopicTooLong
	}
	if len(m.PropertiesString) > MaxPropertiesLength {
		return 0, 0, ErrPropsTooLong
	}
	sys := hostFlags(m.SysFlag, m.BornHost, m.StoreHost)
	return RecordLen(sys, len(m.Body), len(m.Topic), len(m.PropertiesString)), sys, nil
}

// PutRecord renders m into b, which must hold exactly the size RecordSize
// gave, with the sysFlag it gave and bodyCRC as BODYCRC (BodyCRC(m.Body)).
// Every byte of b is written, so b need not be zeroed.
func PutRecord(b []byte, m *MessageExt, sysFlag, bodyCRC int32) {
	be := binary.BigEndian
	_ = b[PosBornHost] // one bounds check for the fixed prefix
	be.PutUint32(b[PosTotalSize:], uint32(len(b)))
	magic := MagicCode
	be.PutUint32(b[PosMagic:], uint32(magic))
	be.PutUint32(b[PosBodyCRC:], uint32(bodyCRC))
	be.PutUint32(b[PosQueueID:], uint32(m.QueueID))
	be.PutUint32(b[PosFlag:], uint32(m.Flag))
	be.PutUint64(b[PosQueueOffset:], uint64(m.QueueOffset))
	be.PutUint64(b[PosPhysOffset:], uint64(m.CommitLogOffset))
	be.PutUint32(b[PosSysFlag:], uint32(sysFlag))
	be.PutUint64(b[PosBornTime:], uint64(m.BornTimestamp))
	p := PosBornHost + putHost(b[PosBornHost:], m.BornHost)
	be.PutUint64(b[p:], uint64(m.StoreTimestamp))
	p += 8
	p += putHost(b[p:], m.StoreHost)
	be.PutUint32(b[p:], uint32(m.ReconsumeTimes))
	be.PutUint64(b[p+4:], uint64(m.PreparedTransactionOffset))
	p += 12
	be.PutUint32(b[p:], uint32(len(m.Body)))
	p += 4 + copy(b[p+4:], m.Body)
	b[p] = byte(len(m.Topic))
	p += 1 + copy(b[p+1:], m.Topic)
	be.PutUint16(b[p:], uint16(len(m.PropertiesString)))
	copy(b[p+2:], m.PropertiesString)
}

// reader is a bounds-checked big-endian cursor.
type reader struct {
	b   []byte
	p   int
	bad bool
}

func (r *reader) take(n int) []byte {
	if r.bad || n < 0 || len(r.b)-r.p < n {
		r.bad = true
		return nil
	}
	s := r.b[r.p : r.p+n]
	r.p += n
	return s
}

func (r *reader) i32() int32 {
	if s := r.take(4); s != nil {
		return int32(binary.BigEndian.Uint32(s))
	}
	return 0
}

func (r *reader) i64() int64 {
	if s := r.take(8); s != nil {
		return int64(binary.BigEndian.Uint64(s))
	}
	return 0
}

func (r *reader) host(v6 bool) netip.AddrPort {
	n := 4
	if v6 {
		n = 16
	}
	ip := r.take(n)
	port := r.i32()
	if r.bad {
		return netip.AddrPort{}
	}
	a, _ := netip.AddrFromSlice(ip)
	return netip.AddrPortFrom(a, uint16(port))
}

// DecodeRecord decodes the record at the start of b (MessageDecoder.decode).
// With readBody false the body is skipped (Body nil). Body aliases b.
// TOTALSIZE must equal the length implied by the fields.
func DecodeRecord(b []byte, readBody bool) (*MessageExt, error) {
	r := &reader{b: b}
	m := &MessageExt{}
	m.StoreSize = r.i32()
	magic := r.i32()
	if r.bad {
		return nil, ErrShortRecord
	}
	if magic != MagicCode {
		return nil, fmt.Errorf("%w: %#x", ErrBadMagic, uint32(magic))
	}
	if m.StoreSize < 0 || int(m.StoreSize) > len(b) {
		return nil, ErrShortRecord
	}
	r.b = b[:m.StoreSize]
	m.BodyCRC = r.i32()
	m.QueueID = r.i32()
	m.Flag = r.i32()
	m.QueueOffset = r.i64()
	m.CommitLogOffset = r.i64()
	m.SysFlag = r.i32()
	m.BornTimestamp = r.i64()
	m.BornHost = r.host(m.SysFlag&SysFlagBornHostV6 != 0)
	m.StoreTimestamp = r.i64()
	m.StoreHost = r.host(m.SysFlag&SysFlagStoreHostV6 != 0)
	m.ReconsumeTimes = r.i32()
	m.PreparedTransactionOffset = r.i64()
	body := r.take(int(r.i32()))
	if readBody {
		m.Body = body
	}
	m.Topic = string(r.take(int(int8(r.takeByte()))))
	m.PropertiesString = string(r.take(int(int16(r.u16()))))
	if r.bad {
		return nil, ErrShortRecord
	}
	if r.p != int(m.StoreSize) {
		return nil, ErrBadRecordSize
	}
	m.Properties = UnmarshalProperties(m.PropertiesString)
	m.MsgID = OffsetMsgID(m.StoreHost, m.CommitLogOffset)
	return m, nil
}

func (r *reader) takeByte() byte {
	if s := r.take(1); s != nil {
		return s[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if s := r.take(2); s != nil {
		return binary.BigEndian.Uint16(s)
	}
	return 0
}

// DecodeRecords decodes concatenated records (MessageDecoder.decodes, e.g. a
// pull response body). It stops at the first record that does not decode and
// returns what was decoded with that error.
func DecodeRecords(b []byte, readBody bool) ([]*MessageExt, error) {
	var out []*MessageExt
	for len(b) > 0 {
		m, err := DecodeRecord(b, readBody)
		if err != nil {
			return out, err
		}
		out = append(out, m)
		b = b[m.StoreSize:]
	}
	return out, nil
}
