package configtable

// The change journal of a table file. Java rewrites the whole file inside
// every update, without fsync: an answered change survives a crash of the
// process (the bytes are in the page cache) but not necessarily a power
// loss. A Journal gives each change the same guarantee at O(1) cost: one
// line appended with one write(2) to <file>.journal, no fsync, before the
// change is answered. The Persister's full rewrite rotates the journal to
// <file>.journal.old before it snapshots the table and removes that file
// once the new table file is in place; loading replays both journals over
// the table file.
//
// Crash windows: after rotation and before the rewrite, the records are in
// .journal.old and replayed over the previous file; after the rewrite and
// before the removal, they are replayed over a file that already holds
// them, which Replay skips by dataVersion counter. A line torn by a crash
// in the middle of an append is ignored with a warning.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// Journal operations.
const (
	OpPut    = "put"
	OpDelete = "delete"
)

// Record is one journaled change: Op of Key (Value holds the full config
// JSON for a put), with the table's data version after the change.
type Record struct {
	Op          string           `json:"op"`
	Key         string           `json:"key"`
	Value       json.RawMessage  `json:"value,omitempty"`
	DataVersion body.DataVersion `json:"dataVersion"`
}

// Journal appends change records to path and rotates them to path+".old".
// Safe for concurrent use.
type Journal struct {
	path string
	lg   *zap.Logger

	mu sync.Mutex // guards f; held across the append's write(2), never an fsync
	f  *os.File   // open O_APPEND on path, nil until the first append after a rotation
}

// NewJournal returns the journal at path (<file>.journal). Nothing is
// opened or created before the first Append.
func NewJournal(path string, lg *zap.Logger) *Journal {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Journal{path: path, lg: lg}
}

// Path returns the current journal's path.
func (j *Journal) Path() string { return j.path }

// RotatedPath returns the rotated journal's path.
func (j *Journal) RotatedPath() string { return j.path + ".old" }

// Append writes recs as consecutive lines with one write(2), without
// fsync: when it returns nil the records survive a crash of the process.
func (j *Journal) Append(recs ...Record) error {
	if len(recs) == 0 {
		return nil
	}
	var buf []byte
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("configtable: encode journal record %s: %w", r.Key, err)
		}
		buf = append(append(buf, line...), '\n')
	}
	// The lock orders appends against Rotate's close and rename; the write
	// lands in the page cache (the guarantee Java's unsynced rewrite gives).
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		f, torn, err := openAppend(j.path)
		if err != nil {
			return err
		}
		j.f = f
		if torn {
			// A crash tore the last line: end it so this record starts a
			// line of its own (the torn one is skipped on replay).
			buf = append([]byte{'\n'}, buf...)
		}
	}
	if _, err := j.f.Write(buf); err != nil {
		// A partial write leaves a torn line; reopen (and repair) next time.
		_ = j.f.Close()
		j.f = nil
		return fmt.Errorf("configtable: append %s: %w", j.path, err)
	}
	return nil
}

// openAppend opens path for appending, creating it (and its directory),
// and reports whether its last line lacks its newline.
func openAppend(path string) (f *os.File, torn bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, false, fmt.Errorf("configtable: mkdir for %s: %w", path, err)
	}
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("configtable: open %s: %w", path, err)
	}
	torn, err = endsTorn(path)
	if err != nil {
		_ = f.Close()
		return nil, false, err
	}
	return f, torn, nil
}

// endsTorn reports whether the non-empty file at path does not end with a
// newline.
func endsTorn(path string) (bool, error) {
	r, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("configtable: open %s: %w", path, err)
	}
	defer r.Close()
	st, err := r.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	var last [1]byte
	if _, err := r.ReadAt(last[:], st.Size()-1); err != nil {
		return false, fmt.Errorf("configtable: read %s: %w", path, err)
	}
	return last[0] != '\n', nil
}

// Rotate moves the current journal aside, to RotatedPath, so that appends
// racing a full rewrite go to a fresh journal. Call it before taking the
// table snapshot to write. When a rotated journal is still there (the
// previous rewrite failed or crashed), the current one is added to its
// end instead of replacing it.
func (j *Journal) Rotate() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		err := j.f.Close()
		j.f = nil
		if err != nil {
			return fmt.Errorf("configtable: close %s: %w", j.path, err)
		}
	}
	old := j.RotatedPath()
	if _, err := os.Stat(old); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(j.path, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("configtable: rotate %s: %w", j.path, err)
		}
		return nil
	}
	cur, err := os.ReadFile(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("configtable: read %s: %w", j.path, err)
	}
	f, torn, err := openAppend(old)
	if err != nil {
		return err
	}
	if torn {
		cur = append([]byte{'\n'}, cur...)
	}
	_, werr := f.Write(cur)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("configtable: merge %s into %s: %w", j.path, old, err)
	}
	if err := os.Remove(j.path); err != nil {
		return fmt.Errorf("configtable: remove %s: %w", j.path, err)
	}
	return nil
}

// RemoveRotated deletes the rotated journal; call it once a full write
// of a snapshot taken after Rotate has succeeded.
func (j *Journal) RemoveRotated() error {
	if err := os.Remove(j.RotatedPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("configtable: remove %s: %w", j.RotatedPath(), err)
	}
	return nil
}

// Close closes the append descriptor; a later Append reopens it.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Replay reads the rotated journal, then the current one, and returns the
// records newer than the table file's version (counter above since.Counter),
// ordered by counter (appends of concurrent changes may land out of
// order; records of one change keep their order). Torn or undecodable
// lines are skipped with a warning. Missing journals are empty.
func (j *Journal) Replay(since body.DataVersion) ([]Record, error) {
	var all []Record
	for _, p := range []string{j.RotatedPath(), j.path} {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("configtable: read %s: %w", p, err)
		}
		all = append(all, j.parse(p, data)...)
	}
	all = slices.DeleteFunc(all, func(r Record) bool { return r.DataVersion.Counter <= since.Counter })
	slices.SortStableFunc(all, func(a, b Record) int { return cmp.Compare(a.DataVersion.Counter, b.DataVersion.Counter) })
	return all, nil
}

func (j *Journal) parse(path string, data []byte) []Record {
	var recs []Record
	for lineNo := 1; len(data) > 0; lineNo++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			j.lg.Warn("journal ends with a torn line, ignored", zap.String("path", path),
				zap.Int("line", lineNo), zap.Int("bytes", len(data)))
			break
		}
		line := data[:i]
		data = data[i+1:]
		if len(line) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil || r.Key == "" || (r.Op != OpPut && r.Op != OpDelete) {
			j.lg.Warn("journal line unreadable, ignored", zap.String("path", path),
				zap.Int("line", lineNo), zap.Error(err))
			continue
		}
		recs = append(recs, r)
	}
	return recs
}
