package codec

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fastjsonCase is one line of testdata/fastjson/extfields.jsonl: a JSON
// header, whether it is strict JSON, and the extFields fastjson 1.2.83 (the
// version in the golden captures) read from it into Java's
// HashMap<String,String> ([key, value-or-null] pairs), or "error" when it
// threw. The file was made by running testdata/fastjson/Oracle.java (our
// own program on fastjson 1.2.83 built from its tag) over handwritten.txt
// and the output of gen.py.
type fastjsonCase struct {
	Header   string          `json:"header"`
	JSON     bool            `json:"json"`
	Fastjson json.RawMessage `json:"fastjson"`
}

// TestCodecExtFieldsLikeFastjson checks that a JSON header's extFields
// values that are not strings (numbers with fractions and exponents, nested
// objects and arrays, booleans, null) read as the text fastjson gives them.
// Every header fastjson refuses is refused; one that is strict JSON is
// always read (except fastjson's "@type" and "$ref" objects); one that is
// not (fastjson takes 1.5F, 'x', [1,] ...) may be refused but is never read
// differently.
func TestCodecExtFieldsLikeFastjson(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "fastjson", "extfields.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var n, refused int
	for sc.Scan() {
		var tc fastjsonCase
		if err := json.Unmarshal(sc.Bytes(), &tc); err != nil {
			t.Fatal(err)
		}
		n++
		c, err := Decode(jsonFrame(tc.Header, ""))
		if string(tc.Fastjson) == `"error"` {
			if !errors.Is(err, ErrMalformedHeader) {
				t.Errorf("fastjson refuses %s; got %v %q", tc.Header, err, extOf(c))
			}
			continue
		}
		if err != nil {
			special := strings.Contains(tc.Header, `"$ref"`) || strings.Contains(tc.Header, `"@type"`)
			if tc.JSON && !special || !errors.Is(err, ErrMalformedHeader) {
				t.Errorf("%s: %v", tc.Header, err)
			}
			refused++
			continue
		}
		var pairs [][2]*string
		if err := json.Unmarshal(tc.Fastjson, &pairs); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, p := range pairs {
			if p[1] != nil { // Java keeps a null value; reading it is like an absent key
				want[*p[0]] = *p[1]
			}
		}
		if !sameExt(c.ExtFields, want) {
			t.Errorf("%s\n got %q\nwant %q", tc.Header, c.ExtFields, want)
		}
		checkRoundTrip(t, jsonFrame(tc.Header, ""))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 250 || refused > 25 {
		t.Fatalf("%d cases, %d refused: the table looks wrong", n, refused)
	}
}

func extOf(c *RemotingCommand) map[string]string {
	if c == nil {
		return nil
	}
	return c.ExtFields
}

func sameExt(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestCodecExtFieldsDecimalText pins BigDecimal.toString on hand-picked
// edges (values from Java 17's BigDecimal).
func TestCodecExtFieldsDecimalText(t *testing.T) {
	for in, want := range map[string]string{
		"1e3": "1E+3", "1.5e2": "1.5E+2", "150e-1": "15.0", "0.0000001": "1E-7", "0.000001": "0.000001",
		"-0.0": "0.0", "0e5": "0E+5", "0.0000000": "0E-7", "1.50": "1.50", "-1.5E-3": "-0.0015",
		"100.00e-2": "1.0000", "1.23E10": "1.23E+10", "1.": "1", "00.5": "0.5", "1E-0": "1",
		"-12.5e-9": "-1.25E-8",
	} {
		c, err := Decode(jsonFrame(`{"code":1,"extFields":{"v":`+in+`}}`, ""))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := c.Ext("v"); got != want {
			t.Errorf("%s read as %q, want %q", in, got, want)
		}
	}
}

// TestCodecExtFieldsDeepValue refuses a value nested past maxValueDepth
// with an error, not a stack overflow.
func TestCodecExtFieldsDeepValue(t *testing.T) {
	deep := make([]byte, 0, 2*100000)
	for range 100000 {
		deep = append(deep, '[')
	}
	for range 100000 {
		deep = append(deep, ']')
	}
	_, err := Decode(jsonFrame(`{"code":1,"extFields":{"v":`+string(deep)+`}}`, ""))
	if !errors.Is(err, ErrMalformedHeader) {
		t.Fatalf("got %v", err)
	}
	ok := `{"code":1,"extFields":{"v":[[[{"a":[1]}]]]}}`
	if c, err := Decode(jsonFrame(ok, "")); err != nil || c.Ext("v") != `[[[{"a":[1]}]]]` {
		t.Fatalf("%v %q", err, c.Ext("v"))
	}
}

// TestCodecFastjsonEscapes reads the string escapes fastjson takes beyond
// JSON's, in extFields keys and values (values from fastjson 1.2.83), and
// refuses those it refuses.
func TestCodecFastjsonEscapes(t *testing.T) {
	for in, want := range map[string]string{
		`\'`: "'", `\v`: "\v", `\0`: "\x00", `\7`: "\x07", `\F`: "\f", `\x41`: "A", `\xe9\xE9`: "éé",
		`a\x00b`: "a\x00b", `\'\u00e9\/`: "'é/",
	} {
		c, err := Decode(jsonFrame(`{"code":1,"extFields":{"k`+in+`":"`+in+`"}}`, ""))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got, ok := c.ExtFields["k"+want]; !ok || got != want || len(c.ExtFields) != 1 {
			t.Errorf("%s read as %q, want key %q value %q", in, c.ExtFields, "k"+want, want)
		}
		checkRoundTrip(t, jsonFrame(`{"code":1,"extFields":{"k`+in+`":"`+in+`"}}`, ""))
	}
	for _, in := range []string{`\a`, `\8`, `\x4`, `\xZZ`, `\x`, `\u12`} {
		if _, err := Decode(jsonFrame(`{"code":1,"extFields":{"k":"`+in+`"}}`, "")); !errors.Is(err, ErrMalformedHeader) {
			t.Errorf("%s: got %v, want a malformed header", in, err)
		}
	}
}

// TestCodecHeaderFieldsLikeFastjson reads the int fields and the remark of
// a JSON header written with other JSON types as fastjson 1.2.83 reads them
// into Java's RemotingCommand (expected values from running it), and refuses
// the forms it refuses, and numbers with a fraction or exponent.
func TestCodecHeaderFieldsLikeFastjson(t *testing.T) {
	for hdr, want := range map[string]RemotingCommand{
		`{"code":"105","opaque":"3","flag":"1","version":"121"}`:   {Code: 105, Opaque: 3, Flag: 1, Version: 121},
		`{"code":true,"flag":false,"opaque":null}`:                 {Code: 1},
		`{"code":"","opaque":"null","flag":"+105","version":"00"}`: {Flag: 105},
		`{"code":"105.0","opaque":"-2147483648","flag":"105."}`:    {Code: 105, Opaque: -1 << 31, Flag: 105},
		`{"code":"\u0031","opaque":007,"flag":"007"}`:              {Code: 1, Opaque: 7, Flag: 7},
		`{"remark":5}`:              {Remark: "5"},
		`{"remark":true}`:           {Remark: "true"},
		`{"remark":1.50,"code":-0}`: {Remark: "1.50"},
		`{"remark":1e3}`:            {Remark: "1E+3"},
		`{"remark":-0}`:             {Remark: "-0"},
		`{"remark":{"b":1,"a":2}}`:  {Remark: `{"a":2,"b":1}`},
		`{"remark":[1,{"b":null}]}`: {Remark: "[1,{}]"},
		`{"remark":null}`:           {},
	} {
		c, err := Decode(jsonFrame(hdr, ""))
		if err != nil {
			t.Errorf("%s: %v", hdr, err)
			continue
		}
		if c.Code != want.Code || c.Opaque != want.Opaque || c.Flag != want.Flag || c.Version != want.Version || c.Remark != want.Remark {
			t.Errorf("%s read as code %d opaque %d flag %d version %d remark %q", hdr, c.Code, c.Opaque, c.Flag, c.Version, c.Remark)
		}
		checkRoundTrip(t, jsonFrame(hdr, ""))
	}
	for _, hdr := range []string{
		`{"code":2147483648}`, `{"code":"2147483648"}`, `{"code":"0x10"}`, `{"code":" 105"}`, `{"code":"1e2"}`,
		`{"code":"105.5"}`, `{"code":".5"}`, `{"code":"-"}`, `{"code":"+"}`, `{"code":"true"}`, `{"code":[]}`,
		`{"code":{}}`, `{"code":1.5e-400}`, `{"code":0x10}`, `{"code":"-105.9"}`,
		// fastjson truncates these (105, 0, 105, 100); no client writes them
		`{"code":105.0}`, `{"opaque":-0.5}`, `{"flag":105.}`, `{"code":1e2}`,
	} {
		if _, err := Decode(jsonFrame(hdr, "")); !errors.Is(err, ErrMalformedHeader) {
			t.Errorf("%s: got %v, want a malformed header", hdr, err)
		}
	}
}
