package controller

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// Result is the outcome of one controller request against the current state
// (5.x ControllerResult): the answer, and the events to replicate before
// the answer may be sent. Code 0 is SUCCESS.
type Result struct {
	Code   int32
	Remark string
	Header header.CommandCustomHeader
	Body   []byte
	Events []Event
}

func (r *Result) fail(c int32, format string, args ...any) *Result {
	r.Code, r.Remark = c, fmt.Sprintf(format, args...)
	return r
}

// The request methods below read the state only. alive is the liveness
// predicate of the heartbeat manager (not replicated: only the leader's
// answer counts, as in 5.x).

// AlterSyncStateSet validates a master's proposal to change the group's
// SyncStateSet (5.x ReplicasInfoManager.alterSyncStateSet): the set must
// differ, the proposer must be the master in the current master epoch, the
// set must replace the current set epoch, every member must be a live
// replica, and the master must stay in the set.
func (m *ReplicasInfoManager) AlterSyncStateSet(req *header.AlterSyncStateSetRequestHeader, set *body.SyncStateSet, alive AliveFunc) *Result {
	resp := &header.AlterSyncStateSetResponseHeader{}
	r := &Result{Header: resp}
	name := req.BrokerName
	if !m.contains(name) {
		return r.fail(code.ControllerAlterSyncStateSetFailed, "Broker metadata is not existed")
	}
	st, rep := m.syncState[name], m.replicas[name]
	newSet := normSet(set.SyncStateSet)
	if slices.Equal(newSet, st.SyncStateSet) {
		return r.fail(code.ControllerAlterSyncStateSetFailed, "The newSyncStateSet is equal with oldSyncStateSet, no needed to update syncStateSet")
	}
	if st.MasterBrokerID == nil || req.MasterBrokerID == nil || *st.MasterBrokerID != *req.MasterBrokerID {
		return r.fail(code.ControllerInvalidMaster, "Rejecting alter syncStateSet request because the current leader is:{%s}, not {%s}",
			fmtID(st.MasterBrokerID), fmtID(req.MasterBrokerID))
	}
	if req.MasterEpoch == nil || *req.MasterEpoch != st.MasterEpoch {
		return r.fail(code.ControllerFencedMasterEpoch, "Rejecting alter syncStateSet request because the current master epoch is:{%d}, not {%s}",
			st.MasterEpoch, fmtEpoch(req.MasterEpoch))
	}
	if set.SyncStateSetEpoch != st.SyncStateSetEpoch {
		return r.fail(code.ControllerFencedSyncStateSetEpoch, "Rejecting alter syncStateSet request because the current syncStateSet epoch is:{%d}, not {%d}",
			st.SyncStateSetEpoch, set.SyncStateSetEpoch)
	}
	for _, id := range newSet {
		if _, ok := rep.Brokers[id]; !ok {
			return r.fail(code.ControllerInvalidReplicas, "Rejecting alter syncStateSet request because the replicas {%d} don't exist", id)
		}
		if !alive(rep.ClusterName, name, id) {
			return r.fail(code.ControllerBrokerNotAlive, "Rejecting alter syncStateSet request because the replicas {%d} don't alive", id)
		}
	}
	if !slices.Contains(newSet, *st.MasterBrokerID) {
		return r.fail(code.ControllerAlterSyncStateSetFailed, "Rejecting alter syncStateSet request because the newSyncStateSet don't contains origin leader {%d}", *st.MasterBrokerID)
	}
	resp.NewSyncStateSetEpoch = st.SyncStateSetEpoch + 1
	r.Body = (&body.SyncStateSet{SyncStateSet: newSet, SyncStateSetEpoch: resp.NewSyncStateSetEpoch}).Encode()
	r.Events = []Event{{Type: EventAlterSyncStateSet, BrokerName: name, NewSyncStateSet: newSet}}
	return r
}

