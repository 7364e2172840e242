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
