package message

import "testing"

// BenchmarkMessageHashMapPropertiesStored is the broker's per-send
// properties rewrite (storedProperties): parse a Java client's properties,
// add CLUSTER, drop WAIT, render in HashMap order.
func BenchmarkMessageHashMapPropertiesStored(b *testing.B) {
	in := props("KEYS", "K1 K2", "UNIQ_KEY", "7F0000017A6418B4AAC2395B7B3D0000", "WAIT", "true", "TAGS", "TagA")
	b.ReportAllocs()
	for b.Loop() {
		p := ParseHashMapProperties(in)
		p.Put(PropertyCluster, "DefaultCluster")
		p.Remove(PropertyWaitStoreMsgOK)
		if p.String() == "" {
			b.Fatal("empty")
		}
	}
}

// TestMessageHashMapPropertiesStoredAllocs keeps the per-send rewrite at
// three allocations (the map, its one backing array, the string) and its
// output in Java's order.
func TestMessageHashMapPropertiesStoredAllocs(t *testing.T) {
	in := props("KEYS", "K1 K2", "UNIQ_KEY", "7F0000017A6418B4AAC2395B7B3D0000", "WAIT", "true", "TAGS", "TagA")
	var out string
	allocs := testing.AllocsPerRun(100, func() {
		p := ParseHashMapProperties(in)
		p.Put(PropertyCluster, "DefaultCluster")
		p.Remove(PropertyWaitStoreMsgOK)
		out = p.String()
	})
	if allocs > 3 {
		t.Errorf("%v allocations per rewrite, want at most 3", allocs)
	}
	// HashMap order of 16 buckets (the broker's golden-store test checks
	// the same renderer against records a Java broker wrote).
	want := props("KEYS", "K1 K2", "UNIQ_KEY", "7F0000017A6418B4AAC2395B7B3D0000", "CLUSTER", "DefaultCluster", "TAGS", "TagA")
	if out != want {
		t.Errorf("rendered %q\nwant     %q", out, want)
	}
}

// BenchmarkMessageEditHashMapProperties is the same rewrite through
// EditHashMapProperties, which the broker uses.
func BenchmarkMessageEditHashMapProperties(b *testing.B) {
	in := props("KEYS", "K1 K2", "UNIQ_KEY", "7F0000017A6418B4AAC2395B7B3D0000", "WAIT", "true", "TAGS", "TagA")
	b.ReportAllocs()
	for b.Loop() {
		if EditHashMapProperties(in, PropertyCluster, "DefaultCluster", PropertyWaitStoreMsgOK) == "" {
			b.Fatal("empty")
		}
	}
}

// TestMessageEditHashMapPropertiesAllocs: the broker's per-send rewrite
// allocates only its result, and renders Java's order.
func TestMessageEditHashMapPropertiesAllocs(t *testing.T) {
	in := props("KEYS", "K1 K2", "UNIQ_KEY", "7F0000017A6418B4AAC2395B7B3D0000", "WAIT", "true", "TAGS", "TagA")
	var out string
	allocs := testing.AllocsPerRun(100, func() {
		out = EditHashMapProperties(in, PropertyCluster, "DefaultCluster", PropertyWaitStoreMsgOK)
	})
	if allocs > 1 {
		t.Errorf("%v allocations per rewrite, want 1", allocs)
	}
	want := props("KEYS", "K1 K2", "UNIQ_KEY", "7F0000017A6418B4AAC2395B7B3D0000", "CLUSTER", "DefaultCluster", "TAGS", "TagA")
	if out != want {
		t.Errorf("rendered %q\nwant     %q", out, want)
	}
}

// editSlow is EditHashMapProperties through HashMapProperties.
func editSlow(s, k, v, rm string) string {
	p := ParseHashMapProperties(s)
	p.Put(k, v)
	if rm != "" {
		p.Remove(rm)
	}
	return p.String()
}

// TestMessageEditHashMapPropertiesMatchesMap: the one-call rewrite equals
// parse, Put, Remove, String, including past its 16 local entries (the
// table then grows to 32 and 64 buckets), repeated and malformed segments.
func TestMessageEditHashMapPropertiesMatchesMap(t *testing.T) {
	var many []string
	for i := range 40 {
		many = append(many, "K"+string(rune('a'+i%26))+string(rune('A'+i/26)), "v")
		in := props(many...)
		for _, c := range [][3]string{{PropertyCluster, "C", PropertyWaitStoreMsgOK}, {"Ka" + "A", "x", ""}, {"Kb" + "A", "y", "Kc" + "A"}} {
			if got, want := EditHashMapProperties(in+"\x01WAIT\x02true", c[0], c[1], c[2]), editSlow(in+"\x01WAIT\x02true", c[0], c[1], c[2]); got != want {
				t.Fatalf("%d entries %v:\n got %q\nwant %q", len(many)/2, c, got, want)
			}
		}
	}
	for _, in := range []string{"", "\x01", "a\x02", "\x02b", "a\x02b\x01a\x02c", "WAIT\x02true", "CLUSTER\x02old\x01WAIT\x02false\x01"} {
		if got, want := EditHashMapProperties(in, PropertyCluster, "C", PropertyWaitStoreMsgOK), editSlow(in, PropertyCluster, "C", PropertyWaitStoreMsgOK); got != want {
			t.Fatalf("%q:\n got %q\nwant %q", in, got, want)
		}
	}
}

// FuzzMessageEditHashMapProperties: any properties string and edit.
func FuzzMessageEditHashMapProperties(f *testing.F) {
	f.Add(props("KEYS", "K1 K2", "UNIQ_KEY", "7F00", "WAIT", "true", "TAGS", "TagA"), PropertyCluster, "DefaultCluster", PropertyWaitStoreMsgOK)
	f.Add("a\x02b\x01a\x02c\x01\x02\x01d\x02", "a", "z", "d")
	f.Fuzz(func(t *testing.T, s, k, v, rm string) {
		if got, want := EditHashMapProperties(s, k, v, rm), editSlow(s, k, v, rm); got != want {
			t.Fatalf("%q put %q=%q remove %q:\n got %q\nwant %q", s, k, v, rm, got, want)
		}
	})
}
