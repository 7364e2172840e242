package epoch

import (
	"reflect"
	"testing"
)

// FuzzEpochFileParse: the reader never panics, and whatever it accepts
// formats to a file that parses back to the same entries.
func FuzzEpochFileParse(f *testing.F) {
	for _, s := range []string{javaExample, "", "0\n0\n", "2\n0\n7-7000\n8-8000", "1\n0\n-1-5\n1-5\n",
		"1\r\n0\r\n3-9223372036854775807\r\n", "x\n", "1\n1\n1-1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := Parse(data)
		if err != nil {
			return
		}
		again, err := Parse(Format(es))
		if err != nil {
			t.Fatalf("reformatted %+v does not parse: %v", es, err)
		}
		if len(es) != 0 && !reflect.DeepEqual(again, es) {
			t.Fatalf("round trip %+v -> %+v", es, again)
		}
	})
}
