package controller

import (
	"bytes"
	"io"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// liveSet is a test liveness table keyed by broker id (one group).
type liveSet map[int64]BrokerLiveInfo

func (l liveSet) alive(_, _ string, id int64) bool { _, ok := l[id]; return ok }
func (l liveSet) info(_, _ string, id int64) (BrokerLiveInfo, bool) {
	i, ok := l[id]
	return i, ok
}
func (l liveSet) policy() ElectPolicy { return ElectPolicy{Alive: l.alive, LiveInfo: l.info} }

// driver plays the leader: runs a request against the state, checks its
// code and applies its events through the FSM as Raft would.
type driver struct {
	t     *testing.T
	fsm   *FSM
	index uint64
}

func (d *driver) run(want int32, req func(m *ReplicasInfoManager) *Result) *Result {
	d.t.Helper()
	var r *Result
	d.fsm.Read(func(m *ReplicasInfoManager) { r = req(m) })
	if r.Code != want {
		d.t.Fatalf("code = %d (%s), want %d", r.Code, r.Remark, want)
	}
	if len(r.Events) > 0 {
		data, err := EncodeEvents(r.Events)
		if err != nil {
			d.t.Fatal(err)
		}
		d.index++
		if res := d.fsm.Apply(&raft.Log{Index: d.index, Type: raft.LogCommand, Data: data}); res != nil {
			d.t.Fatalf("apply: %v", res)
		}
	}
	return r
}

func (d *driver) register(id int64, addr string) {
	d.t.Helper()
	d.run(code.Success, func(m *ReplicasInfoManager) *Result {
		return m.ApplyBrokerID(&header.ApplyBrokerIdRequestHeader{ClusterName: "c", BrokerName: "b", AppliedBrokerID: &id, RegisterCheckCode: addr + ";1"})
	})
}

func (d *driver) group() (BrokerReplicaInfo, SyncStateInfo) {
	var r BrokerReplicaInfo
	var s SyncStateInfo
	d.fsm.Read(func(m *ReplicasInfoManager) { r, s, _ = m.Group("b") })
	return r, s
}

// TestControllerFSMSequenceSnapshotRestore applies a realistic event
// sequence (ids assigned, first election, the set grows, the master dies
// and a set member takes over, a stale master is fenced, an id is cleaned)
// and checks the state after each step; then a snapshot restored into a
// fresh FSM yields the same bytes and the same answers.
func TestControllerFSMSequenceSnapshotRestore(t *testing.T) {
	d := &driver{t: t, fsm: NewFSM(nil)}
	live := liveSet{1: {Epoch: 1, MaxOffset: 100}, 2: {Epoch: 1, MaxOffset: 100}, 3: {Epoch: 1, MaxOffset: 50}}

	next := d.run(code.Success, func(m *ReplicasInfoManager) *Result {
		return m.GetNextBrokerID(&header.GetNextBrokerIdRequestHeader{ClusterName: "c", BrokerName: "b"})
	}).Header.(*header.GetNextBrokerIdResponseHeader).NextBrokerID
	if *next != 1 {
		t.Fatalf("next id of a new group = %d", *next)
	}
	// A group must start at id 1.
	d.run(code.ControllerBrokerIdInvalid, func(m *ReplicasInfoManager) *Result {
		return m.ApplyBrokerID(&header.ApplyBrokerIdRequestHeader{ClusterName: "c", BrokerName: "b", AppliedBrokerID: ptr(int64(2)), RegisterCheckCode: "x;1"})
	})
	d.register(1, "a1:1")
	d.register(2, "a2:1")
	d.register(3, "a3:1")
	// Id 2 is taken by another broker; the same broker may claim it again.
	d.run(code.ControllerBrokerIdInvalid, func(m *ReplicasInfoManager) *Result {
		return m.ApplyBrokerID(&header.ApplyBrokerIdRequestHeader{ClusterName: "c", BrokerName: "b", AppliedBrokerID: ptr(int64(2)), RegisterCheckCode: "other:1;1"})
	})
	d.register(2, "a2:1")
	if rep, _ := d.group(); rep.NextAssignBrokerID != 4 || len(rep.Brokers) != 3 {
		t.Fatalf("replicas = %+v", rep)
	}

	// First election: the requesting broker becomes master.
	el := d.run(code.Success, func(m *ReplicasInfoManager) *Result {
		return m.ElectMaster(&header.ElectMasterRequestHeader{ClusterName: "c", BrokerName: "b", BrokerID: ptr(int64(2))}, live.policy(), false)
	})
	if h := el.Header.(*header.ElectMasterResponseHeader); *h.MasterBrokerID != 2 || h.MasterAddress != "a2:1" || *h.MasterEpoch != 1 || *h.SyncStateSetEpoch != 1 {
		t.Fatalf("first election = %+v", h)
	}
	if want := `{"brokerMemberGroup":{"brokerAddrs":{1:"a1:1",2:"a2:1",3:"a3:1"},"brokerName":"b","cluster":"c"},"syncStateSet":[2]}`; string(el.Body) != want {
		t.Fatalf("elect body %s", el.Body)
	}
	// Another broker asking again: the master stays.
	d.run(code.ControllerMasterStillExist, func(m *ReplicasInfoManager) *Result {
		return m.ElectMaster(&header.ElectMasterRequestHeader{ClusterName: "c", BrokerName: "b", BrokerID: ptr(int64(1))}, live.policy(), false)
	})

	// The master grows the set with 1 and 3 (set epoch 1 → 2).
	alter := func(want int32, master int64, epoch int32, set []int64, setEpoch int32) {
		t.Helper()
		d.run(want, func(m *ReplicasInfoManager) *Result {
			return m.AlterSyncStateSet(&header.AlterSyncStateSetRequestHeader{BrokerName: "b", MasterBrokerID: &master, MasterEpoch: &epoch},
				&body.SyncStateSet{SyncStateSet: set, SyncStateSetEpoch: setEpoch}, live.alive)
		})
	}
	alter(code.Success, 2, 1, []int64{1, 2, 3}, 1)
	alter(code.ControllerFencedSyncStateSetEpoch, 2, 1, []int64{1, 2}, 1) // stale set epoch
	alter(code.ControllerInvalidMaster, 1, 1, []int64{1, 2}, 2)           // not the master
	alter(code.ControllerFencedMasterEpoch, 2, 0, []int64{1, 2}, 2)       // stale master epoch
	alter(code.ControllerInvalidReplicas, 2, 1, []int64{2, 9}, 2)         // unknown replica
	alter(code.ControllerAlterSyncStateSetFailed, 2, 1, []int64{1, 3}, 2) // drops the master
	alter(code.ControllerAlterSyncStateSetFailed, 2, 1, []int64{3, 2, 1}, 2)
	if _, st := d.group(); st.SyncStateSetEpoch != 2 || len(st.SyncStateSet) != 3 {
		t.Fatalf("sync state = %+v", st)
	}

	// Master 2 dies: the controller finds the group, elects the best live
	// set member (1: same epoch as 3, higher offset).
	delete(live, 2)
	var need []string
	d.fsm.Read(func(m *ReplicasInfoManager) { need = m.ScanNeedReelectBrokerSets(live.alive) })
	if len(need) != 1 || need[0] != "b" {
		t.Fatalf("need reelect = %v", need)
	}
	el = d.run(code.Success, func(m *ReplicasInfoManager) *Result {
		return m.ElectMaster(&header.ElectMasterRequestHeader{BrokerName: "b"}, live.policy(), false)
	})
	if h := el.Header.(*header.ElectMasterResponseHeader); *h.MasterBrokerID != 1 || *h.MasterEpoch != 2 || *h.SyncStateSetEpoch != 3 {
		t.Fatalf("failover election = %+v", h)
	}
	// The old master, back with its old epoch, is fenced.
	live[2] = BrokerLiveInfo{Epoch: 1, MaxOffset: 120}
	alter(code.ControllerInvalidMaster, 2, 1, []int64{1, 2}, 3)
	alter(code.ControllerFencedMasterEpoch, 1, 1, []int64{1, 2}, 3)
	alter(code.Success, 1, 2, []int64{1, 2}, 3)

	// Id 3 is gone for good: clean it.
	d.run(code.ControllerInvalidCleanBrokerMetadata, func(m *ReplicasInfoManager) *Result {
		return m.CleanBrokerData(&header.CleanControllerBrokerDataRequestHeader{ClusterName: "c", BrokerName: "b", BrokerControllerIdsToClean: "2"}, live.alive)
	})
	delete(live, 3)
	d.run(code.Success, func(m *ReplicasInfoManager) *Result {
		return m.CleanBrokerData(&header.CleanControllerBrokerDataRequestHeader{ClusterName: "c", BrokerName: "b", BrokerControllerIdsToClean: "3"}, live.alive)
	})
	rep, st := d.group()
	if len(rep.Brokers) != 2 || rep.NextAssignBrokerID != 4 || *st.MasterBrokerID != 1 || st.MasterEpoch != 2 || st.SyncStateSetEpoch != 4 {
		t.Fatalf("final state: %+v %+v", rep, st)
	}

	// Snapshot, restore into a fresh FSM, compare bytes and answers.
	snap, err := d.fsm.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	fresh := NewFSM(nil)
	if err := fresh.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	var a, b []byte
	d.fsm.Read(func(m *ReplicasInfoManager) { a, _ = m.MarshalSnapshot() })
	fresh.Read(func(m *ReplicasInfoManager) { b, _ = m.MarshalSnapshot() })
	if !bytes.Equal(a, b) || !bytes.Equal(a, sink.Bytes()) {
		t.Fatalf("restored state differs:\n%s\n%s", a, b)
	}
	var ra, rb *Result
	d.fsm.Read(func(m *ReplicasInfoManager) { ra = m.GetSyncStateData([]string{"b"}, live.alive) })
	fresh.Read(func(m *ReplicasInfoManager) { rb = m.GetSyncStateData([]string{"b"}, live.alive) })
	if !bytes.Equal(ra.Body, rb.Body) {
		t.Fatalf("answers differ after restore:\n%s\n%s", ra.Body, rb.Body)
	}
	const want = `{"replicasInfoTable":{"b":{"inSyncReplicas":[{"alive":true,"brokerAddress":"a1:1","brokerId":1,"brokerName":"b"},{"alive":true,"brokerAddress":"a2:1","brokerId":2,"brokerName":"b"}],"masterAddress":"a1:1","masterBrokerId":1,"masterEpoch":2,"notInSyncReplicas":[],"syncStateSetEpoch":4}}}`
	if string(ra.Body) != want {
		t.Fatalf("sync state data:\n%s\nwant\n%s", ra.Body, want)
	}
}

// TestControllerFSMDeterministic: two FSMs fed the same log reach
// byte-identical snapshots; a bad entry is skipped without changing state.
func TestControllerFSMDeterministic(t *testing.T) {
	log := [][]Event{
		{{Type: EventApplyBrokerID, ClusterName: "c", BrokerName: "b", BrokerAddress: "x:1", BrokerID: 1, RegisterCheckCode: "x:1;1"}},
		{{Type: EventApplyBrokerID, ClusterName: "c", BrokerName: "b", BrokerAddress: "y:1", BrokerID: 2, RegisterCheckCode: "y:1;1"},
			{Type: EventApplyBrokerID, ClusterName: "c", BrokerName: "a", BrokerAddress: "z:1", BrokerID: 1, RegisterCheckCode: "z:1;1"}},
		{{Type: EventElectMaster, BrokerName: "b", NewMasterElected: true, BrokerID: 1}},
		{{Type: EventAlterSyncStateSet, BrokerName: "b", NewSyncStateSet: []int64{2, 1}}},
		{{Type: EventUpdateBrokerAddress, BrokerName: "b", BrokerID: 2, BrokerAddress: "y:2"}},
		{{Type: EventElectMaster, BrokerName: "b"}},
		{{Type: EventElectMaster, BrokerName: "unknown", NewMasterElected: true, BrokerID: 1}},
	}
	snap := func() []byte {
		f := NewFSM(nil)
		for i, evs := range log {
			data, err := EncodeEvents(evs)
			if err != nil {
				t.Fatal(err)
			}
			f.Apply(&raft.Log{Index: uint64(i + 1), Type: raft.LogCommand, Data: data})
		}
		if f.Apply(&raft.Log{Index: 99, Type: raft.LogCommand, Data: []byte("garbage")}) == nil {
			t.Fatal("garbage entry accepted")
		}
		var b []byte
		f.Read(func(m *ReplicasInfoManager) { b, _ = m.MarshalSnapshot() })
		return b
	}
	a, b := snap(), snap()
	if !bytes.Equal(a, b) {
		t.Fatalf("not deterministic:\n%s\n%s", a, b)
	}
	const want = `{"version":1,"replicaInfoTable":{"a":{"clusterName":"c","brokerName":"a","nextAssignBrokerId":2,"brokers":{"1":{"address":"z:1","registerCheckCode":"z:1;1"}}},"b":{"clusterName":"c","brokerName":"b","nextAssignBrokerId":3,"brokers":{"1":{"address":"x:1","registerCheckCode":"x:1;1"},"2":{"address":"y:2","registerCheckCode":"y:1;1"}}}},"syncStateSetInfoTable":{"a":{"clusterName":"c","brokerName":"a","masterEpoch":0,"syncStateSetEpoch":0,"syncStateSet":[]},"b":{"clusterName":"c","brokerName":"b","masterEpoch":2,"syncStateSetEpoch":2,"syncStateSet":[1,2]}}}`
	if string(a) != want {
		t.Fatalf("snapshot:\n%s\nwant\n%s", a, want)
	}
}

type memSink struct{ bytes.Buffer }

func (s *memSink) ID() string    { return "mem" }
func (s *memSink) Cancel() error { return nil }
func (s *memSink) Close() error  { return nil }
