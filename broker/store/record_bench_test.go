package store

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkStoreDispatchRequest turns the records of the golden Java 4.9.8
// CommitLog into dispatch requests without the properties map, as the
// recovery scan and a slave's dispatcher do for every record.
func BenchmarkStoreDispatchRequest(b *testing.B) {
	log, err := os.ReadFile(filepath.Join(goldenDirOrEmpty(), "store-clean", "store", "commitlog", "00000000000000000000"))
	if err != nil {
		b.Skip("golden store not available:", err)
	}
	var recs []recordView
	for pos := 0; pos+8 <= len(log) && len(recs) < 64; {
		v, st := parseRecord(log[pos:], false)
		if st != recordValid {
			break
		}
		recs = append(recs, v)
		pos += int(int32(binary.BigEndian.Uint32(log[pos:])))
	}
	if len(recs) == 0 {
		b.Skip("no records")
	}
	s := parseStore()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d := s.dispatchRequest(&recs[i%len(recs)], false)
		if d.MsgSize == 0 {
			b.Fatal("empty request")
		}
		i++
	}
}
