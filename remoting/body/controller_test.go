package body

import (
	"reflect"
	"testing"
)

// TestBodyControllerFastjsonBytes pins the controller bodies to the bytes
// fastjson writes for the 5.3.3 beans (alphabetical fields, nulls omitted,
// bare Long keys, HashSet order) and reads them back.
func TestBodyControllerFastjsonBytes(t *testing.T) {
	one := int64(1)
	t.Run("SyncStateSet", func(t *testing.T) {
		s := &SyncStateSet{SyncStateSet: []int64{3, 1, 2, 1}, SyncStateSetEpoch: 5}
		const want = `{"syncStateSet":[1,2,3],"syncStateSetEpoch":5}`
		if got := string(s.Encode()); got != want {
			t.Fatalf("got %s want %s", got, want)
		}
		back, err := DecodeSyncStateSet([]byte(want))
		if err != nil || !reflect.DeepEqual(back, &SyncStateSet{SyncStateSet: []int64{1, 2, 3}, SyncStateSetEpoch: 5}) {
			t.Fatalf("decode = %+v, %v", back, err)
		}
		if got := string((&SyncStateSet{}).Encode()); got != `{"syncStateSet":[],"syncStateSetEpoch":0}` {
			t.Fatalf("empty: %s", got)
		}
	})
	t.Run("ElectMasterResponseBody", func(t *testing.T) {
		b := &ElectMasterResponseBody{
			BrokerMemberGroup: &BrokerMemberGroup{Cluster: "DefaultCluster", BrokerName: "broker-a",
				BrokerAddrs: map[int64]string{2: "127.0.0.1:30921", 1: "127.0.0.1:30911"}},
			SyncStateSet: []int64{2},
		}
		const want = `{"brokerMemberGroup":{"brokerAddrs":{1:"127.0.0.1:30911",2:"127.0.0.1:30921"},"brokerName":"broker-a","cluster":"DefaultCluster"},"syncStateSet":[2]}`
		if got := string(b.Encode()); got != want {
			t.Fatalf("got %s want %s", got, want)
		}
		back, err := DecodeElectMasterResponseBody([]byte(want))
		if err != nil || !reflect.DeepEqual(back, b) {
			t.Fatalf("decode = %+v, %v", back, err)
		}
		if got := string((&ElectMasterResponseBody{SyncStateSet: []int64{1}}).Encode()); got != `{"syncStateSet":[1]}` {
			t.Fatalf("no group: %s", got)
		}
	})
	t.Run("BrokerReplicasInfo", func(t *testing.T) {
		b := &BrokerReplicasInfo{ReplicasInfoTable: map[string]*ReplicasInfo{"broker-a": {
			MasterBrokerID: &one, MasterAddress: "127.0.0.1:30911", MasterEpoch: 1, SyncStateSetEpoch: 2,
			InSyncReplicas:    []ReplicaIdentity{{BrokerName: "broker-a", BrokerID: 1, BrokerAddress: "127.0.0.1:30911", Alive: true}},
			NotInSyncReplicas: []ReplicaIdentity{{BrokerName: "broker-a", BrokerID: 2, BrokerAddress: "127.0.0.1:30921", Alive: false}},
		}}}
		const want = `{"replicasInfoTable":{"broker-a":{"inSyncReplicas":[{"alive":true,"brokerAddress":"127.0.0.1:30911","brokerId":1,"brokerName":"broker-a"}],"masterAddress":"127.0.0.1:30911","masterBrokerId":1,"masterEpoch":1,"notInSyncReplicas":[{"alive":false,"brokerAddress":"127.0.0.1:30921","brokerId":2,"brokerName":"broker-a"}],"syncStateSetEpoch":2}}}`
		if got := string(b.Encode()); got != want {
			t.Fatalf("got %s\nwant %s", got, want)
		}
		back, err := DecodeBrokerReplicasInfo([]byte(want))
		if err != nil || !reflect.DeepEqual(back, b) {
			t.Fatalf("decode = %+v, %v", back, err)
		}
	})
	t.Run("BrokerNameList", func(t *testing.T) {
		if got := string(EncodeBrokerNameList([]string{"broker-a", "broker-b"})); got != `["broker-a","broker-b"]` {
			t.Fatalf("got %s", got)
		}
		names, err := DecodeBrokerNameList([]byte(`["broker-a"]`))
		if err != nil || !reflect.DeepEqual(names, []string{"broker-a"}) {
			t.Fatalf("decode = %v, %v", names, err)
		}
	})
	t.Run("EpochEntryCache", func(t *testing.T) {
		c := &EpochEntryCache{ClusterName: "c", BrokerName: "b", BrokerID: 1, MaxOffset: 300,
			EpochList: []EpochEntry{{Epoch: 1, StartOffset: 0, EndOffset: 100}, {Epoch: 2, StartOffset: 100, EndOffset: 9223372036854775807}}}
		const want = `{"brokerId":1,"brokerName":"b","clusterName":"c","epochList":[{"endOffset":100,"epoch":1,"startOffset":0},{"endOffset":9223372036854775807,"epoch":2,"startOffset":100}],"maxOffset":300}`
		if got := string(c.Encode()); got != want {
			t.Fatalf("got %s want %s", got, want)
		}
		back, err := DecodeEpochEntryCache([]byte(want))
		if err != nil || !reflect.DeepEqual(back, c) {
			t.Fatalf("decode = %+v, %v", back, err)
		}
	})
}