// ElectMaster elects a master for the group (5.x electMaster). The first
// election of a group takes the requesting broker's id; later ones go
// through the policy, which with enableElectUncleanMaster may fall back to
// replicas outside the SyncStateSet. A controller-triggered election that
// finds nobody (request brokerId -1/absent) still replicates "no master".
func (m *ReplicasInfoManager) ElectMaster(req *header.ElectMasterRequestHeader, policy ElectPolicy, unclean bool) *Result {
	resp := &header.ElectMasterResponseHeader{}
	r := &Result{Header: resp}
	name := req.BrokerName
	if !m.contains(name) {
		return r.fail(code.ControllerBrokerNeedToBeRegistered, "Broker hasn't been registered")
	}
	st, rep := m.syncState[name], m.replicas[name]
	reqID := int64(-1)
	if req.BrokerID != nil {
		reqID = *req.BrokerID
	}
	var newMaster *int64
	if _, known := rep.Brokers[reqID]; st.firstTimeForElect() && known {
		newMaster = ptr(reqID)
	}
	if newMaster == nil {
		var all []int64
		if unclean {
			all = rep.IDs()
		}
		var prefer *int64
		if req.DesignateElect {
			prefer = ptr(reqID)
		}
		newMaster = policy.Elect(rep.ClusterName, name, st.SyncStateSet, all, st.MasterBrokerID, prefer)
	}
	if newMaster != nil && st.MasterBrokerID != nil && *newMaster == *st.MasterBrokerID {
		resp.MasterBrokerID, resp.MasterAddress = ptr(*newMaster), rep.Address(*newMaster)
		resp.MasterEpoch, resp.SyncStateSetEpoch = ptr(st.MasterEpoch), ptr(st.SyncStateSetEpoch)
		r.Body = (&body.ElectMasterResponseBody{SyncStateSet: st.SyncStateSet}).Encode()
		return r.fail(code.ControllerMasterStillExist, "The old master %d is still alive, not need to elect new master for broker %s", *newMaster, name)
	}
	if newMaster != nil {
		resp.MasterBrokerID, resp.MasterAddress = ptr(*newMaster), rep.Address(*newMaster)
		resp.MasterEpoch, resp.SyncStateSetEpoch = ptr(st.MasterEpoch+1), ptr(st.SyncStateSetEpoch+1)
		r.Body = (&body.ElectMasterResponseBody{BrokerMemberGroup: memberGroup(rep), SyncStateSet: []int64{*newMaster}}).Encode()
		r.Events = []Event{{Type: EventElectMaster, BrokerName: name, NewMasterElected: true, BrokerID: *newMaster}}
		return r
	}
	if reqID == -1 {
		r.Events = []Event{{Type: EventElectMaster, BrokerName: name}}
		return r.fail(code.ControllerMasterNotAvailable, "Old master has down and failed to elect a new broker master")
	}
	return r.fail(code.ControllerElectMasterFailed, "Failed to elect a new master")
}

func memberGroup(rep *BrokerReplicaInfo) *body.BrokerMemberGroup {
	g := &body.BrokerMemberGroup{Cluster: rep.ClusterName, BrokerName: rep.BrokerName, BrokerAddrs: make(map[int64]string, len(rep.Brokers))}
	for id, b := range rep.Brokers {
		g.BrokerAddrs[id] = b.Address
	}
	return g
}

// GetNextBrokerID answers CONTROLLER_GET_NEXT_BROKER_ID.
func (m *ReplicasInfoManager) GetNextBrokerID(req *header.GetNextBrokerIdRequestHeader) *Result {
	next := FirstBrokerID
	if rep, ok := m.replicas[req.BrokerName]; ok {
		next = rep.NextAssignBrokerID
	}
	return &Result{Header: &header.GetNextBrokerIdResponseHeader{ClusterName: req.ClusterName, BrokerName: req.BrokerName, NextBrokerID: &next}}
}

