package codec

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestCodecManyKeysRepeats checks repeated extFields keys in headers long
// enough for the hashed key index: the last value wins, a repeat with the
// same value re-encodes byte for byte, and a key written with an escape is
// the same key.
func TestCodecManyKeysRepeats(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"code":1,"extFields":{`)
	for i := range 40 {
		b.WriteString(`"k` + strconv.Itoa(i) + `":"v` + strconv.Itoa(i) + `",`)
	}
	prefix := b.String()
	for name, tc := range map[string]struct {
		tail      string
		k3        string
		exact     bool
		wantCount int
	}{
		"same value":      {`"k3":"v3"}}`, "v3", true, 40},
		"new value":       {`"k3":"x"}}`, "x", false, 40},
		"escaped key":     {`"k\u0033":"y"}}`, "y", false, 40},
		"new key":         {`"k40":"z"}}`, "v3", true, 41},
		"number repeated": {`"k3":3}}`, "3", false, 40},
	} {
		frame := jsonFrame(prefix+tc.tail, "")
		c, err := Decode(frame)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.Ext("k3") != tc.k3 || len(c.ExtFields) != tc.wantCount || c.Ext("k39") != "v39" {
			t.Errorf("%s: k3=%q, %d keys", name, c.Ext("k3"), len(c.ExtFields))
		}
		out := mustEncode(t, c)
		if tc.exact != bytes.Equal(out, frame) {
			t.Errorf("%s: re-encoded byte for byte = %v, want %v\n%s", name, !tc.exact, tc.exact, out[8:])
		}
		checkRoundTrip(t, frame)
	}
}
