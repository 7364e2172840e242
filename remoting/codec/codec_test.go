package codec

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
)

const testdataFrames = "../../compat/testdata/frames"

func jsonFrame(hdr string, body string) []byte {
	f := binary.BigEndian.AppendUint32(nil, uint32(4+len(hdr)+len(body)))
	f = binary.BigEndian.AppendUint32(f, uint32(len(hdr)))
	return append(append(f, hdr...), body...)
}

func mustEncode(t *testing.T, c *RemotingCommand) []byte {
	t.Helper()
	out, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustDecode(t *testing.T, f []byte) *RemotingCommand {
	t.Helper()
	c, err := Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCodecNewRequestJSONMatchesJava(t *testing.T) {
	c := NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": "TopicTest"}, nil)
	want := `{"code":105,"extFields":{"topic":"TopicTest"},"flag":0,"language":"JAVA","opaque":0,"serializeTypeCurrentRPC":"JSON","version":409}`
	if got := mustEncode(t, c); !bytes.Equal(got, jsonFrame(want, "")) {
		t.Fatalf("got %s", got[8:])
	}
	hb := NewRequest(code.HeartBeat, nil, []byte("{}"))
	hb.Opaque = 15
	want = `{"code":34,"flag":0,"language":"JAVA","opaque":15,"serializeTypeCurrentRPC":"JSON","version":409}`
	if got := mustEncode(t, hb); !bytes.Equal(got, jsonFrame(want, "{}")) {
		t.Fatalf("got %s", got[8:])
	}
}

func TestCodecNewRequestRocketMQMatchesJava(t *testing.T) {
	c := NewRequest(code.GetRouteinfoByTopic, map[string]string{"topic": "TopicTest"}, nil)
	c.Opaque, c.SerializeType = 1, RocketMQ
	want, _ := hex.DecodeString("0000002d01000029006900019900000001000000000000000000000014" + "0005746f706963" + "00000009546f70696354657374")
	if got := mustEncode(t, c); !bytes.Equal(got, want) {
		t.Fatalf("got %x\nwant %x", got, want)
	}
}

// TestCodecJavaHashMapOrder checks new commands order extFields as Java's
// HashMap iterates them, against a broker response captured from Java.
func TestCodecJavaHashMapOrder(t *testing.T) {
	r := NewResponse(code.Success, "")
	r.Opaque = 7
	for _, k := range []string{"minOffset", "maxOffset", "nextBeginOffset", "suggestWhichBrokerId"} {
		r.SetExt(k, map[string]string{"minOffset": "0", "maxOffset": "32", "nextBeginOffset": "32", "suggestWhichBrokerId": "0"}[k])
	}
	want := `{"code":0,"extFields":{"suggestWhichBrokerId":"0","nextBeginOffset":"32","maxOffset":"32","minOffset":"0"},"flag":1,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":409}`
	if got := mustEncode(t, r); !bytes.Equal(got, jsonFrame(want, "")) {
		t.Fatalf("got %s", got[8:])
	}
	if h := javaStringHash("TopicTest"); int32(h) != -1902610879 {
		t.Errorf("String.hashCode(TopicTest) = %d", int32(h))
	}
	if h := javaStringHash("é😀"); int32(h) != 1996812 { // over UTF-16 units E9 D83D DE00
		t.Errorf("String.hashCode(é😀) = %d", int32(h))
	}
}

// TestCodecHashOrderMatchesJavaFrames checks the HashMap model against Java's
// JSON frames: their extFields keys must come in non-decreasing bucket order.
// (Keys sharing a bucket follow Java's insertion order, which a Go map does
// not carry, so a fresh encode can differ from Java only within a bucket.)
func TestCodecHashOrderMatchesJavaFrames(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testdataFrames, "json-*.bin"))
	if len(files) < 10 {
		t.Fatalf("only %d JSON testdata frames", len(files))
	}
	for _, f := range files {
		frame, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := mustDecode(t, frame)
		order := c.layout.extOrder
		capacity := uint32(16)
		for len(order) > int(capacity*3/4) {
			capacity *= 2
		}
		prev := uint32(0)
		for _, k := range order {
			h := javaStringHash(c.layout.extName(k))
			b := (h ^ h>>16) & (capacity - 1)
			if b < prev {
				t.Errorf("%s: key %s in bucket %d after bucket %d", filepath.Base(f), c.layout.extName(k), b, prev)
			}
			prev = b
		}
		c.layout = nil
		d := mustDecode(t, mustEncode(t, c))
		if d.Code != c.Code || d.Opaque != c.Opaque || d.Flag != c.Flag || d.Remark != c.Remark ||
			!bytes.Equal(d.Body, c.Body) || len(d.ExtFields) != len(c.ExtFields) {
			t.Errorf("%s: fresh encode lost fields", filepath.Base(f))
		}
		for k, v := range c.ExtFields {
			if d.ExtFields[k] != v {
				t.Errorf("%s: ext %s = %q, want %q", filepath.Base(f), k, d.ExtFields[k], v)
			}
		}
	}
}

