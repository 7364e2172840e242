package codec

import (
	"bytes"
	"testing"
)

// TestCodecReleasePoisonsAndKeepsData: a released command reads as the
// poison (so a use after Release shows up as a wrong code and no header,
// never as another request's fields), while the strings and body taken
// from it stay intact; other commands and second releases are ignored.
func TestCodecReleasePoisonsAndKeepsData(t *testing.T) {
	frame := lazySeeds()[0]
	c, err := DecodeLazy(frame)
	if err != nil || !c.lazyExt() {
		t.Fatalf("seed not lazy: %v", err)
	}
	topic, body := c.Ext("b"), c.Body
	copyOf := *c
	Release(&copyOf) // a copy: ignored
	if c.Code != 310 {
		t.Fatal("releasing a copy released the original")
	}
	Release(c)
	if c.Code != PoisonCode || c.Opaque != PoisonCode || c.Ext("b") != "" || c.Body != nil || c.Fields() != nil {
		t.Fatalf("released command not poisoned: %+v", c)
	}
	Release(c) // again: ignored
	if topic != "T\x01x" || !bytes.Equal(body, []byte("body")) {
		t.Fatalf("data taken before Release changed: %q %q", topic, body)
	}
	e, _ := Decode(frame)
	Release(e) // not from DecodeLazy: ignored
	if e.Code != 310 || e.Ext("b") != topic {
		t.Fatalf("Release changed a Decode command: %+v", e)
	}
}

// TestCodecReleaseReuse: DecodeLazy reuses released commands, and a reused
// command holds only its new frame's fields.
func TestCodecReleaseReuse(t *testing.T) {
	seeds := lazySeeds()
	seen := map[*RemotingCommand]bool{}
	reused := false
	for i := range 200 {
		f := seeds[i%len(seeds)]
		c, err := DecodeLazy(f)
		if err != nil {
			t.Fatal(err)
		}
		reused = reused || seen[c]
		seen[c] = true
		want, _ := Decode(f)
		if !sameCommand(want, &RemotingCommand{Code: c.Code, Language: c.Language, Version: c.Version, Opaque: c.Opaque,
			Flag: c.Flag, Remark: c.Remark, Body: c.Body, ExtFields: c.Fields()}) {
			t.Fatalf("frame %d: reused command %+v, want %+v", i%len(seeds), c, want)
		}
		if again, _ := Encode(c); !bytes.Equal(again, mustEncode(t, want)) {
			t.Fatalf("frame %d: reused command encodes differently", i%len(seeds))
		}
		Release(c)
	}
	if !reused {
		t.Fatal("no command was reused in 200 decode/release rounds")
	}
}
