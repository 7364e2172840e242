package header

import (
	"maps"
	"reflect"
	"testing"

	"github.com/rocketmq-go/rmq/remoting/code"
)

// TestHeaderControllerJavaKeys holds every controller header to the extFields
// a 5.3.3 Java peer writes and reads (field names of the Java classes, with
// "is" kept on the boolean fields), both ways.
func TestHeaderControllerJavaKeys(t *testing.T) {
	cases := []struct {
		name string
		h    CommandCustomHeader
		ext  map[string]string
	}{
		{"AlterSyncStateSetRequestHeader", &AlterSyncStateSetRequestHeader{BrokerName: "broker-a", MasterBrokerID: Int64(1), MasterEpoch: Int32(3), InvokeTime: 1700000000000},
			map[string]string{"brokerName": "broker-a", "masterBrokerId": "1", "masterEpoch": "3", "invokeTime": "1700000000000"}},
		{"AlterSyncStateSetResponseHeader", &AlterSyncStateSetResponseHeader{NewSyncStateSetEpoch: 4},
			map[string]string{"newSyncStateSetEpoch": "4"}},
		{"ElectMasterRequestHeader", &ElectMasterRequestHeader{ClusterName: "DefaultCluster", BrokerName: "broker-a", BrokerID: Int64(2), DesignateElect: true, InvokeTime: Int64(5)},
			map[string]string{"clusterName": "DefaultCluster", "brokerName": "broker-a", "brokerId": "2", "designateElect": "true", "invokeTime": "5"}},
		{"ElectMasterResponseHeader", &ElectMasterResponseHeader{MasterBrokerID: Int64(2), MasterAddress: "127.0.0.1:30911", MasterEpoch: Int32(2), SyncStateSetEpoch: Int32(3)},
			map[string]string{"masterBrokerId": "2", "masterAddress": "127.0.0.1:30911", "masterEpoch": "2", "syncStateSetEpoch": "3"}},
		{"RegisterBrokerToControllerRequestHeader", &RegisterBrokerToControllerRequestHeader{ClusterName: "c", BrokerName: "b", BrokerID: Int64(1), BrokerAddress: "127.0.0.1:30911", InvokeTime: 9},
			map[string]string{"clusterName": "c", "brokerName": "b", "brokerId": "1", "brokerAddress": "127.0.0.1:30911", "invokeTime": "9"}},
		{"RegisterBrokerToControllerResponseHeader", &RegisterBrokerToControllerResponseHeader{ClusterName: "c", BrokerName: "b", MasterBrokerID: Int64(1), MasterAddress: "a:1", MasterEpoch: Int32(1), SyncStateSetEpoch: Int32(2)},
			map[string]string{"clusterName": "c", "brokerName": "b", "masterBrokerId": "1", "masterAddress": "a:1", "masterEpoch": "1", "syncStateSetEpoch": "2"}},
		{"RegisterBrokerToControllerResponseHeader/noMaster", &RegisterBrokerToControllerResponseHeader{ClusterName: "c", BrokerName: "b"},
			map[string]string{"clusterName": "c", "brokerName": "b"}},
		{"GetReplicaInfoRequestHeader", &GetReplicaInfoRequestHeader{BrokerName: "b"}, map[string]string{"brokerName": "b"}},
		{"GetReplicaInfoResponseHeader", &GetReplicaInfoResponseHeader{MasterBrokerID: Int64(1), MasterAddress: "a:1", MasterEpoch: Int32(7)},
			map[string]string{"masterBrokerId": "1", "masterAddress": "a:1", "masterEpoch": "7"}},
		{"GetMetaDataResponseHeader", &GetMetaDataResponseHeader{Group: "group1", ControllerLeaderID: "n0", ControllerLeaderAddress: "127.0.0.1:9878", IsLeader: true, Peers: "n0:127.0.0.1:9878;"},
			map[string]string{"group": "group1", "controllerLeaderId": "n0", "controllerLeaderAddress": "127.0.0.1:9878", "isLeader": "true", "peers": "n0:127.0.0.1:9878;"}},
		{"NotifyBrokerRoleChangedRequestHeader", &NotifyBrokerRoleChangedRequestHeader{MasterAddress: "a:1", MasterEpoch: Int32(2), SyncStateSetEpoch: Int32(2), MasterBrokerID: Int64(3)},
			map[string]string{"masterAddress": "a:1", "masterEpoch": "2", "syncStateSetEpoch": "2", "masterBrokerId": "3"}},
		{"CleanControllerBrokerDataRequestHeader", &CleanControllerBrokerDataRequestHeader{ClusterName: "c", BrokerName: "b", BrokerControllerIdsToClean: "1;2", IsCleanLivingBroker: true, InvokeTime: 4},
			map[string]string{"clusterName": "c", "brokerName": "b", "brokerControllerIdsToClean": "1;2", "isCleanLivingBroker": "true", "invokeTime": "4"}},
		{"GetNextBrokerIdRequestHeader", &GetNextBrokerIdRequestHeader{ClusterName: "c", BrokerName: "b"}, map[string]string{"clusterName": "c", "brokerName": "b"}},
		{"GetNextBrokerIdResponseHeader", &GetNextBrokerIdResponseHeader{ClusterName: "c", BrokerName: "b", NextBrokerID: Int64(4)},
			map[string]string{"clusterName": "c", "brokerName": "b", "nextBrokerId": "4"}},
		{"ApplyBrokerIdRequestHeader", &ApplyBrokerIdRequestHeader{ClusterName: "c", BrokerName: "b", AppliedBrokerID: Int64(2), RegisterCheckCode: "127.0.0.1:30911;1700000000000"},
			map[string]string{"clusterName": "c", "brokerName": "b", "appliedBrokerId": "2", "registerCheckCode": "127.0.0.1:30911;1700000000000"}},
		{"ApplyBrokerIdResponseHeader", &ApplyBrokerIdResponseHeader{ClusterName: "c", BrokerName: "b"}, map[string]string{"clusterName": "c", "brokerName": "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.h.ToExtFields(); !maps.Equal(got, tc.ext) {
				t.Fatalf("ToExtFields = %v, want %v", got, tc.ext)
			}
			back := reflect.New(reflect.TypeOf(tc.h).Elem()).Interface().(CommandCustomHeader)
			if err := back.FromExtFields(tc.ext); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.h) {
				t.Fatalf("FromExtFields = %+v, want %+v", back, tc.h)
			}
		})
	}
}

