package configtable

import (
	"encoding/json"
	"fmt"
	"sync"

	"go.uber.org/zap"
)

// Commit makes a change already applied to the table durable before it is
// answered: it journals recs (one write(2), Java's page-cache guarantee)
// and asks p for a coalesced full rewrite. When the append fails it waits
// for that rewrite instead, so the caller may still answer once Commit
// returns (as Java, a failed write is logged, not reported to the client).
// Callers must not hold the table's mutex.
func Commit(j *Journal, p *Persister, lg *zap.Logger, recs ...Record) {
	err := j.Append(recs...)
	p.Request()
	if err != nil {
		lg.Error("journal append failed, waiting for the full write", zap.Error(err))
		_ = p.WaitPersisted() // logged by the persister
	}
}

// PutRecord is the journal record of a put of v under key, the table's
// version being version after the change.
func PutRecord[V any](t *Table[V], key string, v V) Record {
	raw, err := json.Marshal(v)
	if err != nil {
		// Config structs of plain fields always encode.
		panic(fmt.Sprintf("configtable: encode %s: %v", key, err))
	}
	return Record{Op: OpPut, Key: key, Value: raw, DataVersion: t.Version}
}

// DeleteRecord is the journal record of the removal of key.
func DeleteRecord[V any](t *Table[V], key string) Record {
	return Record{Op: OpDelete, Key: key, DataVersion: t.Version}
}

// Apply replays recs (from Journal.Replay) into t: puts decoded by decode,
// deletes, and the version of each record adopted. A put whose value does
// not decode is skipped with a warning. It returns how many records
// applied.
func Apply[V any](t *Table[V], recs []Record, decode func(key string, raw []byte) (V, error), lg *zap.Logger) int {
	n := 0
	for _, r := range recs {
		switch r.Op {
		case OpPut:
			v, err := decode(r.Key, r.Value)
			if err != nil {
				lg.Warn("journal record undecodable, ignored", zap.String("key", r.Key), zap.Error(err))
				continue
			}
			t.Put(r.Key, v)
		case OpDelete:
			t.Delete(r.Key)
		default:
			continue
		}
		t.Version = r.DataVersion
		n++
	}
	return n
}

// ReplayJournal replays into t (guarded by mu) the records of j newer
// than t's version, as a table's Load does after reading its file: left
// by a crash (a clean shutdown leaves none), they are applied with Apply
// and logged as a warning naming what the table holds.
func ReplayJournal[V any](j *Journal, mu *sync.Mutex, t *Table[V], decode func(key string, raw []byte) (V, error), what string, lg *zap.Logger) error {
	mu.Lock()
	since := t.Version
	mu.Unlock()
	recs, err := j.Replay(since)
	if err != nil || len(recs) == 0 {
		return err
	}
	mu.Lock()
	n := Apply(t, recs, decode, lg)
	mu.Unlock()
	lg.Warn(what+" changes replayed from the journal", zap.String("path", j.Path()), zap.Int("records", n))
	return nil
}

// WriteRotating performs a full rewrite of the table file with write:
// the journal is rotated first (write must take its snapshot after), and
// the rotated journal removed once write succeeded, since every record in
// it was applied to the table before the snapshot. A failed rotation is
// logged and the write still done: records left in the current journal
// are skipped by version when replayed.
func WriteRotating(j *Journal, lg *zap.Logger, write func() error) error {
	if err := j.Rotate(); err != nil {
		lg.Warn("journal rotation failed", zap.Error(err))
	}
	if err := write(); err != nil {
		return err
	}
	if err := j.RemoveRotated(); err != nil {
		lg.Warn("rotated journal not removed", zap.Error(err))
	}
	return nil
}