// TestCodecModifiedFieldsChangeOutput proves the encoder rebuilds the header
// from the fields rather than replaying the decoded bytes.
func TestCodecModifiedFieldsChangeOutput(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testdataFrames, "*SEND_MESSAGE_V2.bin"))
	if len(files) < 2 {
		t.Fatal("missing SEND_MESSAGE_V2 testdata frames")
	}
	for _, f := range files {
		frame, _ := os.ReadFile(f)
		c := mustDecode(t, frame)
		c.Opaque = 424242
		c.Remark = "changed <&>"
		c.SetExt("b", "OtherTopic")
		c.SetExt("zz", "new")
		delete(c.ExtFields, "n")
		c.Body = []byte("new body")
		out := mustEncode(t, c)
		if bytes.Equal(out, frame) {
			t.Fatalf("%s: modified command encoded to the original bytes", f)
		}
		d := mustDecode(t, out)
		if d.Opaque != 424242 || d.Remark != "changed <&>" || d.Ext("b") != "OtherTopic" || d.Ext("zz") != "new" ||
			d.Ext("n") != "" || d.Ext("a") != c.Ext("a") || string(d.Body) != "new body" || d.Code != code.SendMessageV2 {
			t.Fatalf("%s: decoded back %+v", f, d)
		}
		if len(d.ExtFields) != len(c.ExtFields) {
			t.Fatalf("%s: %d ext fields, want %d", f, len(d.ExtFields), len(c.ExtFields))
		}
	}
}

func TestCodecGoClientStyle(t *testing.T) {
	hdr := `{"code":310,"language":"GO","version":317,"opaque":3,"flag":0,"remark":"","extFields":{"b":"T","a":"pg","i":"TAGS\u0001a\u003cb\u0002"}}`
	f := jsonFrame(hdr, "body")
	c := mustDecode(t, f)
	if c.Ext("i") != "TAGS\x01a<b\x02" || c.Language != code.Go {
		t.Fatalf("decoded %+v", c)
	}
	if got := mustEncode(t, c); !bytes.Equal(got, f) {
		t.Fatalf("got %s", got[8:])
	}
	c.Remark = "x&y"
	got := mustEncode(t, c)
	if !bytes.Contains(got, []byte(`"remark":"x\u0026y"`)) {
		t.Fatalf("go style not kept: %s", got[8:])
	}
}

func TestCodecJavaEscapes(t *testing.T) {
	c := NewResponse(code.SystemError, "a\"b\\c\nd\te\x01f\x7fg\u0085h\u2028i<j/k\u00a0")
	out := mustEncode(t, c)
	want := `"remark":"a\"b\\c\nd\te\u0001f\u007Fg\u0085h\u2028i<j/k` + "\u00a0" + `"`
	if !bytes.Contains(out, []byte(want)) {
		t.Fatalf("got %s", out[8:])
	}
	d := mustDecode(t, out)
	if d.Remark != c.Remark {
		t.Fatalf("remark %q", d.Remark)
	}
	if again := mustEncode(t, d); !bytes.Equal(again, out) {
		t.Fatalf("re-encode differs: %s", again[8:])
	}
}

func TestCodecLenientJSON(t *testing.T) {
	hdr := " { \"opaque\" : 5 , \"code\":-3,\"x\":[1,{\"y\":null}],\"remark\":null,\"extFields\":{\"a\":1,\"b\":null,\"c\":\"\\u0041\"},\"language\":\"KLINGON\"}\n"
	c := mustDecode(t, jsonFrame(hdr, ""))
	if c.Opaque != 5 || c.Code != -3 || c.Remark != "" || c.Ext("a") != "1" || c.Ext("c") != "A" || c.Language != code.Other {
		t.Fatalf("decoded %+v", c)
	}
	if _, ok := c.ExtFields["b"]; ok {
		t.Fatal("null ext value kept")
	}
	if c.layout.exact {
		t.Fatal("whitespace should make the layout inexact")
	}
	out := mustEncode(t, c)
	c2 := mustDecode(t, out)
	if !c2.layout.exact || !bytes.Equal(mustEncode(t, c2), out) {
		t.Fatalf("canonical form is not a fixed point: %s", out[8:])
	}
	if !bytes.Contains(out, []byte(`"language":"KLINGON"`)) || !bytes.Contains(out, []byte(`"x":[1,{"y":null}]`)) {
		t.Fatalf("unknown language or key lost: %s", out[8:])
	}
}

