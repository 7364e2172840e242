package ha

// SyncStateSet tracking on a controller-mode master (5.x
// AutoSwitchHAService): which replicas are caught up, the set the
// controller accepted, the change the master proposes, the confirm offset
// and the allAckInSyncStateSet acknowledgement rule.
//
// A replica is caught up when its acknowledged offset reaches the master's
// max offset at the time of the last transfer to it (or the master had
// nothing more to send). It is proposed for the set (expand) once it
// acknowledged at least the confirm offset and the current epoch's start;
// it is proposed out of the set (shrink) when it has not been caught up
// for haMaxTimeSlaveNotCatchup, or when its connection closes. A proposal
// is "synchronizing" until the broker tells the controller's answer with
// SetSyncStateSet; meanwhile SyncStateSet() is the union of both sets, so
// a shrink never loosens the acknowledgement rule before the controller
// agreed to it.

import (
	"cmp"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// syncStateSet is the set state; mu is never held across I/O or a
// callback.
type syncStateSet struct {
	mu            sync.Mutex
	local         map[int64]struct{} // accepted by the controller (SetSyncStateSet)
	remote        map[int64]struct{} // proposed to the controller
	synchronizing bool               // remote awaits the controller's answer
	caughtUp      map[int64]time.Time

	// effective is SyncStateSet() (sorted, never modified) and localSize
	// the accepted set's size, published under mu for the put path.
	effective atomic.Pointer[[]int64]
	localSize atomic.Int32

	onChange atomic.Pointer[func([]int64)]
	pending  atomic.Pointer[[]int64] // latest proposal not yet handed to onChange
	kick     chan struct{}           // buffered(1): pending was set
}

func (ss *syncStateSet) init() {
	ss.local = map[int64]struct{}{}
	ss.remote = map[int64]struct{}{}
	ss.caughtUp = map[int64]time.Time{}
	ss.kick = make(chan struct{}, 1)
	ss.publishLocked()
}

func (ss *syncStateSet) reset() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	clear(ss.local)
	clear(ss.remote)
	clear(ss.caughtUp)
	ss.synchronizing = false
	ss.publishLocked()
}

// publishLocked refreshes effective and localSize; the caller holds mu.
func (ss *syncStateSet) publishLocked() {
	u := ss.local
	if ss.synchronizing {
		u = maps.Clone(ss.local)
		maps.Copy(u, ss.remote)
	}
	ids := sortedIDs(u)
	ss.effective.Store(&ids)
	ss.localSize.Store(int32(len(ss.local)))
}

// addSelf makes the master a member of its own set (the controller's set
// always holds the master; the broker may not have told it yet).
func (ss *syncStateSet) addSelf(id int64) {
	if id < 0 {
		return
	}
	ss.mu.Lock()
	ss.local[id] = struct{}{}
	ss.publishLocked()
	ss.mu.Unlock()
}

func sortedIDs(m map[int64]struct{}) []int64 { return slices.Sorted(maps.Keys(m)) }

func idSet(ids []int64) map[int64]struct{} {
	m := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		m[id] = struct{}{}
	}
	return m
}

// markSynchronizing records a proposal; the caller holds mu.
func (ss *syncStateSet) markSynchronizing(next map[int64]struct{}) {
	ss.synchronizing = true
	ss.remote = maps.Clone(next)
	ss.publishLocked()
}

// SetSyncStateSet installs the SyncStateSet the controller accepted (the
// answer to AlterSyncStateSet, a role change or the replica info); it ends
// the pending proposal and recomputes the confirm offset.
func (s *Service) SetSyncStateSet(ids []int64) {
	ss := &s.ctl.sss
	ss.mu.Lock()
	ss.local = idSet(ids)
	ss.synchronizing = false
	ss.publishLocked()
	ss.mu.Unlock()
	s.st.SetConfirmOffset(s.computeConfirmOffset())
	s.ctl.allAck.notifyTransferSome()
	s.lg.Info("ha syncStateSet set", zap.Int64s("syncStateSet", ids))
}

// SyncStateSet is the set acknowledgements are counted against: the
// accepted set, joined with the proposal while it is synchronizing (5.x
// getSyncStateSet). Sorted.
func (s *Service) SyncStateSet() []int64 { return slices.Clone(*s.ctl.sss.effective.Load()) }

// LocalSyncStateSet is the set the controller last accepted. Sorted.
func (s *Service) LocalSyncStateSet() []int64 {
	ss := &s.ctl.sss
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return sortedIDs(ss.local)
}

// IsSynchronizingSyncStateSet reports whether a proposal awaits the
// controller's answer.
func (s *Service) IsSynchronizingSyncStateSet() bool {
	ss := &s.ctl.sss
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.synchronizing
}

