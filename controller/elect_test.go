package controller

import (
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// TestControllerElectPolicy is the election policy table: live SyncStateSet
// members first (keeping a live old master), then the best by epoch,
// maxOffset, electionPriority (lower wins), id; replicas outside the set
// only with unclean election; a designated broker only if it is a live
// candidate.
func TestControllerElectPolicy(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	cases := []struct {
		name     string
		live     liveSet
		set, all []int64
		old, pre *int64
		want     *int64
	}{
		{"old master alive stays", liveSet{1: {}, 2: {MaxOffset: 9}}, []int64{1, 2}, nil, i64(1), nil, i64(1)},
		{"highest offset", liveSet{2: {Epoch: 1, MaxOffset: 10}, 3: {Epoch: 1, MaxOffset: 20}}, []int64{1, 2, 3}, nil, i64(1), nil, i64(3)},
		{"epoch beats offset", liveSet{2: {Epoch: 2, MaxOffset: 10}, 3: {Epoch: 1, MaxOffset: 20}}, []int64{1, 2, 3}, nil, i64(1), nil, i64(2)},
		{"priority breaks tie (lower wins)", liveSet{2: {MaxOffset: 5, ElectionPriority: 3}, 3: {MaxOffset: 5, ElectionPriority: 1}}, []int64{2, 3}, nil, nil, nil, i64(3)},
		{"id breaks full tie", liveSet{3: {}, 2: {}}, []int64{2, 3}, nil, nil, nil, i64(2)},
		{"dead set members are skipped", liveSet{3: {MaxOffset: 1}}, []int64{1, 2, 3}, nil, i64(1), nil, i64(3)},
		{"no live member, no unclean", liveSet{4: {MaxOffset: 99}}, []int64{1, 2}, nil, i64(1), nil, nil},
		{"unclean falls back to all replicas", liveSet{4: {MaxOffset: 99}, 5: {MaxOffset: 7}}, []int64{1, 2}, []int64{1, 2, 4, 5}, i64(1), nil, i64(4)},
		{"unclean still prefers the set", liveSet{2: {MaxOffset: 1}, 4: {MaxOffset: 99}}, []int64{1, 2}, []int64{1, 2, 4}, i64(1), nil, i64(2)},
		{"designated live member", liveSet{1: {}, 2: {}}, []int64{1, 2}, nil, i64(1), i64(2), i64(2)},
		{"designated old master", liveSet{1: {}, 2: {MaxOffset: 9}}, []int64{1, 2}, nil, i64(1), i64(1), i64(1)},
		{"designated but dead", liveSet{1: {}}, []int64{1, 2}, nil, i64(1), i64(2), nil},
		{"designated outside set, unclean", liveSet{1: {}, 3: {}}, []int64{1, 2}, []int64{1, 2, 3}, i64(1), i64(3), i64(3)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.live.policy().Elect("c", "b", tc.set, tc.all, tc.old, tc.pre)
			switch {
			case got == nil && tc.want == nil:
			case got == nil || tc.want == nil || *got != *tc.want:
				t.Fatalf("elect = %v, want %v", deref(got), deref(tc.want))
			}
		})
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestControllerElectMasterCodes: with no live SyncStateSet member the
// controller-triggered election replicates "no master" and answers
// CONTROLLER_MASTER_NOT_AVAILABLE; a broker-triggered one answers
// CONTROLLER_ELECT_MASTER_FAILED; enableElectUncleanMaster elects a live
// replica outside the set.
func TestControllerElectMasterCodes(t *testing.T) {
	d := &driver{t: t, fsm: NewFSM(nil)}
	d.register(1, "a1:1")
	d.register(2, "a2:1")
	live := liveSet{1: {}, 2: {}}
	d.run(code.Success, func(m *ReplicasInfoManager) *Result {
		return m.ElectMaster(&header.ElectMasterRequestHeader{BrokerName: "b", BrokerID: ptr(int64(1))}, live.policy(), false)
	})
	delete(live, 1) // master dies; 2 is alive but not in the set {1}
	d.run(code.ControllerElectMasterFailed, func(m *ReplicasInfoManager) *Result {
		return m.ElectMaster(&header.ElectMasterRequestHeader{BrokerName: "b", BrokerID: ptr(int64(2))}, live.policy(), false)
	})
	r := d.run(code.ControllerMasterNotAvailable, func(m *ReplicasInfoManager) *Result {
		return m.ElectMaster(&header.ElectMasterRequestHeader{BrokerName: "b"}, live.policy(), false)
	})
	if len(r.Events) != 1 || r.Events[0].NewMasterElected {
		t.Fatalf("events = %+v", r.Events)
	}
	if _, st := d.group(); st.MasterBrokerID != nil || st.MasterEpoch != 2 || len(st.SyncStateSet) != 1 {
		t.Fatalf("state after failed election: %+v", st)
	}
	r = d.run(code.Success, func(m *ReplicasInfoManager) *Result {
		return m.ElectMaster(&header.ElectMasterRequestHeader{BrokerName: "b"}, live.policy(), true)
	})
	if h := r.Header.(*header.ElectMasterResponseHeader); *h.MasterBrokerID != 2 || *h.MasterEpoch != 3 {
		t.Fatalf("unclean election = %+v", h)
	}
	d.run(code.ControllerBrokerNeedToBeRegistered, func(m *ReplicasInfoManager) *Result {
		return m.ElectMaster(&header.ElectMasterRequestHeader{BrokerName: "nope"}, live.policy(), true)
	})
}