// ApplyBrokerID lets a broker claim an id (5.x applyBrokerId): the first
// broker of an unknown group must claim FirstBrokerID; in a known group an
// unassigned id, or the id this broker (same registerCheckCode) holds.
func (m *ReplicasInfoManager) ApplyBrokerID(req *header.ApplyBrokerIdRequestHeader) *Result {
	r := &Result{Header: &header.ApplyBrokerIdResponseHeader{ClusterName: req.ClusterName, BrokerName: req.BrokerName}}
	if req.AppliedBrokerID == nil || req.RegisterCheckCode == "" {
		return r.fail(code.ControllerInvalidRequest, "appliedBrokerId and registerCheckCode are required")
	}
	id := *req.AppliedBrokerID
	addr, _, _ := strings.Cut(req.RegisterCheckCode, ";")
	ev := Event{Type: EventApplyBrokerID, ClusterName: req.ClusterName, BrokerName: req.BrokerName, BrokerAddress: addr,
		BrokerID: id, RegisterCheckCode: req.RegisterCheckCode}
	rep, ok := m.replicas[req.BrokerName]
	if !ok {
		if id != FirstBrokerID {
			return r.fail(code.ControllerBrokerIdInvalid, "Broker-set: %s hasn't been registered in controller, but broker try to apply brokerId: %d", req.BrokerName, id)
		}
		r.Events = []Event{ev}
		return r
	}
	if b, exists := rep.Brokers[id]; !exists || b.RegisterCheckCode == req.RegisterCheckCode {
		r.Events = []Event{ev}
		return r
	}
	return r.fail(code.ControllerBrokerIdInvalid, "Fail to apply brokerId: %d in broker-set: %s", id, req.BrokerName)
}

// RegisterBroker answers a broker that holds an id (5.x registerBroker):
// the live master if any and the SyncStateSet; a changed address is
// replicated.
func (m *ReplicasInfoManager) RegisterBroker(req *header.RegisterBrokerToControllerRequestHeader, alive AliveFunc) *Result {
	resp := &header.RegisterBrokerToControllerResponseHeader{ClusterName: req.ClusterName, BrokerName: req.BrokerName}
	r := &Result{Header: resp}
	name := req.BrokerName
	if !m.contains(name) {
		return r.fail(code.ControllerBrokerNeedToBeRegistered, "Broker-set: %s hasn't been registered in controller", name)
	}
	rep, st := m.replicas[name], m.syncState[name]
	if req.BrokerID == nil {
		return r.fail(code.ControllerBrokerNeedToBeRegistered, "BrokerId: null hasn't been registered in broker-set: %s", name)
	}
	id := *req.BrokerID
	if _, ok := rep.Brokers[id]; !ok {
		return r.fail(code.ControllerBrokerNeedToBeRegistered, "BrokerId: %d hasn't been registered in broker-set: %s", id, name)
	}
	if st.MasterBrokerID != nil && alive(req.ClusterName, name, *st.MasterBrokerID) {
		resp.MasterBrokerID, resp.MasterAddress = ptr(*st.MasterBrokerID), rep.Address(*st.MasterBrokerID)
		resp.MasterEpoch, resp.SyncStateSetEpoch = ptr(st.MasterEpoch), ptr(st.SyncStateSetEpoch)
	}
	r.Body = (&body.SyncStateSet{SyncStateSet: st.SyncStateSet, SyncStateSetEpoch: st.SyncStateSetEpoch}).Encode()
	if req.BrokerAddress != rep.Address(id) {
		r.Events = []Event{{Type: EventUpdateBrokerAddress, ClusterName: req.ClusterName, BrokerName: name,
			BrokerAddress: req.BrokerAddress, BrokerID: id}}
	}
	return r
}

// GetReplicaInfo answers CONTROLLER_GET_REPLICA_INFO.
func (m *ReplicasInfoManager) GetReplicaInfo(req *header.GetReplicaInfoRequestHeader) *Result {
	resp := &header.GetReplicaInfoResponseHeader{}
	r := &Result{Header: resp}
	if !m.contains(req.BrokerName) {
		return r.fail(code.ControllerBrokerMetadataNotExist, "Broker metadata is not existed")
	}
	rep, st := m.replicas[req.BrokerName], m.syncState[req.BrokerName]
	if st.MasterBrokerID != nil {
		resp.MasterBrokerID, resp.MasterAddress = ptr(*st.MasterBrokerID), rep.Address(*st.MasterBrokerID)
	}
	resp.MasterEpoch = ptr(st.MasterEpoch)
	r.Body = (&body.SyncStateSet{SyncStateSet: st.SyncStateSet, SyncStateSetEpoch: st.SyncStateSetEpoch}).Encode()
	return r
}

