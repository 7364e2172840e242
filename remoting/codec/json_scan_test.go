package codec

import (
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// scanStrRef is the byte-at-a-time string scanner that plainRun replaced,
// kept as the reference for the differential tests.
func (p *jsonParser) scanStrRef(inPlace bool) (string, error) {
	if !p.eat('"') {
		return "", malformed(p, "expected a string")
	}
	start := p.i
	p.strAt = start
	for i := start; i < len(p.s); i++ {
		c := strCls[p.s[i]]
		if c == 0 {
			continue
		}
		if c&clsStop == 0 {
			p.rawClass(i)
			continue
		}
		if p.s[i] == '"' {
			p.i = i + 1
			return p.keep(start, i), nil
		}
		p.i = i
		if inPlace {
			return p.strSlowRef(p.b[start:i:len(p.b)])
		}
		return p.strSlowRef(append(make([]byte, 0, rawStringLen(p.s, start)), p.s[start:i]...))
	}
	p.i = len(p.s)
	return "", malformed(p, "unterminated string")
}

func (p *jsonParser) strSlowRef(buf []byte) (string, error) {
	for p.i < len(p.s) {
		b := p.s[p.i]
		switch {
		case b == '"':
			p.i++
			return unsafe.String(unsafe.SliceData(buf), len(buf)), nil
		case b == '\\':
			var err error
			if buf, err = p.escapeRef(buf); err != nil {
				return "", err
			}
		default:
			if strCls[b] != 0 {
				p.rawClass(p.i)
			}
			buf = append(buf, b)
			p.i++
		}
	}
	return "", malformed(p, "unterminated string")
}

// escapeRef is escape without the control-character fast path.
func (p *jsonParser) escapeRef(buf []byte) ([]byte, error) {
	if p.i+1 >= len(p.s) {
		return buf, malformed(p, "truncated escape")
	}
	e := p.s[p.i+1]
	if e == 'x' {
		return p.hexEscape(buf)
	}
	if e != 'u' {
		r := shortEscapes[e]
		if r == 0 {
			var ok bool
			if r, ok = fastjsonEscape(e); !ok {
				return buf, malformed(p, "bad escape")
			}
			p.javaOK, p.goOK = false, false
		}
		if e == '/' {
			p.javaOK, p.goOK = false, false
		}
		p.i += 2
		return append(buf, r), nil
	}
	r, upper, lower, ok := hex4(p.s, p.i+2)
	if !ok {
		return buf, malformed(p, "bad \\u escape")
	}
	p.i += 6
	if r >= 0xD800 && r < 0xDC00 && p.i+6 <= len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
		if r2, _, _, ok2 := hex4(p.s, p.i+2); ok2 && r2 >= 0xDC00 && r2 < 0xE000 {
			p.i += 6
			p.javaOK, p.goOK = false, false
			return utf8.AppendRune(buf, (r-0xD800)<<10|(r2-0xDC00)+0x10000), nil
		}
	}
	if !javaEscapes(r) || lower {
		p.javaOK = false
	}
	if !goEscapes(r) || upper {
		p.goOK = false
	}
	if r >= 0xD800 && r < 0xE000 {
		p.javaOK, p.goOK = false, false
	}
	return utf8.AppendRune(buf, r), nil
}

func newTestParser(s string) *jsonParser {
	return &jsonParser{s: s, b: []byte(s), lay: &headerLayout{exact: true}, javaOK: true, goOK: true}
}

// checkScanSame scans the string at the start of text (after its opening
// quote) with both scanners, in place and copying, and compares all that a
// caller sees: the value, the error, the position and the style flags.
func checkScanSame(t *testing.T, text string) {
	t.Helper()
	for _, inPlace := range []bool{true, false} {
		got, want := newTestParser(text), newTestParser(text)
		gv, gerr := got.scanStr(inPlace)
		wv, werr := want.scanStrRef(inPlace)
		if gv != wv || (gerr == nil) != (werr == nil) || got.i != want.i || got.strAt != want.strAt ||
			got.javaOK != want.javaOK || got.goOK != want.goOK || string(got.b) != string(want.b) {
			t.Fatalf("scan of %q (inPlace %v) differs:\n got %q %v i=%d java=%v go=%v\nwant %q %v i=%d java=%v go=%v",
				text, inPlace, gv, gerr, got.i, got.javaOK, got.goOK, wv, werr, want.i, want.javaOK, want.goOK)
		}
	}
}

// TestCodecPlainRunEveryByte puts each byte value at each offset of a
// plain run and checks that plainRun stops exactly at the first byte the
// class table (or a non-ASCII test) marks.
func TestCodecPlainRunEveryByte(t *testing.T) {
	for b := range 256 {
		for at := range 20 {
			s := []byte(strings.Repeat("abcdefgh", 3))
			s[at] = byte(b)
			want := 0
			for want < len(s) && s[want] < 0x80 && strCls[s[want]] == 0 {
				want++
			}
			for from := 0; from <= at; from++ {
				if got := plainRun(string(s), from); got != want {
					t.Fatalf("byte %#x at %d from %d: plainRun %d, want %d", b, at, from, got, want)
				}
			}
		}
	}
}

