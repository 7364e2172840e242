package codec

import (
	"bytes"
	"fmt"
	"testing"
)

// TestCodecInPlaceEscapes checks that decoding escaped strings in place
// leaves the raw text of unknown fields intact, and that the input frame is
// not written to.
func TestCodecInPlaceEscapes(t *testing.T) {
	hdr := `{"code":10,"extFields":{"k\u0001ey":"v\u0002al\n","p":"\u00e9\ud83d\ude00"},"flag":0,"language":"JAVA",` +
		`"opaque":3,"remark":"r\"e\\m","serializeTypeCurrentRPC":"JSON","version":409,"zz":{"q":"\u0001\n\"","r":["\t"]}}`
	frame := jsonFrame(hdr, "body")
	orig := bytes.Clone(frame)
	c := mustDecode(t, frame)
	if !bytes.Equal(frame, orig) {
		t.Fatal("decode wrote to its input")
	}
	if c.Ext("k\x01ey") != "v\x02al\n" || c.Ext("p") != "é😀" || c.Remark != `r"e\m` || c.Opaque != 3 {
		t.Fatalf("decoded %q remark %q", c.ExtFields, c.Remark)
	}
	out := mustEncode(t, c)
	if !bytes.Contains(out, []byte(`"zz":{"q":"\u0001\n\"","r":["\t"]}`)) {
		t.Fatalf("unknown field text changed: %s", out[8:])
	}
	if !bytes.Contains(out, []byte(`"k\u0001ey":"v\u0002al\n"`)) {
		t.Fatalf("escaped key lost: %s", out[8:])
	}
}

// TestCodecDuplicateKeysPastFilter repeats keys among many distinct ones, so
// that the key filter both passes new keys and catches every repeat.
func TestCodecDuplicateKeysPastFilter(t *testing.T) {
	for _, st := range []SerializeType{JSON, RocketMQ} {
		c := NewRequest(10, nil, nil)
		c.SerializeType = st
		var keys []string
		for i := range 40 {
			keys = append(keys, fmt.Sprintf("key%d", i))
		}
		keys = append(keys, "key3", "key17", "key39") // repeats
		var frame []byte
		if st == RocketMQ {
			frame = rocketmqFrame(keys)
		} else {
			var b bytes.Buffer
			b.WriteString(`{"code":10,"extFields":{`)
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"%s":"v%s"`, k, k)
			}
			b.WriteString(`},"flag":0,"language":"JAVA","opaque":0,"serializeTypeCurrentRPC":"JSON","version":409}`)
			frame = jsonFrame(b.String(), "")
		}
		d := mustDecode(t, frame)
		if len(d.ExtFields) != 40 || d.Ext("key17") != "vkey17" || !d.layout.dups || !d.layout.exact {
			t.Fatalf("%v: %d keys, dups %v exact %v", st, len(d.ExtFields), d.layout.dups, d.layout.exact)
		}
		if out := mustEncode(t, d); !bytes.Equal(out, frame) {
			t.Fatalf("%v: repeated keys not reproduced:\n%q\n%q", st, out, frame)
		}
	}
}

// rocketmqFrame builds a ROCKETMQ request frame whose ext entries are keys
// in order, each with value "v"+key.
func rocketmqFrame(keys []string) []byte {
	h := []byte{0, 10, 0, 0x01, 0x99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	var ext []byte
	for _, k := range keys {
		ext = append(ext, byte(len(k)>>8), byte(len(k)))
		ext = append(ext, k...)
		v := "v" + k
		ext = append(ext, 0, 0, 0, byte(len(v)))
		ext = append(ext, v...)
	}
	h = append(h, byte(len(ext)>>24), byte(len(ext)>>16), byte(len(ext)>>8), byte(len(ext)))
	h = append(h, ext...)
	f := []byte{0, 0, 0, 0, 1, byte(len(h) >> 16), byte(len(h) >> 8), byte(len(h))}
	f = append(f, h...)
	n := len(f) - 4
	f[0], f[1], f[2], f[3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	return f
}

// TestCodecDecodeAllocs bounds the allocations of decoding a Java
// SEND_MESSAGE_V2 request: the command with its layout, one header string,
// and the extFields map.
func TestCodecDecodeAllocs(t *testing.T) {
	for _, st := range []SerializeType{JSON, RocketMQ} {
		frame := mustEncode(t, sendV2Request(st))
		n := testing.AllocsPerRun(50, func() {
			if _, err := Decode(frame); err != nil {
				t.Fatal(err)
			}
		})
		if n > 6 {
			t.Errorf("%v: %.0f allocations per decode, want at most 6", st, n)
		}
	}
}
