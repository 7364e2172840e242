package message

import (
	"strings"
	"testing"
)

// props joins name/value pairs as a properties string.
func props(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+string(NameValueSeparator)+kv[i+1])
	}
	return strings.Join(parts, string(PropertySeparator))
}

func TestMessageHashMapPropertiesParse(t *testing.T) {
	in := props("A", "1") + string(PropertySeparator) + "x" + string(PropertySeparator) + props("B", "", "A", "2", "C", "3")
	p := ParseHashMapProperties(in)
	if got := strings.Join(p.Keys(), ","); got != "A,C" {
		t.Fatalf("keys %q", got)
	}
	if v, ok := p.Get("A"); !ok || v != "2" {
		t.Fatalf("A = %q %v, want last value", v, ok)
	}
	if _, ok := p.Get("B"); ok {
		t.Fatal("empty value kept")
	}
	var zero HashMapProperties
	if zero.String() != "" || len(zero.Map()) != 0 || zero.Value("A") != "" {
		t.Fatal("zero value not empty")
	}
}

// Bucket indexes (Java String.hashCode, spread, masked), worked out by hand:
// Q→1 of 16 and 17 of 32, A→1, B→2, single letters C..M→3..13 in both.
func TestMessageHashMapPropertiesJavaOrder(t *testing.T) {
	p := ParseHashMapProperties(props("Q", "q", "B", "b", "A", "a"))
	if got, want := p.String(), props("Q", "q", "A", "a", "B", "b"); got != want {
		t.Fatalf("16 buckets: %q, want %q", got, want)
	}
	c := p.Clone()
	for _, k := range strings.Split("C,D,E,F,G,H,I,J,K,L", ",") {
		c.Put(k, "v")
	}
	for _, k := range strings.Split("C,D,E,F,G,H,I,J,K,L", ",") {
		c.Remove(k)
	}
	if got, want := c.String(), props("A", "a", "B", "b", "Q", "q"); got != want {
		t.Fatalf("after growing to 13 entries (32 buckets): %q, want %q", got, want)
	}
	if got := p.String(); got != props("Q", "q", "A", "a", "B", "b") {
		t.Fatalf("clone shares state with the original: %q", got)
	}
}
