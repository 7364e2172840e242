package compat

import (
	"bufio"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// goldenDir locates the shared golden set: $RMQ_GOLDEN_DIR, else
// <repo root>/../shared/golden.
func goldenDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("RMQ_GOLDEN_DIR"); d != "" {
		return d
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test source")
	}
	repoRoot := filepath.Dir(filepath.Dir(file))
	return filepath.Join(repoRoot, "..", "shared", "golden")
}

// manifestRow is one frame of manifest.tsv (or testdata NOTES.tsv).
type manifestRow map[string]string

func readTSV(t *testing.T, path string) []manifestRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cols []string
	var rows []manifestRow
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if cols == nil {
			cols = fields
			continue
		}
		r := manifestRow{}
		for i, c := range cols {
			if i < len(fields) {
				r[c] = fields[i]
			}
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func atoi(t *testing.T, r manifestRow, col string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(r[col], 10, 64)
	if err != nil {
		t.Fatalf("%s: column %s=%q: %v", r["file"], col, r[col], err)
	}
	return v
}

// checkFrame decodes one recorded frame, compares it with its manifest row
// and re-encodes it byte for byte.
func checkFrame(t *testing.T, r manifestRow, frame []byte) {
	t.Helper()
	name := r["file"]
	cmd, err := codec.Decode(frame)
	if err != nil {
		t.Errorf("%s: decode: %v", name, err)
		return
	}
	hl := int64(binary.BigEndian.Uint32(frame[4:]) & 0xFFFFFF)
	checks := []struct {
		col  string
		got  int64
		want int64
	}{
		{"code", int64(cmd.Code), atoi(t, r, "code")},
		{"opaque", int64(cmd.Opaque), atoi(t, r, "opaque")},
		{"flag", int64(cmd.Flag), atoi(t, r, "flag")},
		{"header_length", hl, atoi(t, r, "header_length")},
		{"body_length", int64(len(cmd.Body)), atoi(t, r, "body_length")},
		{"version", int64(cmd.Version), atoi(t, r, "version")},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %s = %d, manifest says %d", name, c.col, c.got, c.want)
		}
	}
	if st := cmd.SerializeType.String(); st != r["serialize_type"] {
		t.Errorf("%s: serialize type %s, manifest says %s", name, st, r["serialize_type"])
	}
	if lang := cmd.Language.String(); lang != r["language"] {
		t.Errorf("%s: language %s, manifest says %s", name, lang, r["language"])
	}
	wantResp := r["type"] == "response"
	if cmd.IsResponse() != wantResp || cmd.IsOneway() != (r["type"] == "request-oneway") {
		t.Errorf("%s: flag %d does not match type %s", name, cmd.Flag, r["type"])
	}
	wantName := code.RequestName(cmd.Code)
	if wantResp {
		wantName = code.ResponseName(cmd.Code)
	}
	if wantName != r["code_name"] {
		t.Errorf("%s: code name %s, manifest says %s", name, wantName, r["code_name"])
	}
	out, err := codec.Encode(cmd)
	if err != nil {
		t.Errorf("%s: encode: %v", name, err)
		return
	}
	if string(out) != string(frame) {
		t.Errorf("%s: re-encoded frame differs\n got: %q\nwant: %q", name, headerOf(out), headerOf(frame))
	}
}

func headerOf(frame []byte) []byte {
	if len(frame) < 8 {
		return frame
	}
	hl := int(binary.BigEndian.Uint32(frame[4:]) & 0xFFFFFF)
	if 8+hl > len(frame) {
		return frame[8:]
	}
	return frame[8 : 8+hl]
}

// TestGoldenFramesShared checks every frame recorded from Java 4.9.8.
func TestGoldenFramesShared(t *testing.T) {
	dir := goldenDir(t)
	manifest := filepath.Join(dir, "frames", "manifest.tsv")
	if _, err := os.Stat(manifest); err != nil {
		t.Skipf("golden set not found (%v): set RMQ_GOLDEN_DIR or place it at ../shared/golden", err)
	}
	rows := readTSV(t, manifest)
	if len(rows) < 1000 {
		t.Fatalf("manifest has only %d rows", len(rows))
	}
	perType := map[string]int{}
	for _, r := range rows {
		frame, err := os.ReadFile(filepath.Join(dir, r["file"]))
		if err != nil {
			t.Fatal(err)
		}
		checkFrame(t, r, frame)
		perType[r["serialize_type"]]++
	}
	if perType["JSON"] == 0 || perType["ROCKETMQ"] == 0 {
		t.Errorf("expected both serializations, got %v", perType)
	}
	t.Logf("checked %d frames: %v", len(rows), perType)
}

// TestGoldenFramesTestdata checks the frames copied into testdata/frames,
// which need no shared directory.
func TestGoldenFramesTestdata(t *testing.T) {
	rows := readTSV(t, filepath.Join("testdata", "frames", "NOTES.tsv"))
	if len(rows) < 15 {
		t.Fatalf("NOTES.tsv lists only %d frames", len(rows))
	}
	for _, r := range rows {
		frame, err := os.ReadFile(filepath.Join("testdata", "frames", r["file"]))
		if err != nil {
			t.Fatal(err)
		}
		checkFrame(t, r, frame)
	}
}

// TestGoldenGoClientHeader proves a rocketmq-client-go style header (its key
// order, remark "" and all) survives decode and encode unchanged.
func TestGoldenGoClientHeader(t *testing.T) {
	hdr := `{"code":105,"language":"GO","version":317,"opaque":1,"flag":0,"remark":"","extFields":{"topic":"TopicTest"}}`
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(hdr)))
	frame = binary.BigEndian.AppendUint32(frame, uint32(len(hdr)))
	frame = append(frame, hdr...)
	cmd, err := codec.Decode(frame)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Code != code.GetRouteinfoByTopic || cmd.Language != code.Go || cmd.Version != 317 || cmd.Opaque != 1 || cmd.Ext("topic") != "TopicTest" {
		t.Fatalf("decoded %+v", cmd)
	}
	out, err := codec.Encode(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(frame) {
		t.Fatalf("re-encoded\n got %s\nwant %s", out[8:], hdr)
	}
}
