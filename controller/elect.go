package controller

import (
	"cmp"
	"slices"
)

// BrokerLiveInfo is what a broker's last heartbeat reported (5.x
// BrokerLiveInfo, the fields election uses).
type BrokerLiveInfo struct {
	BrokerID         int64
	Epoch            int32
	MaxOffset        int64
	ConfirmOffset    int64
	ElectionPriority int32
}

// AliveFunc reports whether a broker is alive (heartbeat not expired).
type AliveFunc func(cluster, brokerName string, id int64) bool

// LiveInfoFunc returns a broker's last heartbeat data.
type LiveInfoFunc func(cluster, brokerName string, id int64) (BrokerLiveInfo, bool)

// ElectPolicy chooses a new master (5.x DefaultElectPolicy): among the live
// SyncStateSet members first and, only when unclean election is enabled
// (allReplicas non-nil), among all live replicas.
type ElectPolicy struct {
	Alive    AliveFunc
	LiveInfo LiveInfoFunc
}

// Elect returns the new master or nil. oldMaster stays if it is a live
// candidate and no other broker is preferred; a preferred broker (admin
// electMaster) is chosen only if it is a live candidate. Otherwise the best
// candidate wins: the highest epoch, then the highest maxOffset, then the
// lowest electionPriority value, then the lowest id.
func (p ElectPolicy) Elect(cluster, brokerName string, syncStateSet, allReplicas []int64, oldMaster, prefer *int64) *int64 {
	if syncStateSet != nil {
		if id := p.tryElect(cluster, brokerName, syncStateSet, oldMaster, prefer); id != nil {
			return id
		}
	}
	if allReplicas != nil {
		return p.tryElect(cluster, brokerName, allReplicas, oldMaster, prefer)
	}
	return nil
}

func (p ElectPolicy) tryElect(cluster, brokerName string, ids []int64, oldMaster, prefer *int64) *int64 {
	var live []int64
	for _, id := range ids {
		if p.Alive == nil || p.Alive(cluster, brokerName, id) {
			live = append(live, id)
		}
	}
	if len(live) == 0 {
		return nil
	}
	if oldMaster != nil && slices.Contains(live, *oldMaster) && (prefer == nil || *prefer == *oldMaster) {
		return ptr(*oldMaster)
	}
	if prefer != nil {
		if slices.Contains(live, *prefer) {
			return ptr(*prefer)
		}
		return nil
	}
	infos := make([]BrokerLiveInfo, 0, len(live))
	for _, id := range live {
		info := BrokerLiveInfo{BrokerID: id, Epoch: -1, MaxOffset: -1, ElectionPriority: 1<<31 - 1}
		if p.LiveInfo != nil {
			if li, ok := p.LiveInfo(cluster, brokerName, id); ok {
				info = li
				info.BrokerID = id
			}
		}
		infos = append(infos, info)
	}
	best := slices.MinFunc(infos, compareCandidates)
	return ptr(best.BrokerID)
}

// compareCandidates orders the better candidate first.
func compareCandidates(a, b BrokerLiveInfo) int {
	if c := cmp.Compare(b.Epoch, a.Epoch); c != 0 {
		return c
	}
	if c := cmp.Compare(b.MaxOffset, a.MaxOffset); c != 0 {
		return c
	}
	if c := cmp.Compare(a.ElectionPriority, b.ElectionPriority); c != 0 {
		return c
	}
	return cmp.Compare(a.BrokerID, b.BrokerID)
}

func ptr[T any](v T) *T { return &v }
