package props

import (
	"maps"
	"slices"
	"testing"
)

func TestPropsSplitDefines(t *testing.T) {
	rest, defs := SplitDefines([]string{"-c", "b.conf", "-Dtls.server.mode=enforcing", "-n", "x:1", "-Dflag", "-Da=b=c", "-D", "--", "-Dz=1"})
	if want := []string{"-c", "b.conf", "-n", "x:1", "-D", "--", "-Dz=1"}; !slices.Equal(rest, want) {
		t.Fatalf("rest %q, want %q", rest, want)
	}
	if want := map[string]string{"tls.server.mode": "enforcing", "flag": "", "a": "b=c"}; !maps.Equal(defs, want) {
		t.Fatalf("defines %v, want %v", defs, want)
	}
}
