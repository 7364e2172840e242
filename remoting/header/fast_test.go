package header

import (
	"reflect"
	"testing"
)

// fastHeaders are the types with hand-written codecs; each must agree with
// the reflective codec driven by its struct tags.
var fastHeaders = []func() CommandCustomHeader{
	func() CommandCustomHeader { return new(SendMessageRequestHeader) },
	func() CommandCustomHeader { return new(SendMessageRequestHeaderV2) },
	func() CommandCustomHeader { return new(SendMessageResponseHeader) },
	func() CommandCustomHeader { return new(PullMessageRequestHeader) },
	func() CommandCustomHeader { return new(PullMessageResponseHeader) },
}

func TestHeaderFastMatchesReflective(t *testing.T) {
	for _, mk := range fastHeaders {
		for _, filled := range []bool{false, true} {
			h := mk()
			if filled {
				fillHeader(h)
			}
			fast, slow := h.ToExtFields(), encode(h)
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%T encode: fast %v, reflective %v", h, fast, slow)
			}
			a, b := mk(), mk()
			if err := a.FromExtFields(fast); err != nil {
				t.Fatal(err)
			}
			if err := decode(fast, b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(a, h) {
				t.Fatalf("%T decode: fast %+v, reflective %+v, want %+v", h, a, b, h)
			}
		}
	}
}

// TestHeaderFastErrorsMatchReflective corrupts or removes each key in turn.
func TestHeaderFastErrorsMatchReflective(t *testing.T) {
	for _, mk := range fastHeaders {
		h := mk()
		fillHeader(h)
		full := h.ToExtFields()
		for key := range full {
			for _, bad := range []*string{nil, String("x"), String("99999999999999999999"), String("")} {
				ext := map[string]string{}
				for k, v := range full {
					ext[k] = v
				}
				if bad == nil {
					delete(ext, key)
				} else {
					ext[key] = *bad
				}
				a, b := mk(), mk()
				fillHeader(a)
				ea, eb := a.FromExtFields(ext), decode(ext, b)
				if (ea == nil) != (eb == nil) || (ea != nil && ea.Error() != eb.Error()) {
					t.Fatalf("%T %s=%v: fast err %v, reflective err %v", h, key, bad, ea, eb)
				}
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("%T %s=%v: fast %+v, reflective %+v", h, key, bad, a, b)
				}
			}
		}
	}
}
