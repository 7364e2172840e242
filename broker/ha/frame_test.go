package ha

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rocketmq-go/rmq/internal/message"
)

// goldenDir finds /work/shared/golden as ../shared/golden from the repo
// root, or RMQ_GOLDEN_DIR.
func goldenDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("RMQ_GOLDEN_DIR"); d != "" {
		return d
	}
	d, err := filepath.Abs("../../../shared/golden")
	if err != nil {
		t.Skip("golden dir not found")
	}
	if _, err := os.Stat(filepath.Join(d, "ha")); err != nil {
		t.Skipf("golden HA streams not found in %s", d)
	}
	return d
}

type haIndexRow struct {
	direction string
	streamOff int
	value1    int64
	value2    int64
}

func readHAIndex(t *testing.T, path string) []haIndexRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []haIndexRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 7 || cols[0] == "conn" {
			continue
		}
		off, _ := strconv.Atoi(cols[2])
		v1, _ := strconv.ParseInt(cols[5], 10, 64)
		v2, _ := strconv.ParseInt(cols[6], 10, 64)
		rows = append(rows, haIndexRow{direction: cols[1], streamOff: off, value1: v1, value2: v2})
	}
	return rows
}

func TestHAGoldenStreams(t *testing.T) {
	root := filepath.Join(goldenDir(t), "ha")
	sessions, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		if !s.IsDir() {
			continue
		}
		t.Run(s.Name(), func(t *testing.T) {
			dir := filepath.Join(root, s.Name())
			rows := readHAIndex(t, filepath.Join(dir, "ha-index.tsv"))
			var reports, transfers []haIndexRow
			for _, r := range rows {
				if r.direction == "slave->master" {
					reports = append(reports, r)
				} else {
					transfers = append(transfers, r)
				}
			}
			s2m, _ := filepath.Glob(filepath.Join(dir, "conn*-slave2master.bin"))
			m2s, _ := filepath.Glob(filepath.Join(dir, "conn*-master2slave.bin"))
			if len(s2m) != 1 || len(m2s) != 1 {
				t.Fatalf("want one connection, got %v %v", s2m, m2s)
			}
			checkGoldenReports(t, mustRead(t, s2m[0]), reports)
			checkGoldenTransfers(t, mustRead(t, m2s[0]), transfers)
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkGoldenReports reads the slave's reports one byte at a time (each
// report is then returned on its own) and re-encodes them.
func checkGoldenReports(t *testing.T, stream []byte, want []haIndexRow) {
	r := NewReportReader(iotest.OneByteReader(bytes.NewReader(stream)))
	var re []byte
	for i, w := range want {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("report %d: %v", i, err)
		}
		if got != w.value1 || w.streamOff != i*ReportSize {
			t.Fatalf("report %d at %d = %d, index says %d at %d", i, i*ReportSize, got, w.value1, w.streamOff)
		}
		re = AppendReport(re, got)
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last report: %v, want EOF", err)
	}
	if !bytes.Equal(re, stream) {
		t.Fatal("re-encoded reports differ from the stream")
	}
	// A burst read at once yields only its last value, as Java reads it.
	if last, n, ok := ParseReports(stream); !ok || n != len(stream) || last != want[len(want)-1].value1 {
		t.Fatalf("ParseReports(all) = %d %d %v", last, n, ok)
	}
}

// checkGoldenTransfers parses the master's stream twice (byte by byte and
// in one piece) against the index, checks the transfers are contiguous and
// that their bodies rebuild valid CommitLog records.
func checkGoldenTransfers(t *testing.T, stream []byte, want []haIndexRow) {
	for _, src := range []io.Reader{bytes.NewReader(stream), iotest.OneByteReader(bytes.NewReader(stream))} {
		r := NewTransferReader(src, 0)
		var re, log []byte
		pos, next := 0, int64(-1)
		for i, w := range want {
			h, body, err := r.Next()
			if err != nil {
				t.Fatalf("transfer %d: %v", i, err)
			}
			if pos != w.streamOff || h.PhyOffset != w.value1 || int64(h.BodySize) != w.value2 || len(body) != int(h.BodySize) {
				t.Fatalf("transfer %d at %d = %+v, index says %+v", i, pos, h, w)
			}
			if next >= 0 && h.PhyOffset != next {
				t.Fatalf("transfer %d at phyOffset %d, previous ended at %d", i, h.PhyOffset, next)
			}
			next = h.PhyOffset + int64(h.BodySize)
			pos += TransferHeaderSize + len(body)
			re = append(AppendTransferHeader(re, h), body...)
			log = append(log, body...)
		}
		if _, _, err := r.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last transfer: %v, want EOF", err)
		}
		if !bytes.Equal(re, stream) {
			t.Fatal("re-encoded transfers differ from the stream")
		}
		checkRecords(t, log, want[0].value1)
	}
}

func checkRecords(t *testing.T, log []byte, base int64) {
	t.Helper()
	msgs, err := message.DecodeRecords(log, true)
	if err != nil {
		t.Fatalf("replicated bytes do not decode as records: %v", err)
	}
	if len(msgs) == 0 {
		t.Fatal("no records replicated")
	}
	off := base
	for _, m := range msgs {
		if m.CommitLogOffset != off {
			t.Fatalf("record at %d says commitLogOffset %d", off, m.CommitLogOffset)
		}
		off += int64(m.StoreSize)
	}
	if off != base+int64(len(log)) {
		t.Fatalf("records cover %d bytes of %d", off-base, len(log))
	}
}

func TestHAParseTransferLimits(t *testing.T) {
	cases := []struct {
		name    string
		buf     []byte
		wantN   int
		wantErr bool
	}{
		{"short header", make([]byte, 11), 0, false},
		{"heartbeat", AppendTransferHeader(nil, TransferHeader{PhyOffset: 7}), 12, false},
		{"partial body", append(AppendTransferHeader(nil, TransferHeader{PhyOffset: 0, BodySize: 4}), 1, 2), 0, false},
		{"negative size", AppendTransferHeader(nil, TransferHeader{BodySize: -1}), 0, true},
		{"oversize", AppendTransferHeader(nil, TransferHeader{BodySize: 101}), 0, true},
		{"negative offset", AppendTransferHeader(nil, TransferHeader{PhyOffset: -5}), 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, n, err := ParseTransfer(c.buf, 100)
			if n != c.wantN || (err != nil) != c.wantErr {
				t.Fatalf("n=%d err=%v, want n=%d err=%v", n, err, c.wantN, c.wantErr)
			}
			if c.wantErr && !errors.Is(err, ErrBadTransfer) {
				t.Fatalf("err %v is not ErrBadTransfer", err)
			}
		})
	}
	cut := NewTransferReader(bytes.NewReader(make([]byte, 13)), 0)
	if h, _, err := cut.Next(); err != nil || h != (TransferHeader{}) {
		t.Fatalf("heartbeat before the cut: %+v %v", h, err)
	}
	if _, _, err := cut.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut stream: %v", err)
	}
	if _, err := NewReportReader(bytes.NewReader(make([]byte, 11))).Next(); err != nil {
		t.Fatalf("first report of 11 bytes: %v", err)
	}
}
