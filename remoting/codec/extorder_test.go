package codec

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hashMapOrderRef is the ordering by sort that javaHashMapOrder's bucket
// lists replaced for tables of up to 64 buckets: the reference.
func hashMapOrderRef(e []kv, size int) []int {
	capacity := 16
	for size > capacity*3/4 {
		capacity *= 2
	}
	return javaHashMapOrderSort(e, capacity, nil)
}

func checkHashMapOrder(t *testing.T, keys []string, size int) {
	t.Helper()
	e := make([]kv, len(keys))
	for i, k := range keys {
		e[i].k = k
	}
	got, want := javaHashMapOrder(e, size, nil), hashMapOrderRef(e, size)
	if !slices.Equal(got, want) {
		t.Fatalf("order of %q (size %d): got %v, want %v", keys, size, got, want)
	}
}

// TestCodecHashMapOrderMatchesSort compares the bucket-list order with the
// sort over key sets that fill one bucket, share buckets, repeat keys and
// reach each table size.
func TestCodecHashMapOrderMatchesSort(t *testing.T) {
	letters := strings.Split("abcdefghijklmnopqrstuvwxyz", "")
	checkHashMapOrder(t, nil, 0)
	checkHashMapOrder(t, letters[:14], 14)
	checkHashMapOrder(t, []string{"Aa", "BB", "Aa", "C#", "BB"}, 5) // equal Java hashes, a repeat
	slices.Reverse(letters)
	for n := range 49 {
		var keys []string
		for i := range n {
			keys = append(keys, letters[i%26]+strconv.Itoa(i*7919%97))
		}
		checkHashMapOrder(t, keys, n)
		checkHashMapOrder(t, keys[:n/2], n) // new keys of a bigger map
	}
	// the send answer's keys and those of the pull answer
	checkHashMapOrder(t, []string{"msgId", "queueId", "queueOffset", "transactionId", "MSG_REGION", "TRACE_ON"}, 6)
	checkHashMapOrder(t, []string{"minOffset", "maxOffset", "nextBeginOffset", "suggestWhichBrokerId"}, 4)
}

// FuzzJavaHashMapOrder is the differential fuzz target of the bucket-list
// order: keys are the input's lines, size the number of keys plus extra.
func FuzzJavaHashMapOrder(f *testing.F) {
	f.Add("a\nb\nc", uint8(0))
	f.Add("Aa\nBB\nAa\nC#", uint8(3))
	f.Add("msgId\nqueueId\nqueueOffset", uint8(40))
	f.Fuzz(func(t *testing.T, s string, extra uint8) {
		keys := strings.Split(s, "\n")
		if len(keys) > 200 {
			keys = keys[:200]
		}
		checkHashMapOrder(t, keys, len(keys)+int(extra))
	})
}

// BenchmarkCodecHashMapOrder orders a send's 14 keys by bucket lists (new)
// and by the insertion sort it replaced (ref).
func BenchmarkCodecHashMapOrder(b *testing.B) {
	var e []kv
	for k := range sendV2Request(JSON).ExtFields {
		e = append(e, kv{k: k})
	}
	var ob [32]int
	b.Run("ref", func(b *testing.B) {
		for b.Loop() {
			javaHashMapOrderSort(e, 32, ob[:0]) // 14 keys: a table of 32
		}
	})
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			javaHashMapOrder(e, len(e), ob[:0])
		}
	})
}
