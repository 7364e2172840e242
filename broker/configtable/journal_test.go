package configtable_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/rocketmq-go/rmq/broker/configtable"
	"github.com/rocketmq-go/rmq/remoting/body"
)

func decodeInt(_ string, raw []byte) (int, error) {
	var v int
	err := json.Unmarshal(raw, &v)
	return v, err
}

// change applies a put (v >= 0) or delete (v < 0) to t and returns its record.
func change(t *configtable.Table[int], key string, v int) configtable.Record {
	t.NextVersion(1000 + t.Version.Counter)
	if v < 0 {
		t.Delete(key)
		return configtable.DeleteRecord(t, key)
	}
	t.Put(key, v)
	return configtable.PutRecord(t, key, v)
}

// replayed is a fresh table holding base then the journal's records newer
// than base's version: what a restarted broker loads.
func replayed(t *testing.T, j *configtable.Journal, base map[string]int, version body.DataVersion) (map[string]int, body.DataVersion) {
	t.Helper()
	var tab configtable.Table[int]
	for k, v := range base {
		tab.Put(k, v)
	}
	tab.Version = version
	recs, err := j.Replay(version)
	if err != nil {
		t.Fatal(err)
	}
	configtable.Apply(&tab, recs, decodeInt, zaptest.NewLogger(t))
	return tab.Clone(), tab.Version
}

func TestJournalAppendReplay(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config", "t.json.journal")
	j := configtable.NewJournal(path, zaptest.NewLogger(t))
	var tab configtable.Table[int]
	for _, c := range []struct {
		k string
		v int
	}{{"a", 1}, {"b", 2}, {"a", 3}, {"b", -1}, {"c", 4}} {
		if err := j.Append(change(&tab, c.k, c.v)); err != nil {
			t.Fatal(err)
		}
	}
	got, v := replayed(t, configtable.NewJournal(path, zaptest.NewLogger(t)), nil, body.DataVersion{})
	if want := map[string]int{"a": 3, "c": 4}; !maps.Equal(got, want) || v != tab.Version {
		t.Fatalf("replayed %v %+v, want %v %+v", got, v, want, tab.Version)
	}
	// Records at or below the file's version are already in it: skipped.
	recs, err := j.Replay(body.DataVersion{Counter: 3})
	if err != nil || len(recs) != 2 || recs[0].Key != "b" || recs[0].Op != configtable.OpDelete || recs[1].Key != "c" {
		t.Fatalf("replay since 3: %+v %v", recs, err)
	}
}

// Appends of concurrent changes may reach the file out of version order;
// replay applies them in version order.
func TestJournalReplayOrdersByVersion(t *testing.T) {
	t.Parallel()
	j := configtable.NewJournal(filepath.Join(t.TempDir(), "t.journal"), zaptest.NewLogger(t))
	var tab configtable.Table[int]
	r1 := change(&tab, "k", 1)
	r2 := change(&tab, "k", -1)
	if err := j.Append(r2); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(r1); err != nil {
		t.Fatal(err)
	}
	if got, _ := replayed(t, j, nil, body.DataVersion{}); len(got) != 0 {
		t.Fatalf("delete applied before the put it follows: %v", got)
	}
}

// A crash in the middle of an append leaves a torn last line: it is
// ignored with a warning, and the next append (after restart) starts a
// line of its own.
func TestJournalTornLastLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.journal")
	j := configtable.NewJournal(path, zaptest.NewLogger(t))
	var tab configtable.Table[int]
	if err := j.Append(change(&tab, "a", 1), change(&tab, "b", 2)); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"op":"put","key":"torn","value":9,"dataVer`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, v := replayed(t, configtable.NewJournal(path, zaptest.NewLogger(t)), nil, body.DataVersion{})
	if want := map[string]int{"a": 1, "b": 2}; !maps.Equal(got, want) || v.Counter != 2 {
		t.Fatalf("replayed %v %+v, want %v counter 2", got, v, want)
	}
	// The restarted process appends after the torn bytes.
	j2 := configtable.NewJournal(path, zaptest.NewLogger(t))
	if err := j2.Append(change(&tab, "c", 3)); err != nil {
		t.Fatal(err)
	}
	got, _ = replayed(t, j2, nil, body.DataVersion{})
	if want := map[string]int{"a": 1, "b": 2, "c": 3}; !maps.Equal(got, want) {
		t.Fatalf("after a torn line, replayed %v, want %v", got, want)
	}
}

// fileSim is the table file: the snapshot and version of the last
// successful full write.
type fileSim struct {
	mu      sync.Mutex
	entries map[string]int
	version body.DataVersion
	fail    error
}

func (f *fileSim) writer(mu *sync.Mutex, tab *configtable.Table[int]) func() error {
	return func() error {
		mu.Lock()
		snap, ver := tab.Clone(), tab.Version
		mu.Unlock()
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.fail != nil {
			return f.fail
		}
		f.entries, f.version = snap, ver
		return nil
	}
}

