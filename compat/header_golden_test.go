package compat

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// goldenFrame is one manifest.tsv row.
type goldenFrame struct {
	file, typ, note, pair string
	code                  int32
}

// headerGoldenDir finds the shared golden set: $RMQ_GOLDEN_DIR, else
// ../shared/golden next to the repository root (the directory of go.mod).
func headerGoldenDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("RMQ_GOLDEN_DIR"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "golden")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func loadGoldenManifest(t *testing.T) (string, []goldenFrame) {
	t.Helper()
	dir := headerGoldenDir(t)
	f, err := os.Open(filepath.Join(dir, "frames", "manifest.tsv"))
	if errors.Is(err, os.ErrNotExist) || dir == "" {
		t.Skipf("golden frames not found (dir %q); set RMQ_GOLDEN_DIR to the shared golden set", dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenFrame
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for first := true; sc.Scan(); first = false {
		cols := strings.Split(sc.Text(), "\t")
		if first || len(cols) < 15 {
			continue
		}
		c, err := strconv.ParseInt(cols[4], 10, 32)
		if err != nil {
			t.Fatalf("manifest code %q: %v", cols[4], err)
		}
		out = append(out, goldenFrame{file: cols[0], typ: cols[6], note: cols[12], pair: cols[14], code: int32(c)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return dir, out
}

// frameExtFields extracts extFields from a whole frame without the codec
// package: encoding/json for JSON headers, a direct walk of the ROCKETMQ
// binary header otherwise. It is the independent oracle of this test.
func frameExtFields(frame []byte) (map[string]string, error) {
	if len(frame) < 8 {
		return nil, fmt.Errorf("frame of %d bytes", len(frame))
	}
	w := binary.BigEndian.Uint32(frame[4:])
	hl := int(w & 0xFFFFFF)
	if 8+hl > len(frame) {
		return nil, fmt.Errorf("header length %d beyond frame", hl)
	}
	h := frame[8 : 8+hl]
	switch w >> 24 {
	case 0:
		var v struct {
			ExtFields map[string]string `json:"extFields"`
		}
		if err := json.Unmarshal(h, &v); err != nil {
			return nil, err
		}
		return v.ExtFields, nil
	case 1:
		return binaryExtFields(h)
	default:
		return nil, fmt.Errorf("serialize type %d", w>>24)
	}
}

func binaryExtFields(h []byte) (map[string]string, error) {
	const fixed = 2 + 1 + 2 + 4 + 4 // code, language, version, opaque, flag
	if len(h) < fixed+4 {
		return nil, errors.New("short binary header")
	}
	p := fixed
	rl := int(binary.BigEndian.Uint32(h[p:]))
	p += 4 + rl
	if rl < 0 || p+4 > len(h) {
		return nil, errors.New("bad remark length")
	}
	el := int(binary.BigEndian.Uint32(h[p:]))
	p += 4
	if el == 0 {
		return nil, nil
	}
	if p+el > len(h) {
		return nil, errors.New("bad extFields length")
	}
	m := map[string]string{}
	for b := h[p : p+el]; len(b) > 0; {
		if len(b) < 2 {
			return nil, errors.New("short key length")
		}
		kl := int(binary.BigEndian.Uint16(b))
		if len(b) < 2+kl+4 {
			return nil, errors.New("short key")
		}
		k := string(b[2 : 2+kl])
		b = b[2+kl:]
		vl := int(binary.BigEndian.Uint32(b))
		if vl < 0 || len(b) < 4+vl {
			return nil, errors.New("short value")
		}
		m[k] = string(b[4 : 4+vl])
		b = b[4+vl:]
	}
	return m, nil
}

// headerKeys returns the ext keys a header type declares.
func headerKeys(h header.CommandCustomHeader) map[string]bool {
	t := reflect.TypeOf(h).Elem()
	keys := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		if tag, ok := t.Field(i).Tag.Lookup("ext"); ok {
			k, _, _ := strings.Cut(tag, ",")
			keys[k] = true
		}
	}
	return keys
}

// extraGoldenKeys are keys Java puts beside a custom header: ACL signing
// (AclClientRPCHook), the unique-key query flag of QUERY_MESSAGE, the
// send answer's MSG_REGION/TRACE_ON, and the lite-pull stream type.
var extraGoldenKeys = map[string]bool{
	"AccessKey": true, "Signature": true, "SecurityToken": true, "_UNIQUE_KEY_QUERY": true,
	"MSG_REGION": true, "TRACE_ON": true, "ReqT": true,
}

// noteValues parses the "key=value" words after " - " in a manifest note.
func noteValues(note string) map[string]string {
	_, tail, ok := strings.Cut(note, " - ")
	if !ok {
		return nil
	}
	out := map[string]string{}
	for _, w := range strings.Fields(tail) {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "remark" || strings.HasSuffix(v, "...") {
			continue
		}
		out[k] = v
	}
	return out
}

// checkGoldenHeader decodes ext into h, checks the note's values and that
// re-encoding gives back exactly the keys the header knows.
func checkGoldenHeader(t *testing.T, h header.CommandCustomHeader, ext map[string]string, note string) {
	t.Helper()
	if err := h.FromExtFields(ext); err != nil {
		t.Fatalf("%T.FromExtFields(%v): %v", h, ext, err)
	}
	got := h.ToExtFields()
	keys := headerKeys(h)
	want := map[string]string{}
	for k, v := range ext {
		if keys[k] {
			want[k] = v
		} else if !extraGoldenKeys[k] {
			t.Errorf("%T has no field for golden key %q=%q", h, k, v)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%T re-encoded\n got %v\nwant %v", h, got, want)
	}
	for k, v := range noteValues(note) {
		if !keys[k] {
			continue
		}
		if got[k] != v {
			t.Errorf("%T key %s = %q, note says %q", h, k, got[k], v)
		}
	}
}

// responseHeaders maps a request code to the header its answer carries, for
// the answer codes where Java fills every required field.
func responseHeader(reqCode, respCode int32) header.CommandCustomHeader {
	pullCodes := respCode == code.Success || respCode == code.PullNotFound ||
		respCode == code.PullRetryImmediately || respCode == code.PullOffsetMoved
	if reqCode == code.PullMessage && pullCodes {
		return new(header.PullMessageResponseHeader)
	}
	if respCode != code.Success {
		return nil
	}
	switch reqCode {
	case code.RegisterBroker:
		return new(header.RegisterBrokerResponseHeader)
	case code.QueryDataVersion:
		return new(header.QueryDataVersionResponseHeader)
	case code.SendMessage, code.SendMessageV2, code.SendBatchMessage:
		return new(header.SendMessageResponseHeader)
	case code.QueryConsumerOffset:
		return new(header.QueryConsumerOffsetResponseHeader)
	case code.QueryMessage:
		return new(header.QueryMessageResponseHeader)
	case code.GetBrokerConfig:
		return new(header.GetBrokerConfigResponseHeader)
	case code.GetMaxOffset:
		return new(header.GetMaxOffsetResponseHeader)
	case code.GetMinOffset:
		return new(header.GetMinOffsetResponseHeader)
	case code.SearchOffsetByTimestamp:
		return new(header.SearchOffsetResponseHeader)
	}
	return nil
}

func readGoldenExt(t *testing.T, dir, file string) map[string]string {
	t.Helper()
	frame, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	ext, err := frameExtFields(frame)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if cmd, err := codec.Decode(frame); err != nil {
		t.Errorf("%s: codec.Decode: %v", file, err)
	} else if len(ext) > 0 && !reflect.DeepEqual(cmd.ExtFields, ext) {
		t.Errorf("%s: codec.Decode extFields %v, header walk %v", file, cmd.ExtFields, ext)
	}
	return ext
}

// TestCompatHeaderGoldenRequests decodes every golden request frame whose
// code carries a typed header.
func TestCompatHeaderGoldenRequests(t *testing.T) {
	dir, frames := loadGoldenManifest(t)
	checked := map[int32]int{}
	for _, f := range frames {
		if f.typ == "response" {
			continue
		}
		h := header.NewRequestHeader(f.code)
		if h == nil {
			continue
		}
		t.Run(filepath.Base(f.file), func(t *testing.T) {
			checkGoldenHeader(t, h, readGoldenExt(t, dir, f.file), f.note)
		})
		checked[f.code]++
	}
	for _, c := range []int32{code.RegisterBroker, code.GetRouteinfoByTopic, code.SendMessageV2, code.PullMessage,
		code.QueryDataVersion, code.UnregisterBroker, code.UpdateConsumerOffset, code.QueryConsumerOffset} {
		if checked[c] == 0 {
			t.Errorf("no golden %s request checked", code.RequestName(c))
		}
	}
	t.Logf("checked request headers per code: %v", checked)
}

// TestCompatHeaderGoldenResponses decodes the answers whose header Java
// fills completely (pull, send, register, data version, offsets, queries).
func TestCompatHeaderGoldenResponses(t *testing.T) {
	dir, frames := loadGoldenManifest(t)
	reqCode := map[string]int32{}
	for _, f := range frames {
		if f.typ != "response" {
			reqCode[f.file] = f.code
		}
	}
	n := 0
	for _, f := range frames {
		if f.typ != "response" {
			continue
		}
		rc, ok := reqCode[f.pair]
		if !ok {
			continue
		}
		h := responseHeader(rc, f.code)
		if h == nil {
			continue
		}
		n++
		t.Run(filepath.Base(f.file), func(t *testing.T) {
			checkGoldenHeader(t, h, readGoldenExt(t, dir, f.file), f.note)
		})
	}
	if n == 0 {
		t.Fatal("no golden response header checked")
	}
}

// TestCompatHeaderGoldenTypedValues spot-checks typed fields, not just the
// re-encoded strings, on the first golden REGISTER_BROKER of the master.
func TestCompatHeaderGoldenTypedValues(t *testing.T) {
	dir, frames := loadGoldenManifest(t)
	for _, f := range frames {
		if f.code != code.RegisterBroker || f.typ == "response" || !strings.Contains(f.note, "brokerId=0") {
			continue
		}
		var h header.RegisterBrokerRequestHeader
		if err := h.FromExtFields(readGoldenExt(t, dir, f.file)); err != nil {
			t.Fatal(err)
		}
		if h.BrokerName != "broker-a" || h.BrokerID != 0 || h.ClusterName != "DefaultCluster" ||
			!strings.HasPrefix(h.BrokerAddr, "127.0.0.1:") || !strings.HasPrefix(h.HAServerAddr, "127.0.0.1:") ||
			h.Compressed || h.BodyCrc32 <= 0 {
			t.Fatalf("decoded %+v", h)
		}
		return
	}
	t.Fatal("no master REGISTER_BROKER in the golden set")
}
