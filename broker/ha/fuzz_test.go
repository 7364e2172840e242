package ha

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzHAFrameReader feeds arbitrary bytes, cut at an arbitrary point, to
// both stream readers. Invariants: no panic; whatever parses re-encodes to
// exactly the consumed prefix; reading in two chunks gives the same frames
// as reading at once.
func FuzzHAFrameReader(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	f.Add(AppendTransferHeader(nil, TransferHeader{PhyOffset: 1284, BodySize: 0}), uint16(5))
	f.Add(append(AppendTransferHeader(nil, TransferHeader{BodySize: 3}), 1, 2, 3), uint16(13))
	f.Add(AppendTransferHeader(nil, TransferHeader{BodySize: -1}), uint16(1))
	f.Add(AppendTransferHeader(nil, TransferHeader{BodySize: 1 << 30}), uint16(1))
	f.Add(AppendReport(AppendReport(nil, 0), 2140), uint16(9))
	if d, err := filepath.Abs("../../../shared/golden/ha"); err == nil {
		files, _ := filepath.Glob(filepath.Join(d, "*", "conn*.bin"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b, uint16(len(b)/3))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		split := int(cut) % (len(data) + 1)
		whole := readTransfers(t, bytes.NewReader(data))
		parts := readTransfers(t, io.MultiReader(bytes.NewReader(data[:split]), bytes.NewReader(data[split:])))
		if !bytes.Equal(whole, parts) {
			t.Fatal("split read differs from whole read")
		}
		if !bytes.HasPrefix(data, whole) {
			t.Fatal("re-encoded transfers are not a prefix of the input")
		}
		checkReports(t, data, split)
	})
}

// checkReports: every value the report reader returns is one of the input's
// aligned 8-byte words, in stream order, and no more than len/8 of them.
func checkReports(t *testing.T, data []byte, split int) {
	r := NewReportReader(io.MultiReader(bytes.NewReader(data[:split]), bytes.NewReader(data[split:])))
	pos := 0
	for n := 0; ; n++ {
		v, err := r.Next()
		if err != nil {
			return
		}
		if n >= len(data)/ReportSize {
			t.Fatal("more reports than the input holds")
		}
		for pos+ReportSize <= len(data) {
			w, _, _ := ParseReports(data[pos : pos+ReportSize])
			pos += ReportSize
			if w == v {
				break
			}
		}
		if w, _, _ := ParseReports(data[pos-ReportSize : pos]); w != v {
			t.Fatalf("report %d not found in stream order", v)
		}
	}
}

// readTransfers re-encodes every transfer that parses.
func readTransfers(t *testing.T, r io.Reader) []byte {
	tr := NewTransferReader(r, 64<<10)
	var out []byte
	for {
		h, body, err := tr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrBadTransfer) {
				t.Fatalf("unexpected error %v", err)
			}
			return out
		}
		if int(h.BodySize) != len(body) {
			t.Fatalf("body %d bytes, header says %d", len(body), h.BodySize)
		}
		out = append(AppendTransferHeader(out, h), body...)
	}
}
