package epoch

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// javaExample is the example of 5.x CheckpointFile's documentation: two
// epoch entries, CRC 773307083.
const javaExample = "2\n773307083\n7-7000\n8-8000\n"

func TestEpochFileParseJavaFormat(t *testing.T) {
	es, err := Parse([]byte(javaExample))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Epoch: 7, StartOffset: 7000, EndOffset: 8000}, {Epoch: 8, StartOffset: 8000, EndOffset: math.MaxInt64}}
	if !reflect.DeepEqual(es, want) {
		t.Fatalf("got %+v", es)
	}
	if got := string(Format(es)); got != javaExample {
		t.Fatalf("format %q, Java writes %q", got, javaExample)
	}
	for name, in := range map[string]string{
		"crlf":       "2\r\n773307083\r\n7-7000\r\n8-8000\r\n",
		"noFinalEOL": "2\n773307083\n7-7000\n8-8000",
		"crcZero":    "2\n0\n7-7000\n8-8000\n",
		"junkLine":   "1\n0\nhello\n7-7000\n",
	} {
		if _, err := Parse([]byte(in)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, in := range map[string]string{
		"badCRC":     "2\n773307084\n7-7000\n8-8000\n",
		"badCount":   "3\n0\n7-7000\n8-8000\n",
		"noCRC":      "2\n",
		"badNumber":  "1\n0\n7-x\n",
		"negativeOf": "1\n0\n-7-7000\n", // three parts: no entry, count mismatch
	} {
		if _, err := Parse([]byte(in)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err %v, want ErrCorrupt", name, err)
		}
	}
}

func TestEpochFileAppendTruncatePersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "epochFileCheckpoint")
	f, err := Open(path)
	if err != nil || f.Len() != 0 || f.LastEpoch() != -1 {
		t.Fatalf("empty open: %v len=%d", err, f.Len())
	}
	for _, e := range []Entry{{Epoch: 1, StartOffset: 0}, {Epoch: 2, StartOffset: 100}, {Epoch: 4, StartOffset: 250}} {
		if err := f.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []Entry{{Epoch: 4, StartOffset: 300}, {Epoch: 5, StartOffset: 250}, {Epoch: 3, StartOffset: 400}} {
		if err := f.Append(bad); !errors.Is(err, ErrNotNewer) {
			t.Fatalf("append %+v: %v", bad, err)
		}
	}
	if e, ok := f.FindByOffset(120); !ok || e.Epoch != 2 || e.EndOffset != 250 {
		t.Fatalf("find 120: %+v %v", e, ok)
	}
	if e, ok := f.Next(2); !ok || e.Epoch != 4 {
		t.Fatalf("next 2: %+v", e)
	}
	data, _ := os.ReadFile(path)
	if want := Format(f.Entries()); string(data) != string(want) {
		t.Fatalf("file %q, want %q", data, want)
	}
	if err := f.TruncateSuffixByOffset(100); err != nil {
		t.Fatal(err)
	}
	g, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Epoch: 1, StartOffset: 0, EndOffset: math.MaxInt64}}
	if !reflect.DeepEqual(g.Entries(), want) || !reflect.DeepEqual(f.Entries(), want) {
		t.Fatalf("after truncate: reopened %+v, live %+v", g.Entries(), f.Entries())
	}
	if bak, _ := os.ReadFile(path + ".bak"); len(bak) == 0 {
		t.Fatal("no .bak of the previous content")
	}
	if err := f.TruncateSuffixByEpoch(1); err != nil {
		t.Fatal(err)
	}
	if h, err := Open(path); err != nil || h.Len() != 0 {
		t.Fatalf("emptied file reopens with %v entries, %v", h.Entries(), err)
	}
}

// A torn or garbled file (Java rewrites in place) falls back to the .bak;
// a temp file left by a crash is ignored.
func TestEpochFileRecoversFromBackup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "epochFileCheckpoint")
	if err := os.WriteFile(path+".bak", []byte(javaExample), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("2\n773307083\n7-70"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".tmp", []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil || f.LastEpoch() != 8 || f.Len() != 2 {
		t.Fatalf("open torn file: %v %+v", err, f)
	}
	if err := os.WriteFile(path+".bak", []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("both corrupt: %v", err)
	}
}

func TestEpochConsistentPoint(t *testing.T) {
	e := func(ep int32, off int64) Entry { return Entry{Epoch: ep, StartOffset: off} }
	cases := []struct {
		name             string
		local            []Entry
		localEnd         int64
		master           []Entry
		masterEnd, point int64
	}{
		{"sameEpochSlaveBehind", []Entry{e(1, 0)}, 700, []Entry{e(1, 0)}, 1000, 700},
		{"oldMasterTailCut", []Entry{e(1, 0)}, 1200, []Entry{e(1, 0), e(2, 700)}, 1500, 700},
		{"divergedEpoch", []Entry{e(1, 0), e(2, 500)}, 900, []Entry{e(1, 0), e(3, 600)}, 800, 500},
		{"sameHistory", []Entry{e(1, 0), e(2, 500)}, 900, []Entry{e(1, 0), e(2, 500)}, 900, 900},
		{"noCommonEpoch", []Entry{e(2, 0)}, 10, []Entry{e(3, 0)}, 20, -1},
		{"sameEpochOtherStart", []Entry{e(1, 0), e(2, 40)}, 90, []Entry{e(1, 0), e(2, 50)}, 80, 40},
	}
	for _, c := range cases {
		if got := ConsistentPoint(c.local, c.localEnd, c.master, c.masterEnd); got != c.point {
			t.Errorf("%s: %d, want %d", c.name, got, c.point)
		}
	}
}
