package store

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/rocketmq-go/rmq/internal/message"
)

// queryBodies is what a QUERY_MESSAGE by key answers: the bodies of the
// records found, sorted.
func queryBodies(t *testing.T, s *DefaultMessageStore, topic, key string, begin, end int64) []string {
	t.Helper()
	var out []string
	for _, rec := range s.QueryMessage(topic, key, 64, begin, end).Messages {
		m, err := message.DecodeRecord(rec, true)
		if err != nil {
			t.Fatalf("query %s: %v", key, err)
		}
		out = append(out, string(m.Body))
	}
	slices.Sort(out)
	return out
}

func bodies(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s-%02d", prefix, i))
	}
	slices.Sort(out)
	return out
}

// TestStoreTruncateCommitLogDropsIndexEntries: after the CommitLog is cut
// (an HA slave following its master), key and time queries find only the
// surviving records, and records written at the truncated offsets are
// indexed and found under their own keys, old keys included. Index files
// are small so the cut falls inside a file and whole files go.
func TestStoreTruncateCommitLogDropsIndexEntries(t *testing.T) {
	cfg := smallConfig(t)
	cfg.MaxHashSlotNum = 8 // long chains
	cfg.MaxIndexNum = 16   // 3 entries a record: a file holds 5 records
	s := startStore(t, cfg)
	var res []int64
	for i := range 30 {
		k := fmt.Sprintf("old-%02d", i)
		r := mustPut(t, s, newMsg("IdxT", int32(i%2), "", k+" K", []byte(k)))
		res = append(res, r.Append.WroteOffset)
	}
	waitDispatched(t, s)
	if got := queryBodies(t, s, "IdxT", "K", 0, math.MaxInt64); !slices.Equal(got, bodies("old", 0, 30)) {
		t.Fatalf("before truncation K finds %v", got)
	}

	const keep = 12 // records 12..29 are cut
	if err := s.TruncateCommitLog(res[keep]); err != nil {
		t.Fatal(err)
	}
	if got := queryBodies(t, s, "IdxT", "K", 0, math.MaxInt64); !slices.Equal(got, bodies("old", 0, keep)) {
		t.Fatalf("after truncation K finds %v, want old-00..old-11", got)
	}
	for _, k := range []string{"old-12", "old-20", "old-29"} {
		if got := queryBodies(t, s, "IdxT", k, 0, math.MaxInt64); len(got) != 0 {
			t.Fatalf("truncated key %s still found: %v", k, got)
		}
	}
	if got := queryBodies(t, s, "IdxT", "old-11", 0, math.MaxInt64); !slices.Equal(got, []string{"old-11"}) {
		t.Fatalf("surviving key old-11 finds %v", got)
	}

	// New records land on the truncated offsets, under the same keys.
	for i := range 20 {
		k := fmt.Sprintf("new-%02d", i)
		keys := k + " K"
		if i == 5 {
			keys += " old-20" // an old key, now on another record
		}
		mustPut(t, s, newMsg("IdxT", int32(i%2), "", keys, []byte(k)))
	}
	waitDispatched(t, s)
	want := append(bodies("old", 0, keep), bodies("new", 0, 20)...)
	slices.Sort(want)
	if got := queryBodies(t, s, "IdxT", "K", 0, math.MaxInt64); !slices.Equal(got, want) {
		t.Fatalf("after new writes K finds %v, want %v", got, want)
	}
	if got := queryBodies(t, s, "IdxT", "old-20", 0, math.MaxInt64); !slices.Equal(got, []string{"new-05"}) {
		t.Fatalf("old-20 finds %v, want only new-05", got)
	}
	if got := queryBodies(t, s, "IdxT", "new-19", 0, math.MaxInt64); !slices.Equal(got, []string{"new-19"}) {
		t.Fatalf("new-19 finds %v", got)
	}
	// By time: the whole range still answers exactly the live records.
	now := s.Now()
	if got := queryBodies(t, s, "IdxT", "K", now-3600_000, now+3600_000); !slices.Equal(got, want) {
		t.Fatalf("time-bounded K finds %v", got)
	}
}