// GetSyncStateData answers CONTROLLER_GET_SYNC_STATE_DATA (mqadmin
// getSyncStateSet): every known group among names, replicas split by
// SyncStateSet membership, each with its liveness.
func (m *ReplicasInfoManager) GetSyncStateData(names []string, alive AliveFunc) *Result {
	info := &body.BrokerReplicasInfo{ReplicasInfoTable: map[string]*body.ReplicasInfo{}}
	for _, name := range names {
		if !m.contains(name) {
			continue
		}
		rep, st := m.replicas[name], m.syncState[name]
		ri := &body.ReplicasInfo{MasterEpoch: st.MasterEpoch, SyncStateSetEpoch: st.SyncStateSetEpoch,
			InSyncReplicas: []body.ReplicaIdentity{}, NotInSyncReplicas: []body.ReplicaIdentity{}}
		if st.MasterBrokerID != nil {
			ri.MasterBrokerID, ri.MasterAddress = ptr(*st.MasterBrokerID), rep.Address(*st.MasterBrokerID)
		}
		for _, id := range rep.IDs() {
			ident := body.ReplicaIdentity{BrokerName: name, BrokerID: id, BrokerAddress: rep.Address(id), Alive: alive(rep.ClusterName, name, id)}
			if st.inSync(id) {
				ri.InSyncReplicas = append(ri.InSyncReplicas, ident)
			} else {
				ri.NotInSyncReplicas = append(ri.NotInSyncReplicas, ident)
			}
		}
		info.ReplicasInfoTable[name] = ri
	}
	return &Result{Body: info.Encode()}
}

// CleanBrokerData validates CLEAN_BROKER_DATA (5.x cleanBrokerData): unless
// isCleanLivingBroker, a group with a master cannot be cleaned whole and
// live ids cannot be cleaned.
func (m *ReplicasInfoManager) CleanBrokerData(req *header.CleanControllerBrokerDataRequestHeader, alive AliveFunc) *Result {
	r := &Result{}
	name := req.BrokerName
	ids := strings.TrimSpace(req.BrokerControllerIdsToClean)
	var idSet []int64
	if ids != "" {
		for _, s := range strings.Split(ids, ";") {
			id, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return r.fail(code.ControllerInvalidCleanBrokerMetadata, "Please set the option <brokerControllerIdsToClean> according to the format, exception: %v", err)
			}
			idSet = append(idSet, id)
		}
	}
	if !req.IsCleanLivingBroker {
		if st, ok := m.syncState[name]; ok && ids == "" && st.MasterBrokerID != nil {
			return r.fail(code.ControllerInvalidCleanBrokerMetadata, "Broker %s is still alive, clean up failure", name)
		}
		for _, id := range idSet {
			if alive(req.ClusterName, name, id) {
				return r.fail(code.ControllerInvalidCleanBrokerMetadata, "Broker [%s,  %d] is still alive, clean up failure", name, id)
			}
		}
	}
	if !m.contains(name) {
		return r.fail(code.ControllerInvalidCleanBrokerMetadata, "Broker %s is not existed,clean broker data failure.", name)
	}
	r.Events = []Event{{Type: EventCleanBrokerData, BrokerName: name, BrokerIDsToClean: normSet(idSet)}}
	return r
}

// ScanNeedReelectBrokerSets returns the groups whose master is not alive
// while some replica is (5.x scanNeedReelectBrokerSets), sorted.
func (m *ReplicasInfoManager) ScanNeedReelectBrokerSets(alive AliveFunc) []string {
	var out []string
	for _, name := range m.BrokerNames() {
		st := m.syncState[name]
		if st.MasterBrokerID == nil || alive(st.ClusterName, name, *st.MasterBrokerID) {
			continue
		}
		rep, ok := m.replicas[name]
		if !ok {
			continue
		}
		if slices.ContainsFunc(rep.IDs(), func(id int64) bool { return alive(st.ClusterName, name, id) }) {
			out = append(out, name)
		}
	}
	return out
}

func fmtID(p *int64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatInt(*p, 10)
}

func fmtEpoch(p *int32) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(int(*p))
}
