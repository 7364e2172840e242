package header

import (
	"strconv"
	"testing"
)

// checkIntRead asserts that the reader parses s as strconv.ParseInt does:
// the same value, and an error exactly when ParseInt gives one.
func checkIntRead(t *testing.T, s string) {
	t.Helper()
	for _, bits := range []int{32, 64} {
		r := extReader{ext: map[string]string{"k": s}}
		got, ok := r.int("k", true, bits)
		want, err := strconv.ParseInt(s, 10, bits)
		if ok != (err == nil) || ok && got != want || !ok && r.err == nil {
			t.Fatalf("int%d %q: got %d ok=%v err=%v; ParseInt %d %v", bits, s, got, ok, r.err, want, err)
		}
	}
}

// TestHeaderIntMatchesParseInt covers the fast integer path's edges: signs,
// zeros, int32 and int64 limits, the longest digit runs it takes and the
// first it leaves to strconv.
func TestHeaderIntMatchesParseInt(t *testing.T) {
	for _, s := range []string{"0", "-0", "+0", "", "-", "+", "007", "-007", "1795966620586", "-1",
		"2147483647", "2147483648", "-2147483648", "-2147483649", "999999999999999999", "-999999999999999999",
		"1000000000000000000", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"12a", "1 ", " 1", "1_000", "0x10", "１", "--1", "-+1"} {
		checkIntRead(t, s)
	}
}

// FuzzHeaderInt is the differential fuzz target of the fast integer path.
func FuzzHeaderInt(f *testing.F) {
	for _, s := range []string{"0", "-1", "1795966620586", "2147483648", "+5", "999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkIntRead(t, s) })
}

// TestHeaderSlotIndex checks the hashed key lookup of every slot table: each
// key finds its own slot, and other keys (near misses included) none.
func TestHeaderSlotIndex(t *testing.T) {
	for _, kt := range []*keyTable{sendKeysV1, sendKeysV2, pullKeys} {
		s := extSlots{t: kt}
		for i := range kt.n {
			k := kt.keys[i]
			if got := s.index(k); got != i {
				t.Errorf("index(%q) = %d, want %d", k, got, i)
			}
			for _, miss := range []string{k + "x", k[:len(k)-1], "x" + k, k[:1] + "_" + k[1:]} {
				if got := s.index(miss); got != linearIndex(kt, miss) {
					t.Errorf("index(%q) = %d, want %d", miss, got, linearIndex(kt, miss))
				}
			}
		}
	}
}

func linearIndex(kt *keyTable, k string) int {
	for i := range kt.n {
		if kt.keys[i] == k {
			return i
		}
	}
	return -1
}

// FuzzHeaderSlotIndex compares the hashed lookup with a scan of the keys.
func FuzzHeaderSlotIndex(f *testing.F) {
	for _, k := range []string{"topic", "a", "bname", "queueId", "queueOffset", ""} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		for _, kt := range []*keyTable{sendKeysV1, sendKeysV2, pullKeys} {
			s := extSlots{t: kt}
			if got, want := s.index(k), linearIndex(kt, k); got != want {
				t.Fatalf("index(%q) = %d, want %d", k, got, want)
			}
		}
	})
}
