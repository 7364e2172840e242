package message

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// ErrBadMsgID is returned for ids that are not valid hex of a known length.
var ErrBadMsgID = errors.New("message: malformed message id")

const hexUpper = "0123456789ABCDEF"

// OffsetMsgID renders the server-side message id (MessageDecoder.createMessageId):
// upper-case hex of store ip (4 or 16 bytes) + port (i32) + physical offset
// (i64): 32 characters for IPv4, 56 for IPv6.
func OffsetMsgID(storeHost netip.AddrPort, offset int64) string {
	var raw [28]byte
	n := putHost(raw[:], storeHost)
	binary.BigEndian.PutUint64(raw[n:], uint64(offset))
	n += 8
	out := make([]byte, 2*n)
	for i, c := range raw[:n] {
		out[2*i] = hexUpper[c>>4]
		out[2*i+1] = hexUpper[c&0xF]
	}
	return string(out)
}

// DecodeOffsetMsgID splits an offsetMsgId into store host and physical offset
// (MessageDecoder.decodeMessageId). Either case of hex is accepted; a port
// outside 0..65535 is ErrBadMsgID, as Java fails on it.
func DecodeOffsetMsgID(id string) (netip.AddrPort, int64, error) {
	if len(id) != 32 && len(id) != 56 {
		return netip.AddrPort{}, 0, fmt.Errorf("%w: length %d", ErrBadMsgID, len(id))
	}
	raw, err := hex.DecodeString(id)
	if err != nil {
		return netip.AddrPort{}, 0, fmt.Errorf("%w: %v", ErrBadMsgID, err)
	}
	ipLen := len(raw) - 12
	ip, _ := netip.AddrFromSlice(raw[:ipLen])
	port := binary.BigEndian.Uint32(raw[ipLen:])
	if port > 0xFFFF { // an i32 on the wire; Java's InetSocketAddress refuses it
		return netip.AddrPort{}, 0, fmt.Errorf("%w: port %d out of range", ErrBadMsgID, int32(port))
	}
	off := int64(binary.BigEndian.Uint64(raw[ipLen+4:]))
	return netip.AddrPortFrom(ip, uint16(port)), off, nil
}

// UniqKey is a decoded client message id (property UNIQ_KEY,
// MessageClientIDSetter): fixed prefix ip + pid + classLoader hash, then time
// since the start of the month (ms) and a counter.
type UniqKey struct {
	IP              netip.Addr
	PID             int16
	ClassLoaderHash int32
	MonthMillis     int32 // ms since the start of the producer's current month
	Counter         int16
}

// ParseUniqKey decodes a 32-character (IPv4) or 56-character (IPv6) UNIQ_KEY.
// Java producers write upper-case hex, the Go client lower-case for the
// time/counter part; both are accepted.
func ParseUniqKey(id string) (UniqKey, error) {
	if len(id) != 32 && len(id) != 56 {
		return UniqKey{}, fmt.Errorf("%w: length %d", ErrBadMsgID, len(id))
	}
	raw, err := hex.DecodeString(strings.ToUpper(id))
	if err != nil {
		return UniqKey{}, fmt.Errorf("%w: %v", ErrBadMsgID, err)
	}
	ipLen := len(raw) - 12
	ip, _ := netip.AddrFromSlice(raw[:ipLen])
	be := binary.BigEndian
	r := raw[ipLen:]
	return UniqKey{
		IP:              ip,
		PID:             int16(be.Uint16(r[0:])),
		ClassLoaderHash: int32(be.Uint32(r[2:])),
		MonthMillis:     int32(be.Uint32(r[6:])),
		Counter:         int16(be.Uint16(r[10:])),
	}, nil
}