func TestCodecRocketMQNulls(t *testing.T) {
	c := NewRequest(code.PullMessage, map[string]string{"topic": "t", "empty": ""}, []byte{1, 2})
	c.SerializeType = RocketMQ
	c.Language = code.Go
	out := mustEncode(t, c)
	d := mustDecode(t, out)
	if _, ok := d.ExtFields["empty"]; ok || d.Ext("topic") != "t" || d.Language != code.Go || !bytes.Equal(d.Body, []byte{1, 2}) {
		t.Fatalf("decoded %+v", d)
	}
	if again := mustEncode(t, d); !bytes.Equal(again, out) {
		t.Fatalf("null value not written back:\n%x\n%x", again, out)
	}
	c.Code = 200050
	if _, err := Encode(c); !errors.Is(err, ErrFieldRange) {
		t.Fatalf("code 200050 in a rocketmq header: %v", err)
	}
}

func TestCodecDecodeErrors(t *testing.T) {
	good := mustEncode(t, NewRequest(code.SendMessageV2, map[string]string{"a": "b"}, []byte("xyz")))
	bin := NewRequest(code.SendMessageV2, map[string]string{"a": "b"}, nil)
	bin.SerializeType = RocketMQ
	goodBin := mustEncode(t, bin)
	cases := map[string]struct {
		frame []byte
		want  error
	}{
		"short":          {good[:7], ErrBadFrame},
		"truncated":      {good[:len(good)-1], ErrBadFrame},
		"header too big": {append(append([]byte{}, good[:5]...), 0xFF, 0xFF, 0xFF), ErrBadFrame},
		"bad type":       {append(append(append([]byte{}, good[:4]...), 7), good[5:]...), ErrBadFrame},
		"bad json":       {jsonFrame(`{"code":1,`, ""), ErrMalformedHeader},
		"json number":    {jsonFrame(`{"code":1.5}`, ""), ErrMalformedHeader},
		"json overflow":  {jsonFrame(`{"code":99999999999}`, ""), ErrMalformedHeader},
		"bin short":      {goodBin[:len(goodBin)-1], ErrBadFrame},
	}
	trunc := append([]byte{}, goodBin...)
	binary.BigEndian.PutUint32(trunc[8+13:], 1000) // remark length past the header
	cases["bin remark"] = struct {
		frame []byte
		want  error
	}{trunc, ErrMalformedHeader}
	for name, c := range cases {
		if _, err := Decode(c.frame); !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", name, err, c.want)
		}
	}
}

func TestCodecFrameLength(t *testing.T) {
	f := mustEncode(t, NewResponse(code.Success, ""))
	if n, err := FrameLength(f[:3], DefaultMaxFrameLength); n != 0 || err != nil {
		t.Fatalf("partial prefix: %d %v", n, err)
	}
	if n, err := FrameLength(f[:4], DefaultMaxFrameLength); n != len(f) || err != nil {
		t.Fatalf("prefix only: %d %v", n, err)
	}
	if _, err := FrameLength(f, len(f)-1); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("limit: %v", err)
	}
	if _, err := FrameLength([]byte{0xFF, 0, 0, 0}, DefaultMaxFrameLength); !errors.Is(err, ErrBadFrame) {
		t.Fatalf("negative: %v", err)
	}
	if _, err := FrameLength([]byte{0, 0, 0, 3}, DefaultMaxFrameLength); !errors.Is(err, ErrBadFrame) {
		t.Fatalf("too short: %v", err)
	}
}

func TestCodecCommandHelpers(t *testing.T) {
	c := NewRequest(code.EndTransaction, nil, nil)
	if c.IsOneway() || c.IsResponse() || c.Ext("x") != "" {
		t.Fatal("fresh request flags")
	}
	c.MarkOneway()
	c.SetExt("x", "1")
	if !c.IsOneway() || c.Ext("x") != "1" {
		t.Fatal("oneway/ext")
	}
	r := NewResponse(code.SystemBusy, "busy")
	if !r.IsResponse() || r.Version != code.CurrentVersion || r.Language != code.Java {
		t.Fatalf("response %+v", r)
	}
	r.MarkResponse()
	if r.Flag != FlagResponse {
		t.Fatal("MarkResponse not idempotent")
	}
}