// SetOnSyncStateSetChanged installs f, called with the proposed set each
// time the master wants it to change on its own: a replica caught up
// (expand) or a member's connection closed (shrink). The broker sends it to
// the controller (AlterSyncStateSet) and reports the answer with
// SetSyncStateSet. f runs on one goroutine of the service, one call at a
// time; a proposal superseded before f ran is not delivered.
func (s *Service) SetOnSyncStateSetChanged(f func(proposed []int64)) {
	if f == nil {
		s.ctl.sss.onChange.Store(nil)
		return
	}
	s.ctl.sss.onChange.Store(&f)
}

// MaybeShrinkSyncStateSet is the periodic check (5.x
// maybeShrinkSyncStateSet, run every checkSyncStateSetPeriod by the
// broker): it returns the accepted set without the members that have not
// caught up within haMaxTimeSlaveNotCatchup or are not connected, and
// whether that differs from the accepted set (then it is also the pending
// proposal). The local broker always stays.
func (s *Service) MaybeShrinkSyncStateSet() (proposed []int64, changed bool) {
	ss := &s.ctl.sss
	self := s.ctl.localID.Load()
	connected := s.connectedSlaveIDs()
	now := time.Now()
	ss.mu.Lock()
	next := maps.Clone(ss.local)
	for id := range next {
		if id == self {
			continue
		}
		t, ok := ss.caughtUp[id]
		_, conn := connected[id]
		if !ok || !conn || now.Sub(t) > s.cfg.MaxTimeSlaveNotCatchup {
			delete(next, id)
			changed = true
		}
	}
	if changed {
		ss.markSynchronizing(next)
	}
	ss.mu.Unlock()
	if changed {
		s.lg.Info("ha syncStateSet shrink proposed", zap.Int64s("syncStateSet", sortedIDs(next)))
	}
	return sortedIDs(next), changed
}

// InSyncReplicasNums is the size of SyncStateSet() (5.x
// inSyncReplicasNums; the master counts).
func (s *Service) InSyncReplicasNums() int { return len(*s.ctl.sss.effective.Load()) }

// enoughInSyncReplicas is the store's put gate: minInSyncReplicas.
func (s *Service) enoughInSyncReplicas() bool {
	if !s.ctl.master.Load() {
		return true
	}
	return s.InSyncReplicasNums() >= s.cfg.MinInSyncReplicas
}

// updateCaughtUp raises a replica's last caught-up time.
func (s *Service) updateCaughtUp(id int64, t time.Time) {
	ss := &s.ctl.sss
	ss.mu.Lock()
	if t.After(ss.caughtUp[id]) {
		ss.caughtUp[id] = t
	}
	ss.mu.Unlock()
}

// maybeExpand proposes id for the set once its acknowledged offset
// reaches the confirm offset and the current epoch's start (5.x
// maybeExpandInSyncStateSet).
func (s *Service) maybeExpand(id, slaveMax int64) {
	ef := s.ctl.epochs.Load()
	last, ok := ef.Last()
	if !ok || slaveMax < s.ConfirmOffset() || slaveMax < last.StartOffset {
		return
	}
	ss := &s.ctl.sss
	ss.mu.Lock()
	if _, in := ss.local[id]; in {
		ss.mu.Unlock()
		return
	}
	if _, in := ss.remote[id]; in && ss.synchronizing {
		ss.mu.Unlock()
		return // already proposed
	}
	next := maps.Clone(ss.local)
	next[id] = struct{}{}
	ss.markSynchronizing(next)
	ss.mu.Unlock()
	s.lg.Info("ha slave caught up, syncStateSet expand proposed", zap.Int64("brokerId", id),
		zap.Int64("slaveAckOffset", slaveMax), zap.Int32("epoch", last.Epoch))
	s.proposeSyncStateSet(sortedIDs(next))
}

// onSlaveGone proposes the set without id when its connection closed
// (5.x removeConnection).
func (s *Service) onSlaveGone(id int64) {
	if !s.ctl.master.Load() || s.shutdown.Load() {
		return
	}
	if _, still := s.connectedSlaveIDs()[id]; still {
		return
	}
	ss := &s.ctl.sss
	ss.mu.Lock()
	if _, in := ss.local[id]; !in {
		ss.mu.Unlock()
		return
	}
	next := maps.Clone(ss.local)
	delete(next, id)
	ss.markSynchronizing(next)
	ss.mu.Unlock()
	s.lg.Info("ha syncStateSet member disconnected, shrink proposed", zap.Int64("brokerId", id))
	s.proposeSyncStateSet(sortedIDs(next))
}

