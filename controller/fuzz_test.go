package controller

import (
	"testing"

	"github.com/hashicorp/raft"
)

// FuzzControllerApplyLogEntry: no log entry or snapshot, however broken,
// makes the state machine panic, and a state that loads re-encodes to bytes
// that load to the same state.
func FuzzControllerApplyLogEntry(f *testing.F) {
	good, _ := EncodeEvents([]Event{
		{Type: EventApplyBrokerID, ClusterName: "c", BrokerName: "b", BrokerAddress: "x:1", BrokerID: 1, RegisterCheckCode: "x:1;1"},
		{Type: EventElectMaster, BrokerName: "b", NewMasterElected: true, BrokerID: 1},
		{Type: EventAlterSyncStateSet, BrokerName: "b", NewSyncStateSet: []int64{1, 2}},
		{Type: EventCleanBrokerData, BrokerName: "b", BrokerIDsToClean: []int64{2}},
	})
	f.Add(good)
	f.Add([]byte{1, '[', ']'})
	f.Add([]byte{1, 'n', 'u', 'l', 'l'})
	f.Add([]byte(`{"version":1,"replicaInfoTable":{"b":null},"syncStateSetInfoTable":{"b":{"masterBrokerId":1}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsm := NewFSM(nil)
		fsm.Apply(&raft.Log{Index: 1, Type: raft.LogCommand, Data: data})
		m := NewReplicasInfoManager()
		if err := m.UnmarshalSnapshot(data); err != nil {
			return
		}
		for _, n := range m.BrokerNames() {
			m.Group(n)
		}
		m.ScanNeedReelectBrokerSets(func(string, string, int64) bool { return false })
		m.GetSyncStateData(m.BrokerNames(), func(string, string, int64) bool { return true })
		b1, err := m.MarshalSnapshot()
		if err != nil {
			t.Fatal(err)
		}
		m2 := NewReplicasInfoManager()
		if err := m2.UnmarshalSnapshot(b1); err != nil {
			t.Fatal(err)
		}
		if b2, _ := m2.MarshalSnapshot(); string(b1) != string(b2) {
			t.Fatalf("snapshot not stable:\n%s\n%s", b1, b2)
		}
	})
}
