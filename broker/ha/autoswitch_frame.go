package ha

// Wire format of the HA port in controller mode, byte-compatible with
// Apache RocketMQ 5.x's auto-switch HA (AutoSwitchHAClient,
// AutoSwitchHAConnection). Every frame starts with the sender's
// HAConnectionState ordinal; all integers are big-endian.
//
//	slave -> master
//	  HANDSHAKE (16 bytes): state=1 int32 | syncFromLastFile int16 |
//	                        asyncLearner int16 | slaveBrokerId int64
//	  TRANSFER  (12 bytes): state=2 int32 | slaveMaxOffset int64
//	master -> slave
//	  HANDSHAKE (20 + 12*n): state=1 int32 | bodySize int32 |
//	                         masterMaxOffset int64 | lastEpoch int32 |
//	                         n x (epoch int32 | startOffset int64)
//	  TRANSFER  (36 + body): state=2 int32 | bodySize int32 | offset int64 |
//	                         epoch int32 | epochStartOffset int64 |
//	                         confirmOffset int64 | CommitLog bytes

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rocketmq-go/rmq/broker/store/epoch"
)

// HAConnectionState ordinals (5.x HAConnectionState).
const (
	stateReady     int32 = 0
	stateHandshake int32 = 1
	stateTransfer  int32 = 2
)

// Frame sizes of the auto-switch protocol.
const (
	SlaveHandshakeSize       = 4 + 4 + 8
	SlaveTransferSize        = 4 + 8
	MasterHandshakeHeaderLen = 4 + 4 + 8 + 4
	MasterTransferHeaderLen  = MasterHandshakeHeaderLen + 8 + 8
	EpochEntrySize           = 4 + 8
	// maxEpochEntries bounds a handshake body (5.x's buffer holds 1000).
	maxEpochEntries = 1000
)

// ErrBadFrame is returned for an auto-switch frame that cannot be valid.
var ErrBadFrame = errors.New("ha: bad auto-switch frame")

// SlaveFrame is one slave -> master frame.
type SlaveFrame struct {
	State            int32
	SyncFromLastFile bool
	AsyncLearner     bool
	BrokerID         int64 // HANDSHAKE
	MaxOffset        int64 // TRANSFER
}

// AppendSlaveHandshake appends a slave's HANDSHAKE frame.
func AppendSlaveHandshake(dst []byte, brokerID int64, syncFromLastFile, asyncLearner bool) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(stateHandshake))
	dst = binary.BigEndian.AppendUint16(dst, b2u16(syncFromLastFile))
	dst = binary.BigEndian.AppendUint16(dst, b2u16(asyncLearner))
	return binary.BigEndian.AppendUint64(dst, uint64(brokerID))
}

// AppendSlaveTransfer appends a slave's TRANSFER report of maxOffset.
func AppendSlaveTransfer(dst []byte, maxOffset int64) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(stateTransfer))
	return binary.BigEndian.AppendUint64(dst, uint64(maxOffset))
}

func b2u16(b bool) uint16 {
	if b {
		return 1
	}
	return 0
}

// ParseSlaveFrame decodes the first slave frame of buf; n == 0 means more
// bytes are needed.
func ParseSlaveFrame(buf []byte) (f SlaveFrame, n int, err error) {
	if len(buf) < 4 {
		return f, 0, nil
	}
	f.State = int32(binary.BigEndian.Uint32(buf))
	switch f.State {
	case stateHandshake:
		if len(buf) < SlaveHandshakeSize {
			return f, 0, nil
		}
		f.SyncFromLastFile = binary.BigEndian.Uint16(buf[4:]) == 1
		f.AsyncLearner = binary.BigEndian.Uint16(buf[6:]) == 1
		f.BrokerID = int64(binary.BigEndian.Uint64(buf[8:]))
		return f, SlaveHandshakeSize, nil
	case stateTransfer:
		if len(buf) < SlaveTransferSize {
			return f, 0, nil
		}
		f.MaxOffset = int64(binary.BigEndian.Uint64(buf[4:]))
		if f.MaxOffset < 0 {
			return f, 0, fmt.Errorf("%w: slave offset %d", ErrBadFrame, f.MaxOffset)
		}
		return f, SlaveTransferSize, nil
	default:
		return f, 0, fmt.Errorf("%w: slave state %d", ErrBadFrame, f.State)
	}
}

