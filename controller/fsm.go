package controller

import (
	"errors"
	"io"
	"sync"

	"github.com/hashicorp/raft"
	"go.uber.org/zap"
)

// FSM is the raft.FSM over the ReplicasInfoManager. Raft calls Apply,
// Snapshot and Restore from its FSM goroutine; the request path reads the
// state through Read. mu guards m (a leaf lock: nothing else is taken or
// waited for under it).
type FSM struct {
	lg *zap.Logger
	mu sync.RWMutex
	m  *ReplicasInfoManager

	// applyHook, when set (tests only, before Start), runs first in Apply
	// for each command entry, on Raft's FSM goroutine.
	applyHook func(l *raft.Log)
}

// NewFSM returns an FSM over an empty state.
func NewFSM(lg *zap.Logger) *FSM {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &FSM{lg: lg, m: NewReplicasInfoManager()}
}

// Apply applies one log entry: a batch of events. An entry this version
// cannot read is logged and skipped; it must not stop the state machine.
func (f *FSM) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return nil
	}
	if f.applyHook != nil {
		f.applyHook(l)
	}
	evs, err := DecodeEvents(l.Data)
	if err != nil {
		f.lg.Error("skip unreadable log entry", zap.Uint64("index", l.Index), zap.Error(err))
		return err
	}
	f.mu.Lock()
	for _, ev := range evs {
		f.m.Apply(ev)
	}
	f.mu.Unlock()
	return nil
}

// Read runs fn with the state held for reading. fn must not keep m.
func (f *FSM) Read(fn func(m *ReplicasInfoManager)) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	fn(f.m)
}

// Snapshot captures the state as bytes; Persist writes them later.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.RLock()
	data, err := f.m.MarshalSnapshot()
	f.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	return fsmSnapshot(data), nil
}

// Restore replaces the state with a snapshot's.
func (f *FSM) Restore(rc io.ReadCloser) error {
	data, err := io.ReadAll(rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	m := NewReplicasInfoManager()
	if err := m.UnmarshalSnapshot(data); err != nil {
		return err
	}
	f.mu.Lock()
	f.m = m
	f.mu.Unlock()
	return nil
}

type fsmSnapshot []byte

func (s fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s); err != nil {
		return errors.Join(err, sink.Cancel())
	}
	return sink.Close()
}

func (s fsmSnapshot) Release() {}