// TestCodecScanStrMatchesReference runs the scanner differential on the
// strings clients send, escapes at word edges and every byte value.
func TestCodecScanStrMatchesReference(t *testing.T) {
	cases := []string{
		`""`, `"a"`, `"TopicTest","b":1`, `"unterminated`, `"1234567"`, `"12345678"`, `"123456789"`,
		`"KEYS\u0001K1 K2\u0002UNIQ_KEY\u0001FD00000000000000000000\u0002WAIT\u0001true\u0002TAGS\u0001TagA"`,
		`"a\"b\\c\/d\n\t\u00e9\u2028\ud83d\ude00\x41\'"`, `"<>&` + "\x7f\xc2\x80\xe2\x80\xa8\xff" + `"`,
		`"1234567\"1234567\\"`, `"\u12"`, `"\`, `"\q"`, "\"\x00\x1f\"",
	}
	for b := range 256 {
		for at := range 17 {
			cases = append(cases, `"`+strings.Repeat("x", at)+string([]byte{byte(b)})+`yz"`)
		}
	}
	for _, d := range "0123456789abcdefABCDEFgG" {
		for _, pre := range []string{`\u000`, `\u001`, `\u002`, `\u010`, `\u00`, `\u0`} {
			cases = append(cases, `"a`+pre+string(d)+`b"`, `"`+pre+string(d))
		}
	}
	for _, c := range cases {
		checkScanSame(t, c)
	}
}

// FuzzJSONScanStr is the differential fuzz target of the string scanner:
// any text after an opening quote scans as the reference scanner does.
func FuzzJSONScanStr(f *testing.F) {
	for _, s := range []string{`a"`, `KEYS\u0001K1\u0002"`, `x\"y"`, "\x7f<&\xe2\x80\xa9\"", `\ud800\udc00"`, `abc`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkScanSame(t, `"`+s)
	})
}

// TestCodecDecodeTopKeysNearKnownNames checks that only a whole known key
// is taken as one: a longer or shorter key, another case or a missing
// closing quote stays unknown (kept and re-encoded verbatim), while an
// escaped spelling of a known key is that key.
func TestCodecDecodeTopKeysNearKnownNames(t *testing.T) {
	cases := []struct {
		header string
		code   int32
		ok     bool
	}{
		{`{"code":7,"codex":8,"cod":9,"Code":10,"flag":0}`, 7, true},
		{`{"codex":8,"code":7}`, 7, true},
		{`{"c\u006fde":7}`, 7, true},
		{`{"extFieldsX":{"a":"b"},"code":3}`, 3, true},
		{`{"code`, 0, false},
		{`{"code":`, 0, false},
		{`{"serializeTypeCurrentRPC`, 0, false},
	}
	for _, tc := range cases {
		c, err := Decode(jsonFrame(tc.header, ""))
		if (err == nil) != tc.ok {
			t.Fatalf("%s: error %v", tc.header, err)
		}
		if err != nil {
			continue
		}
		if c.Code != tc.code || len(c.ExtFields) != 0 {
			t.Fatalf("%s: code %d ext %v, want code %d and no ext", tc.header, c.Code, c.ExtFields, tc.code)
		}
		if c.layout.exact {
			if out := mustEncode(t, c); string(out[8:]) != tc.header {
				t.Fatalf("%s re-encoded as %s", tc.header, out[8:])
			}
		}
	}
}

// sendV2Strings are the strings of a Java SEND_MESSAGE_V2 header: the
// one-letter keys and their values, the properties with \u0001 separators.
var sendV2Strings = func() []string {
	var ss []string
	for k, v := range sendV2Request(JSON).ExtFields {
		ss = append(ss, k, v)
	}
	return ss
}()

// BenchmarkCodecScanStr scans a send header's strings as written by Java
// (escaped properties) with the word scanner and the byte loop.
func BenchmarkCodecScanStr(b *testing.B) {
	var text []byte
	for _, s := range sendV2Strings {
		text = appendJSONString(text, s, styleJava)
	}
	for _, impl := range []struct {
		name string
		ref  bool
	}{{"ref", true}, {"new", false}} {
		b.Run(impl.name, func(b *testing.B) {
			p := newTestParser(string(text))
			for b.Loop() {
				copy(p.b, text)
				p.i = 0
				for p.i < len(p.s) {
					var err error
					if impl.ref {
						_, err = p.scanStrRef(true)
					} else {
						_, err = p.scanStr(true)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
