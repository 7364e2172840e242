package controller

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// FirstBrokerID is the id of the first broker of a group (5.x
// MixAll.FIRST_BROKER_CONTROLLER_ID); ids grow from there.
const FirstBrokerID int64 = 1

// Replica is one broker of a group as the controller knows it.
type Replica struct {
	Address           string `json:"address"`
	RegisterCheckCode string `json:"registerCheckCode"`
}

// BrokerReplicaInfo is one group's replicas (5.x BrokerReplicaInfo).
type BrokerReplicaInfo struct {
	ClusterName string `json:"clusterName"`
	BrokerName  string `json:"brokerName"`
	// NextAssignBrokerID starts at FirstBrokerID and grows by one with
	// every id added, as 5.x's nextAssignBrokerId.
	NextAssignBrokerID int64             `json:"nextAssignBrokerId"`
	Brokers            map[int64]Replica `json:"brokers"`
}

// Address returns the address of id, "" when unknown.
func (b *BrokerReplicaInfo) Address(id int64) string { return b.Brokers[id].Address }

// IDs returns the broker ids, ascending.
func (b *BrokerReplicaInfo) IDs() []int64 { return slices.Sorted(maps.Keys(b.Brokers)) }

// SyncStateInfo is one group's master and SyncStateSet (5.x SyncStateInfo).
type SyncStateInfo struct {
	ClusterName       string `json:"clusterName"`
	BrokerName        string `json:"brokerName"`
	MasterEpoch       int32  `json:"masterEpoch"`
	SyncStateSetEpoch int32  `json:"syncStateSetEpoch"`
	// SyncStateSet is kept ascending and without duplicates.
	SyncStateSet []int64 `json:"syncStateSet"`
	// MasterBrokerID is nil when the group has no master.
	MasterBrokerID *int64 `json:"masterBrokerId,omitempty"`
}

// firstTimeForElect: the group never had a master.
func (s *SyncStateInfo) firstTimeForElect() bool { return s.MasterEpoch == 0 }

func (s *SyncStateInfo) inSync(id int64) bool { return slices.Contains(s.SyncStateSet, id) }

func (s *SyncStateInfo) setMaster(id *int64) {
	s.MasterBrokerID = id
	s.MasterEpoch++
}

func (s *SyncStateInfo) setSyncStateSet(set []int64) {
	s.SyncStateSet = normSet(set)
	s.SyncStateSetEpoch++
}

