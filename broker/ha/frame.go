package ha

// Wire format of the HA port (Java HAConnection / HAService.HAClient,
// 4.9.8 default HA). Both directions are raw TCP byte streams without any
// framing beyond what is below.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

const (
	// ReportSize is the size of a slave -> master offset report.
	ReportSize = 8
	// TransferHeaderSize is the size of a master -> slave transfer header
	// (phyOffset int64, bodySize int32).
	TransferHeaderSize = 12
	// DefaultMaxBodySize bounds a transfer body a reader accepts: the
	// slave's 4 MiB read buffer minus the header (Java READ_MAX_BUFFER_SIZE).
	DefaultMaxBodySize = 4<<20 - TransferHeaderSize
)

// ErrBadTransfer is returned for a transfer header that cannot be valid
// (negative or oversized body, negative offset).
var ErrBadTransfer = errors.New("ha: bad transfer header")

// TransferHeader is the 12-byte master -> slave header. BodySize 0 is a
// heartbeat at the master's current transfer position.
type TransferHeader struct {
	PhyOffset int64
	BodySize  int32
}

// AppendReport appends the 8-byte big-endian report of maxOffset.
func AppendReport(dst []byte, maxOffset int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(maxOffset))
}

// AppendTransferHeader appends a 12-byte transfer header.
func AppendTransferHeader(dst []byte, h TransferHeader) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(h.PhyOffset))
	return binary.BigEndian.AppendUint32(dst, uint32(h.BodySize))
}

// ParseTransfer decodes the first complete transfer at the start of buf.
// It returns n == 0 (and no error) when buf does not hold a whole header
// and body yet; body aliases buf. maxBody bounds BodySize.
func ParseTransfer(buf []byte, maxBody int) (h TransferHeader, body []byte, n int, err error) {
	if len(buf) < TransferHeaderSize {
		return TransferHeader{}, nil, 0, nil
	}
	h.PhyOffset = int64(binary.BigEndian.Uint64(buf))
	h.BodySize = int32(binary.BigEndian.Uint32(buf[8:]))
	if h.BodySize < 0 || int(h.BodySize) > maxBody || h.PhyOffset < 0 {
		return h, nil, 0, fmt.Errorf("%w: phyOffset=%d bodySize=%d", ErrBadTransfer, h.PhyOffset, h.BodySize)
	}
	end := TransferHeaderSize + int(h.BodySize)
	if len(buf) < end {
		return h, nil, 0, nil
	}
	return h, buf[TransferHeaderSize:end:end], end, nil
}

// ParseReports returns the last complete report in buf and the bytes that
// make up whole reports (a multiple of 8); ok is false when buf holds no
// complete report. Like Java's ReadSocketService, only the last value of a
// burst matters.
func ParseReports(buf []byte) (last int64, n int, ok bool) {
	n = len(buf) - len(buf)%ReportSize
	if n == 0 {
		return 0, 0, false
	}
	return int64(binary.BigEndian.Uint64(buf[n-ReportSize:])), n, true
}

// TransferReader reads master -> slave transfers from a stream.
type TransferReader struct {
	r       io.Reader
	maxBody int
	buf     []byte
	start   int // first unconsumed byte
	end     int // end of buffered bytes
}

// NewTransferReader reads from r with a buffer of TransferHeaderSize +
// maxBody bytes (maxBody <= 0 means DefaultMaxBodySize).
func NewTransferReader(r io.Reader, maxBody int) *TransferReader {
	if maxBody <= 0 {
		maxBody = DefaultMaxBodySize
	}
	return &TransferReader{r: r, maxBody: maxBody, buf: make([]byte, TransferHeaderSize+maxBody)}
}

// Next returns the next transfer. body aliases the reader's buffer and is
// valid until the next call. At a clean end of stream it returns io.EOF; a
// stream cut inside a transfer gives io.ErrUnexpectedEOF.
func (t *TransferReader) Next() (TransferHeader, []byte, error) {
	for {
		h, body, n, err := ParseTransfer(t.buf[t.start:t.end], t.maxBody)
		if err != nil {
			return h, nil, err
		}
		if n > 0 {
			t.start += n
			return h, body, nil
		}
		if err := t.fill(); err != nil {
			return TransferHeader{}, nil, err
		}
	}
}

// Buffered returns the bytes read but not consumed yet.
func (t *TransferReader) Buffered() []byte { return t.buf[t.start:t.end] }

func (t *TransferReader) fill() error {
	if t.start > 0 {
		t.end = copy(t.buf, t.buf[t.start:t.end])
		t.start = 0
	}
	n, err := t.r.Read(t.buf[t.end:])
	t.end += n
	if n > 0 {
		return nil
	}
	if err == nil {
		return io.ErrNoProgress
	}
	if errors.Is(err, io.EOF) && t.end > 0 {
		return io.ErrUnexpectedEOF
	}
	return err
}

// ReportReader reads slave -> master offset reports from a stream.
type ReportReader struct {
	r   io.Reader
	buf [8 * 1024]byte
	n   int // buffered bytes (< ReportSize after each Next)
}

// NewReportReader reads reports from r.
func NewReportReader(r io.Reader) *ReportReader { return &ReportReader{r: r} }

// Next reads until at least one complete report is buffered and returns
// the last complete one (earlier ones of the same read are superseded).
// At a clean end of stream it returns io.EOF; a partial trailing report
// gives io.ErrUnexpectedEOF.
func (r *ReportReader) Next() (int64, error) {
	for {
		if last, n, ok := ParseReports(r.buf[:r.n]); ok {
			r.n = copy(r.buf[:], r.buf[n:r.n])
			return last, nil
		}
		m, err := r.r.Read(r.buf[r.n:])
		r.n += m
		if m > 0 {
			continue
		}
		if err == nil {
			return 0, io.ErrNoProgress
		}
		if errors.Is(err, io.EOF) && r.n > 0 {
			return 0, io.ErrUnexpectedEOF
		}
		return 0, err
	}
}