// Crash between the rotation and the full write (or the write failed):
// the rotated journal is replayed over the previous file, then the
// current one; a later rotation adds to the rotated journal rather than
// replacing it.
func TestJournalCrashAfterRotation(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.journal")
	lg := zaptest.NewLogger(t)
	j := configtable.NewJournal(path, lg)
	var mu sync.Mutex
	var tab configtable.Table[int]
	file := &fileSim{}
	for i := range 3 {
		if err := j.Append(change(&tab, strconv.Itoa(i), i)); err != nil {
			t.Fatal(err)
		}
	}
	file.fail = errors.New("disk full")
	if err := configtable.WriteRotating(j, lg, file.writer(&mu, &tab)); err == nil {
		t.Fatal("write error not returned")
	}
	if _, err := os.Stat(j.RotatedPath()); err != nil {
		t.Fatalf("rotated journal gone after a failed write: %v", err)
	}
	if err := j.Append(change(&tab, "3", 3)); err != nil {
		t.Fatal(err)
	}
	want := tab.Clone()
	got, v := replayed(t, configtable.NewJournal(path, lg), file.entries, file.version)
	if !maps.Equal(got, want) || v != tab.Version {
		t.Fatalf("after crash: %v %+v, want %v %+v", got, v, want, tab.Version)
	}
	// Second rotation with the first one still there: merged, nothing lost.
	if err := j.Rotate(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("current journal still there after rotation: %v", err)
	}
	got, _ = replayed(t, j, file.entries, file.version)
	if !maps.Equal(got, want) {
		t.Fatalf("after second rotation: %v, want %v", got, want)
	}
	// The write succeeds at last: the rotated journal is removed.
	file.fail = nil
	if err := configtable.WriteRotating(j, lg, file.writer(&mu, &tab)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, j.RotatedPath()} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s left after a successful write: %v", p, err)
		}
	}
	if got, _ := replayed(t, j, file.entries, file.version); !maps.Equal(got, want) {
		t.Fatalf("from the file alone: %v, want %v", got, want)
	}
}

// Crash between the full write and the removal of the rotated journal:
// its records are already in the file (skipped by version), later ones
// in the current journal are replayed.
func TestJournalCrashBeforeRemoval(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.journal")
	lg := zaptest.NewLogger(t)
	j := configtable.NewJournal(path, lg)
	var mu sync.Mutex
	var tab configtable.Table[int]
	file := &fileSim{}
	for _, c := range []struct {
		k string
		v int
	}{{"a", 1}, {"b", 2}, {"a", -1}} {
		if err := j.Append(change(&tab, c.k, c.v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Rotate(); err != nil {
		t.Fatal(err)
	}
	if err := file.writer(&mu, &tab)(); err != nil { // written, not yet removed
		t.Fatal(err)
	}
	// "a" comes back after the write: only in the current journal.
	if err := j.Append(change(&tab, "a", 5)); err != nil {
		t.Fatal(err)
	}
	recs, err := j.Replay(file.version)
	if err != nil || len(recs) != 1 || recs[0].Key != "a" {
		t.Fatalf("replay over the new file: %+v %v", recs, err)
	}
	got, v := replayed(t, configtable.NewJournal(path, lg), file.entries, file.version)
	if want := tab.Clone(); !maps.Equal(got, want) || v != tab.Version {
		t.Fatalf("after crash: %v %+v, want %v %+v", got, v, want, tab.Version)
	}
}

// Concurrent changes (each journaled after it is applied, outside the
// table's lock) race full rewrites; whenever the process "crashes", the
// last written file plus the journals give back exactly the table.
func TestJournalConcurrentChangesAndRewrites(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.journal")
	lg := zaptest.NewLogger(t)
	j := configtable.NewJournal(path, lg)
	var mu sync.Mutex
	var tab configtable.Table[int]
	file := &fileSim{}
	write := file.writer(&mu, &tab)
	stop := make(chan struct{})
	rewrites := make(chan struct{})
	go func() {
		defer close(rewrites)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := configtable.WriteRotating(j, lg, write); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				k := fmt.Sprintf("k%d", (w*7+i)%20)
				v := i
				if i%5 == 4 {
					v = -1
				}
				mu.Lock()
				rec := change(&tab, k, v)
				mu.Unlock()
				if err := j.Append(rec); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-rewrites
	mu.Lock()
	want, ver := tab.Clone(), tab.Version
	mu.Unlock()
	file.mu.Lock()
	base, baseVer := file.entries, file.version
	file.mu.Unlock()
	got, v := replayed(t, configtable.NewJournal(path, lg), base, baseVer)
	if !maps.Equal(got, want) || v != ver {
		t.Fatalf("recovered %v %+v, want %v %+v", got, v, want, ver)
	}
}