// normSet returns a sorted, deduplicated, non-nil copy.
func normSet(set []int64) []int64 {
	out := slices.Clone(set)
	if out == nil {
		out = []int64{}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ReplicasInfoManager is the controller's replicated state (5.x
// ReplicasInfoManager): per broker group, keyed by brokerName, its replicas
// and its sync state. It is a plain deterministic struct: Apply changes it,
// the request methods (requests.go) only read it and return the events to
// replicate. The caller serialises access.
type ReplicasInfoManager struct {
	replicas  map[string]*BrokerReplicaInfo
	syncState map[string]*SyncStateInfo
}

// NewReplicasInfoManager returns an empty state.
func NewReplicasInfoManager() *ReplicasInfoManager {
	return &ReplicasInfoManager{replicas: map[string]*BrokerReplicaInfo{}, syncState: map[string]*SyncStateInfo{}}
}

// contains: both tables know the group (5.x isContainsBroker).
func (m *ReplicasInfoManager) contains(brokerName string) bool {
	_, a := m.replicas[brokerName]
	_, b := m.syncState[brokerName]
	return a && b
}

// Group returns copies of a group's replicas and sync state.
func (m *ReplicasInfoManager) Group(brokerName string) (BrokerReplicaInfo, SyncStateInfo, bool) {
	if !m.contains(brokerName) {
		return BrokerReplicaInfo{}, SyncStateInfo{}, false
	}
	r, s := *m.replicas[brokerName], *m.syncState[brokerName]
	r.Brokers = maps.Clone(r.Brokers)
	s.SyncStateSet = slices.Clone(s.SyncStateSet)
	if s.MasterBrokerID != nil {
		id := *s.MasterBrokerID
		s.MasterBrokerID = &id
	}
	return r, s, true
}

// BrokerNames returns the known groups, sorted.
func (m *ReplicasInfoManager) BrokerNames() []string {
	return slices.Sorted(maps.Keys(m.syncState))
}

// Apply changes the state by one replicated event, as 5.x's applyEvent.
// Events that name an unknown group are ignored (5.x logs them).
func (m *ReplicasInfoManager) Apply(ev Event) {
	switch ev.Type {
	case EventAlterSyncStateSet:
		if m.contains(ev.BrokerName) {
			m.syncState[ev.BrokerName].setSyncStateSet(ev.NewSyncStateSet)
		}
	case EventApplyBrokerID:
		m.applyBrokerID(ev)
	case EventUpdateBrokerAddress:
		if r, ok := m.replicas[ev.BrokerName]; ok {
			if old, ok := r.Brokers[ev.BrokerID]; ok {
				r.Brokers[ev.BrokerID] = Replica{Address: ev.BrokerAddress, RegisterCheckCode: old.RegisterCheckCode}
			}
		}
	case EventElectMaster:
		if !m.contains(ev.BrokerName) {
			return
		}
		s := m.syncState[ev.BrokerName]
		if ev.NewMasterElected {
			id := ev.BrokerID
			s.setMaster(&id)
			s.setSyncStateSet([]int64{id})
		} else {
			// The old master is gone and nobody could take over: keep the
			// SyncStateSet, drop the master.
			s.setMaster(nil)
		}
	case EventCleanBrokerData:
		m.cleanBrokerData(ev)
	}
}

func (m *ReplicasInfoManager) applyBrokerID(ev Event) {
	r, ok := m.replicas[ev.BrokerName]
	if !ok || !m.contains(ev.BrokerName) {
		r = &BrokerReplicaInfo{ClusterName: ev.ClusterName, BrokerName: ev.BrokerName,
			NextAssignBrokerID: FirstBrokerID, Brokers: map[int64]Replica{}}
		m.replicas[ev.BrokerName] = r
		m.syncState[ev.BrokerName] = &SyncStateInfo{ClusterName: ev.ClusterName, BrokerName: ev.BrokerName, SyncStateSet: []int64{}}
	}
	if _, exists := r.Brokers[ev.BrokerID]; !exists {
		r.Brokers[ev.BrokerID] = Replica{Address: ev.BrokerAddress, RegisterCheckCode: ev.RegisterCheckCode}
		r.NextAssignBrokerID++
	}
}

func (m *ReplicasInfoManager) cleanBrokerData(ev Event) {
	if len(ev.BrokerIDsToClean) == 0 {
		delete(m.replicas, ev.BrokerName)
		delete(m.syncState, ev.BrokerName)
		return
	}
	if !m.contains(ev.BrokerName) {
		return
	}
	r, s := m.replicas[ev.BrokerName], m.syncState[ev.BrokerName]
	for _, id := range ev.BrokerIDsToClean {
		delete(r.Brokers, id)
		s.SyncStateSet = slices.DeleteFunc(s.SyncStateSet, func(x int64) bool { return x == id })
	}
	if len(r.Brokers) == 0 {
		delete(m.replicas, ev.BrokerName)
	}
	if len(s.SyncStateSet) == 0 {
		delete(m.syncState, ev.BrokerName)
	}
}

// snapshotV1 is the snapshot layout (JSON; map keys sorted by encoding/json,
// so equal states give equal bytes).
type snapshotV1 struct {
	Version   int                           `json:"version"`
	Replicas  map[string]*BrokerReplicaInfo `json:"replicaInfoTable"`
	SyncState map[string]*SyncStateInfo     `json:"syncStateSetInfoTable"`
}

// MarshalSnapshot returns the whole state as deterministic bytes.
func (m *ReplicasInfoManager) MarshalSnapshot() ([]byte, error) {
	return json.Marshal(snapshotV1{Version: 1, Replicas: m.replicas, SyncState: m.syncState})
}

// UnmarshalSnapshot replaces the state with one MarshalSnapshot wrote.
func (m *ReplicasInfoManager) UnmarshalSnapshot(data []byte) error {
	var s snapshotV1
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("controller: read snapshot: %w", err)
	}
	if s.Version != 1 {
		return fmt.Errorf("controller: snapshot version %d not supported", s.Version)
	}
	if s.Replicas == nil {
		s.Replicas = map[string]*BrokerReplicaInfo{}
	}
	if s.SyncState == nil {
		s.SyncState = map[string]*SyncStateInfo{}
	}
	for name, r := range s.Replicas {
		if r == nil {
			return fmt.Errorf("controller: snapshot: replicas of %q are null", name)
		}
		if r.Brokers == nil {
			r.Brokers = map[int64]Replica{}
		}
	}
	for name, st := range s.SyncState {
		if st == nil {
			return fmt.Errorf("controller: snapshot: sync state of %q is null", name)
		}
		st.SyncStateSet = normSet(st.SyncStateSet)
	}
	m.replicas, m.syncState = s.Replicas, s.SyncState
	return nil
}
