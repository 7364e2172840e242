package props

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestPropsParseSyntax(t *testing.T) {
	in := "# comment\n" +
		"! also comment\n" +
		"   \n" +
		"a=1\n" +
		"b:2\n" +
		"c 3\n" +
		"d = 4  \n" +
		"  e\t:\t5\n" +
		"f = x \\\n    y\n" +
		"g\\ h = \\u0041\\t\\=\n" +
		"i\r\n" +
		"j=first\rj=second\n" +
		"k\\\\=v\n" +
		"l = \\\n"
	m, err := ParseString(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a": "1", "b": "2", "c": "3", "d": "4  ", "e": "5", "f": "x y",
		"g h": "A\t=", "i": "", "j": "second", "k\\": "v", "l": "",
	}
	if len(m) != len(want) {
		t.Fatalf("got %d keys %q, want %d", len(m), m, len(want))
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("key %q = %q, want %q", k, m[k], v)
		}
	}
}

func TestPropsParseBadEscape(t *testing.T) {
	_, err := ParseString("a=\\u00zz\n")
	if !errors.Is(err, ErrMalformedEscape) {
		t.Fatalf("err = %v, want ErrMalformedEscape", err)
	}
	_, err = Parse(strings.NewReader("a=\\u12"))
	if !errors.Is(err, ErrMalformedEscape) {
		t.Fatalf("short escape: err = %v", err)
	}
}

type cfgA struct {
	Home    string  `prop:"rocketmqHome,important"`
	Port    int     `prop:"listenPort"`
	Big     int64   `prop:"bigValue"`
	Flag    bool    `prop:"orderMessageEnable"`
	Ratio   float64 `prop:"ratio"`
	private int     //nolint:unused // untagged fields are ignored
	Plain   string
}

type cfgB struct {
	Port int `prop:"listenPort,important"`
	Name string
}

func TestPropsBind(t *testing.T) {
	a := &cfgA{Port: 9876, Big: 7, Ratio: 0.5}
	b := &cfgB{Port: 1}
	m := map[string]string{
		"rocketmqHome":       "/opt/rmq",
		"listenPort":         "10911",
		"bigValue":           "12x",
		"orderMessageEnable": "TRUE",
		"ratio":              " 2.5 ",
		"nope":               "1",
	}
	warns := Bind(m, a, b)
	if a.Home != "/opt/rmq" || a.Port != 10911 || b.Port != 10911 || !a.Flag || a.Ratio != 2.5 {
		t.Fatalf("bind result a=%+v b=%+v", a, b)
	}
	if a.Big != 7 {
		t.Fatalf("bad value must keep the default, got %d", a.Big)
	}
	if len(warns) != 2 || !strings.Contains(warns[0], "bigValue") || warns[1] != "unknown key nope" {
		t.Fatalf("warnings = %q", warns)
	}
}

func TestPropsBindBoolNotTrimmed(t *testing.T) {
	for val, want := range map[string]bool{"true": true, "True": true, "true ": false, "1": false, "yes": false, "": false} {
		a := &cfgA{Flag: !want}
		Bind(map[string]string{"orderMessageEnable": val}, a)
		if a.Flag != want {
			t.Errorf("%q -> %v, want %v", val, a.Flag, want)
		}
	}
	a := &cfgA{Port: 3}
	if w := Bind(map[string]string{"listenPort": " 5"}, a); len(w) != 1 || a.Port != 3 {
		t.Fatalf("int with blank must be rejected as Integer.parseInt does: %v %d", w, a.Port)
	}
}

func TestPropsPrintAndGet(t *testing.T) {
	a := &cfgA{Home: "/h", Port: 1, Ratio: 1}
	var buf bytes.Buffer
	Print(&buf, false, a, &cfgB{Port: 2})
	want := "rocketmqHome=/h\nlistenPort=1\nbigValue=0\norderMessageEnable=false\nratio=1.0\nlistenPort=2\n"
	if buf.String() != want {
		t.Fatalf("print:\n%s\nwant:\n%s", buf.String(), want)
	}
	buf.Reset()
	Print(&buf, true, a, &cfgB{Port: 2})
	if buf.String() != "rocketmqHome=/h\nlistenPort=2\n" {
		t.Fatalf("important print: %q", buf.String())
	}
	if v, ok := Get("listenPort", a); !ok || v != "1" {
		t.Fatalf("Get = %q %v", v, ok)
	}
	if _, ok := Get("missing", a); ok {
		t.Fatal("Get of an undeclared key must report false")
	}
	if got := Keys(&cfgB{}); len(got) != 1 || got[0] != "listenPort" {
		t.Fatalf("Keys = %v", got)
	}
	if Format(&cfgB{Port: 4}) != "listenPort=4\n" {
		t.Fatalf("Format = %q", Format(&cfgB{Port: 4}))
	}
}
