package header

import (
	"fmt"
	"maps"
	"reflect"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
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

// TestHeaderDecodeSendV2AsV1 checks DecodeSendMessageRequestHeader's direct
// V2 → V1 decode against the two-step path (V2 decode, then
// CreateSendMessageRequestHeaderV1), errors included, and that a Java
// client's header (optional j and l present) costs three allocations: the
// header and its two optional values.
func TestHeaderDecodeSendV2AsV1(t *testing.T) {
	full := map[string]string{"a": "pg", "b": "T", "c": "TBW102", "d": "4", "e": "3", "f": "0", "g": "1795966620586",
		"h": "0", "i": "KEYS\x01k\x02WAIT\x01true", "j": "2", "k": "true", "l": "16", "m": "false", "n": "broker-a"}
	variants := []map[string]string{full}
	for _, k := range []string{"a", "d", "i", "j", "k", "l", "n"} {
		m := maps.Clone(full)
		delete(m, k)
		variants = append(variants, m)
	}
	for _, bad := range [][2]string{{"d", "x"}, {"g", "1.5"}, {"j", ""}, {"l", "99999999999"}, {"k", "TRUE"}} {
		m := maps.Clone(full)
		m[bad[0]] = bad[1]
		variants = append(variants, m)
	}
	for _, m := range variants {
		got, gotErr := DecodeSendMessageRequestHeader(code.SendMessageV2, m)
		var v2 SendMessageRequestHeaderV2
		wantErr := v2.FromExtFields(m)
		var want *SendMessageRequestHeader
		if wantErr == nil {
			want = CreateSendMessageRequestHeaderV1(&v2)
		}
		if !reflect.DeepEqual(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%v:\n got %+v, %v\nwant %+v, %v", m, got, gotErr, want, wantErr)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := DecodeSendMessageRequestHeader(code.SendMessageV2, full); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 3 {
		t.Errorf("%v allocations per SEND_MESSAGE_V2 header, want 3", allocs)
	}
}
