package controller

import (
	"strings"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/header"
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

// FuzzControllerRequests: any extFields and body given to the request
// methods (through the 5.x headers) yield an answer, never a panic, and
// applying the answer's events keeps the state loadable.
func FuzzControllerRequests(f *testing.F) {
	f.Add(uint8(0), "brokerName=b\nmasterBrokerId=1\nmasterEpoch=1", []byte(`{"syncStateSet":[1,2],"syncStateSetEpoch":1}`))
	f.Add(uint8(1), "brokerName=b\nbrokerId=-1\ndesignateElect=true", []byte(nil))
	f.Add(uint8(2), "clusterName=c\nbrokerName=b\nappliedBrokerId=1\nregisterCheckCode=x;1", []byte(nil))
	f.Add(uint8(3), "clusterName=c\nbrokerName=b\nbrokerId=1\nbrokerAddress=y:1", []byte(nil))
	f.Add(uint8(4), "clusterName=c\nbrokerName=b\nbrokerControllerIdsToClean=1;x", []byte(nil))
	f.Add(uint8(5), "brokerName=b", []byte(`["b","zz"]`))
	f.Fuzz(func(t *testing.T, kind uint8, ext string, data []byte) {
		m := NewReplicasInfoManager()
		m.Apply(Event{Type: EventApplyBrokerID, ClusterName: "c", BrokerName: "b", BrokerAddress: "x:1", BrokerID: 1, RegisterCheckCode: "x:1;1"})
		m.Apply(Event{Type: EventApplyBrokerID, ClusterName: "c", BrokerName: "b", BrokerAddress: "y:1", BrokerID: 2, RegisterCheckCode: "y:1;1"})
		m.Apply(Event{Type: EventElectMaster, BrokerName: "b", NewMasterElected: true, BrokerID: 1})
		fields := map[string]string{}
		for _, line := range strings.Split(ext, "\n") {
			k, v, _ := strings.Cut(line, "=")
			fields[k] = v
		}
		alive := func(_, _ string, id int64) bool { return id%2 == 1 }
		policy := ElectPolicy{Alive: alive}
		var r *Result
		switch kind % 6 {
		case 0:
			var h header.AlterSyncStateSetRequestHeader
			set, err := body.DecodeSyncStateSet(data)
			if h.FromExtFields(fields) != nil || err != nil {
				return
			}
			r = m.AlterSyncStateSet(&h, set, alive)
		case 1:
			var h header.ElectMasterRequestHeader
			if h.FromExtFields(fields) != nil {
				return
			}
			r = m.ElectMaster(&h, policy, len(data)%2 == 0)
		case 2:
			var h header.ApplyBrokerIdRequestHeader
			if h.FromExtFields(fields) != nil {
				return
			}
			r = m.ApplyBrokerID(&h)
		case 3:
			var h header.RegisterBrokerToControllerRequestHeader
			if h.FromExtFields(fields) != nil {
				return
			}
			r = m.RegisterBroker(&h, alive)
		case 4:
			var h header.CleanControllerBrokerDataRequestHeader
			if h.FromExtFields(fields) != nil {
				return
			}
			r = m.CleanBrokerData(&h, alive)
		case 5:
			names, err := body.DecodeBrokerNameList(data)
			if err != nil {
				return
			}
			r = m.GetSyncStateData(names, alive)
		}
		for _, ev := range r.Events {
			m.Apply(ev)
		}
		b, err := m.MarshalSnapshot()
		if err != nil {
			t.Fatal(err)
		}
		if err := NewReplicasInfoManager().UnmarshalSnapshot(b); err != nil {
			t.Fatalf("state after %d not loadable: %v\n%s", kind%6, err, b)
		}
	})
}
