package filter

import "testing"

func BenchmarkSQL92Compile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompileSQL92("(a > 10 AND a < 100) OR (b IS NOT NULL AND b = TRUE) OR color IN ('red', 'blue')"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSQL92Match(b *testing.B) {
	e, err := CompileSQL92("(a > 10 AND a < 100) OR (b IS NOT NULL AND b = TRUE) OR color IN ('red', 'blue')")
	if err != nil {
		b.Fatal(err)
	}
	props := map[string]string{"a": "150", "b": "false", "color": "blue", "TAGS": "TagA", "KEYS": "k1"}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := e.Match(props); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkFilterMatchTagsCode(b *testing.B) {
	ts := ParseTags("TagA || TagB || TagC")
	b.ReportAllocs()
	for b.Loop() {
		if !MatchTagsCode(ts.SubString, ts.Codes, 2598921) {
			b.Fatal("no match")
		}
	}
}
