package header

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzHeaderDecode feeds arbitrary extFields (alternating key/value lines)
// to every header: decoding never panics, and a header that decodes
// re-encodes to a map that decodes back to the same header.
func FuzzHeaderDecode(f *testing.F) {
	f.Add("topic\nTopicTest\nqueueId\n3")
	f.Add("a\npg\nb\nT\nc\nTBW102\nd\n4\ne\n-1\nf\n0\ng\n1\nh\n0\nk\nTRUE")
	f.Add("brokerId\n99999999999999999999\nbrokerName\n\x00")
	f.Fuzz(func(t *testing.T, s string) {
		parts := strings.Split(s, "\n")
		ext := map[string]string{}
		for i := 0; i+1 < len(parts); i += 2 {
			ext[parts[i]] = parts[i+1]
		}
		for _, proto := range allHeaders {
			h := reflect.New(reflect.TypeOf(proto).Elem()).Interface().(CommandCustomHeader)
			if err := h.FromExtFields(ext); err != nil {
				if !reflect.ValueOf(h).Elem().IsZero() {
					t.Fatalf("%T not reset after error %v", h, err)
				}
				continue
			}
			back := reflect.New(reflect.TypeOf(proto).Elem()).Interface().(CommandCustomHeader)
			if err := back.FromExtFields(h.ToExtFields()); err != nil {
				t.Fatalf("%T re-decode: %v", h, err)
			}
			if !reflect.DeepEqual(back, h) {
				t.Fatalf("%T: %+v != %+v", h, back, h)
			}
		}
	})
}