// MasterFrame is one master -> slave frame. Body aliases the parsed buffer.
type MasterFrame struct {
	State            int32
	Offset           int64 // HANDSHAKE: master max offset; TRANSFER: offset of Body
	Epoch            int32 // HANDSHAKE: last epoch; TRANSFER: epoch of Body
	EpochStartOffset int64 // TRANSFER
	ConfirmOffset    int64 // TRANSFER
	Entries          []epoch.Entry
	Body             []byte
}

// AppendMasterHandshake appends the master's HANDSHAKE answer: its max
// offset, last epoch and every epoch entry.
func AppendMasterHandshake(dst []byte, maxOffset int64, entries []epoch.Entry) []byte {
	last := int32(-1)
	if len(entries) > 0 {
		last = entries[len(entries)-1].Epoch
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(stateHandshake))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(entries)*EpochEntrySize))
	dst = binary.BigEndian.AppendUint64(dst, uint64(maxOffset))
	dst = binary.BigEndian.AppendUint32(dst, uint32(last))
	for _, e := range entries {
		dst = binary.BigEndian.AppendUint32(dst, uint32(e.Epoch))
		dst = binary.BigEndian.AppendUint64(dst, uint64(e.StartOffset))
	}
	return dst
}

// AppendMasterTransferHeader appends a TRANSFER header for bodySize bytes
// at offset (bodySize 0: heartbeat).
func AppendMasterTransferHeader(dst []byte, offset int64, bodySize int, e epoch.Entry, confirmOffset int64) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(stateTransfer))
	dst = binary.BigEndian.AppendUint32(dst, uint32(bodySize))
	dst = binary.BigEndian.AppendUint64(dst, uint64(offset))
	dst = binary.BigEndian.AppendUint32(dst, uint32(e.Epoch))
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.StartOffset))
	return binary.BigEndian.AppendUint64(dst, uint64(confirmOffset))
}

// ParseMasterFrame decodes the first master frame of buf; n == 0 (no
// error) means more bytes are needed. maxBody bounds a TRANSFER body.
func ParseMasterFrame(buf []byte, maxBody int) (f MasterFrame, n int, err error) {
	if len(buf) < MasterHandshakeHeaderLen {
		return f, 0, nil
	}
	f.State = int32(binary.BigEndian.Uint32(buf))
	size := int32(binary.BigEndian.Uint32(buf[4:]))
	f.Offset = int64(binary.BigEndian.Uint64(buf[8:]))
	f.Epoch = int32(binary.BigEndian.Uint32(buf[16:]))
	switch f.State {
	case stateHandshake:
		if size < 0 || size%EpochEntrySize != 0 || size/EpochEntrySize > maxEpochEntries {
			return f, 0, fmt.Errorf("%w: handshake body %d", ErrBadFrame, size)
		}
		end := MasterHandshakeHeaderLen + int(size)
		if len(buf) < end {
			return f, 0, nil
		}
		for p := MasterHandshakeHeaderLen; p < end; p += EpochEntrySize {
			f.Entries = append(f.Entries, epoch.Entry{Epoch: int32(binary.BigEndian.Uint32(buf[p:])),
				StartOffset: int64(binary.BigEndian.Uint64(buf[p+4:]))})
		}
		return f, end, nil
	case stateTransfer:
		if size < 0 || int(size) > maxBody || f.Offset < 0 {
			return f, 0, fmt.Errorf("%w: transfer offset %d body %d", ErrBadFrame, f.Offset, size)
		}
		if len(buf) < MasterTransferHeaderLen {
			return f, 0, nil
		}
		f.EpochStartOffset = int64(binary.BigEndian.Uint64(buf[20:]))
		f.ConfirmOffset = int64(binary.BigEndian.Uint64(buf[28:]))
		end := MasterTransferHeaderLen + int(size)
		if len(buf) < end {
			return f, 0, nil
		}
		f.Body = buf[MasterTransferHeaderLen:end:end]
		return f, end, nil
	default:
		return f, 0, fmt.Errorf("%w: master state %d", ErrBadFrame, f.State)
	}
}