// TestHeaderControllerRegistry checks that the controller request codes map
// to their 5.x header classes.
func TestHeaderControllerRegistry(t *testing.T) {
	want := map[int32]any{
		code.ControllerAlterSyncStateSet: &AlterSyncStateSetRequestHeader{},
		code.ControllerElectMaster:       &ElectMasterRequestHeader{},
		code.ControllerRegisterBroker:    &RegisterBrokerToControllerRequestHeader{},
		code.ControllerGetReplicaInfo:    &GetReplicaInfoRequestHeader{},
		code.NotifyBrokerRoleChanged:     &NotifyBrokerRoleChangedRequestHeader{},
		code.CleanBrokerData:             &CleanControllerBrokerDataRequestHeader{},
		code.ControllerGetNextBrokerId:   &GetNextBrokerIdRequestHeader{},
		code.ControllerApplyBrokerId:     &ApplyBrokerIdRequestHeader{},
		code.BrokerHeartbeat:             &BrokerHeartbeatRequestHeader{},
	}
	for c, h := range want {
		if got := NewRequestHeader(c); reflect.TypeOf(got) != reflect.TypeOf(h) {
			t.Errorf("NewRequestHeader(%d) = %T, want %T", c, got, h)
		}
	}
	if NewRequestHeader(code.ControllerGetMetadataInfo) != nil {
		t.Error("GET_METADATA_INFO carries no request header in 5.x")
	}
}

// TestHeaderElectMasterMissingBrokerName: brokerName is @CFNotNull in 5.x.
func TestHeaderElectMasterMissingBrokerName(t *testing.T) {
	var h ElectMasterRequestHeader
	err := h.FromExtFields(map[string]string{"clusterName": "c"})
	if err == nil || err.Error() != "the custom field <brokerName> is null" {
		t.Fatalf("err = %v", err)
	}
}

// The generic header tests (round trip, required fields, registry coverage)
// cover the controller headers too.
func init() {
	allHeaders = append(allHeaders,
		&AlterSyncStateSetRequestHeader{}, &AlterSyncStateSetResponseHeader{},
		&ElectMasterRequestHeader{}, &ElectMasterResponseHeader{},
		&RegisterBrokerToControllerRequestHeader{}, &RegisterBrokerToControllerResponseHeader{},
		&GetReplicaInfoRequestHeader{}, &GetReplicaInfoResponseHeader{},
		&GetMetaDataResponseHeader{}, &NotifyBrokerRoleChangedRequestHeader{},
		&CleanControllerBrokerDataRequestHeader{},
		&GetNextBrokerIdRequestHeader{}, &GetNextBrokerIdResponseHeader{},
		&ApplyBrokerIdRequestHeader{}, &ApplyBrokerIdResponseHeader{},
	)
}

// TestHeaderElectMasterRequiredFields: clusterName, brokerId and
// designateElect are @CFNotNull in 5.x too, so a request without one is
// refused as Java refuses it, and an empty clusterName is still written
// (a 5.x controller refuses a request without the key).
func TestHeaderElectMasterRequiredFields(t *testing.T) {
	full := map[string]string{"clusterName": "c", "brokerName": "b", "brokerId": "-1", "designateElect": "false"}
	for _, key := range []string{"clusterName", "brokerId", "designateElect"} {
		ext := maps.Clone(full)
		delete(ext, key)
		var h ElectMasterRequestHeader
		if err := h.FromExtFields(ext); err == nil || err.Error() != "the custom field <"+key+"> is null" {
			t.Errorf("without %s: err = %v", key, err)
		}
	}
	var h ElectMasterRequestHeader
	if err := h.FromExtFields(full); err != nil {
		t.Fatal(err)
	}
	ext := (&ElectMasterRequestHeader{BrokerName: "b", BrokerID: Int64(-1)}).ToExtFields()
	if v, ok := ext["clusterName"]; !ok || v != "" {
		t.Errorf("empty clusterName not written: %v", ext)
	}
}
