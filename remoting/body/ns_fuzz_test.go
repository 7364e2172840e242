package body

import (
	"encoding/json"
	"testing"
)

func FuzzBodyNormalize(f *testing.F) {
	for _, s := range []string{`{"brokerAddrs":{0:"a"}}`, `{{"a":1}:2}`, `[1,"x",true,null]`, `{a:'b'}`, `"\ud83d\ude00"`, `{`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Normalize(data)
		if err != nil {
			return
		}
		// Normalized output is standard JSON and a fixed point.
		again, err := Normalize(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", data, out, again, err)
		}
		// Grammar, not range: a number beyond float64 (e.g. 2e317 written
		// out) is valid JSON that a typed decoder then refuses on its own.
		if !json.Valid(out) {
			t.Fatalf("output is not JSON: %q", out)
		}
	})
}

func FuzzBodyRegisterBrokerBody(f *testing.F) {
	good, _ := (&RegisterBrokerBody{TopicConfigSerializeWrapper: TopicConfigSerializeWrapper{TopicConfigTable: map[string]TopicConfig{"T": NewTopicConfig("T")}}}).Encode(true)
	f.Add(good, true)
	js, _ := (&RegisterBrokerBody{}).Encode(false)
	f.Add(js, false)
	f.Fuzz(func(t *testing.T, data []byte, compressed bool) {
		_, _ = DecodeRegisterBrokerBody(data, compressed) // must not panic
	})
}