// proposeSyncStateSet hands a proposal to the notifier goroutine.
func (s *Service) proposeSyncStateSet(ids []int64) {
	s.ctl.sss.pending.Store(&ids)
	select {
	case s.ctl.sss.kick <- struct{}{}:
	default:
	}
}

// syncStateSetNotifier delivers proposals to onChange, one at a time.
func (s *Service) syncStateSetNotifier() {
	for {
		select {
		case <-s.stopCh:
			return
		case <-s.ctl.sss.kick:
		}
		p := s.ctl.sss.pending.Swap(nil)
		if p == nil {
			continue
		}
		if f := s.ctl.sss.onChange.Load(); f != nil {
			(*f)(*p)
		}
	}
}

// connectedSlaveIDs is the set of broker ids of the auto-switch
// connections that completed their handshake.
func (s *Service) connectedSlaveIDs() map[int64]struct{} {
	s.connMu.RLock()
	defer s.connMu.RUnlock()
	m := make(map[int64]struct{}, len(s.conns))
	for c := range s.conns {
		if id := c.slaveID.Load(); id >= 0 {
			m[id] = struct{}{}
		}
	}
	return m
}

// slaveAckLocked is the highest acknowledged offset of the connections of
// broker id; ok is false when none is connected. The caller holds connMu.
func (s *Service) slaveAckLocked(id int64) (ack int64, ok bool) {
	for c := range s.conns {
		if c.slaveID.Load() == id {
			ack, ok = max(ack, c.ackOffset.Load()), true
		}
	}
	return ack, ok
}

// allAckOffset is the offset every SyncStateSet member other than this
// broker acknowledged: the master's max offset when the set holds no
// other member, -1 when a member is not connected. It allocates nothing
// (the allAckInSyncStateSet put path calls it).
func (s *Service) allAckOffset() int64 {
	if a, ok := s.minSetAck(false); ok {
		return a
	}
	return -1
}

// computeConfirmOffset is 5.x computeConfirmOffset: the smallest
// acknowledged offset over the connected SyncStateSet members (the
// master's max offset alone); unchanged while a member is disconnected.
func (s *Service) computeConfirmOffset() int64 {
	if a, ok := s.minSetAck(true); ok {
		return a
	}
	return s.st.ConfirmOffset()
}

// minSetAck is the smallest acknowledgement of the SyncStateSet members
// other than this broker, starting from the master's max offset
// (skipZero: members that acknowledged nothing yet do not count, as in
// 5.x computeConfirmOffset); ok is false when a member is not connected.
func (s *Service) minSetAck(skipZero bool) (int64, bool) {
	set := *s.ctl.sss.effective.Load()
	self := s.ctl.localID.Load()
	out := s.st.MaxPhyOffset()
	s.connMu.RLock()
	defer s.connMu.RUnlock()
	for _, id := range set {
		if id == self {
			continue
		}
		a, ok := s.slaveAckLocked(id)
		if !ok {
			return 0, false
		}
		if a > 0 || !skipZero {
			out = min(out, a)
		}
	}
	return out, true
}

// ConfirmOffset is the offset the group confirmed (5.x
// CommitLog.getConfirmOffset in controller mode): on a master alone in its
// set, or without allAckInSyncStateSet, its max offset; otherwise the
// smallest acknowledgement of the set (kept in the store's confirm
// offset); on a replica, what the master last sent.
func (s *Service) ConfirmOffset() int64 {
	if s.ctl.master.Load() && !s.st.IsFenced() && (!s.cfg.AllAckInSyncStateSet || s.ctl.sss.localSize.Load() <= 1) {
		return s.st.MaxPhyOffset()
	}
	return s.st.ConfirmOffset()
}

// SlaveState describes one replica connection on a controller-mode master.
type SlaveState struct {
	BrokerID       int64
	Addr           string
	AckOffset      int64
	LastCaughtUp   time.Time
	InSyncStateSet bool
}

// SlaveStates lists the auto-switch replica connections (HA runtime info).
func (s *Service) SlaveStates() []SlaveState {
	set := idSet(s.LocalSyncStateSet())
	s.connMu.RLock()
	var out []SlaveState
	for c := range s.conns {
		id := c.slaveID.Load()
		_, in := set[id]
		out = append(out, SlaveState{BrokerID: id, Addr: c.addr, AckOffset: c.ackOffset.Load(), InSyncStateSet: in})
	}
	s.connMu.RUnlock()
	ss := &s.ctl.sss
	ss.mu.Lock()
	for i := range out {
		out[i].LastCaughtUp = ss.caughtUp[out[i].BrokerID]
	}
	ss.mu.Unlock()
	slices.SortFunc(out, func(a, b SlaveState) int { return cmp.Compare(a.BrokerID, b.BrokerID) })
	return out
}
