package header

import "github.com/rocketmq-go/rmq/remoting/code"

// Controller request and response headers (5.x controller mode). They mirror
// the Java classes in org.apache.rocketmq.remoting.protocol.header.controller
// (and its register/ and admin/ subpackages) plus
// NotifyBrokerRoleChangedRequestHeader, as of rocketmq-all-5.3.3. Keys are the
// Java field names: Java's reflective header codec writes field names, so the
// boolean fields keep their "is" prefix on the wire (isLeader,
// isCleanLivingBroker). Java's boxed Long/Integer fields are pointers here
// (nil = null, not written); its primitive long/int/boolean fields are plain
// values and always written.

// AlterSyncStateSetRequestHeader is CONTROLLER_ALTER_SYNC_STATE_SET (1001).
// The body is a SyncStateSet (the proposed set and the epoch it replaces).
type AlterSyncStateSetRequestHeader struct {
	BrokerName     string `ext:"brokerName"`
	MasterBrokerID *int64 `ext:"masterBrokerId"`
	MasterEpoch    *int32 `ext:"masterEpoch"`
	InvokeTime     int64  `ext:"invokeTime"`
}

// AlterSyncStateSetResponseHeader answers CONTROLLER_ALTER_SYNC_STATE_SET.
type AlterSyncStateSetResponseHeader struct {
	NewSyncStateSetEpoch int32 `ext:"newSyncStateSetEpoch"`
}

// ElectMasterRequestHeader is CONTROLLER_ELECT_MASTER (1002). A broker
// triggers it with its own id (taken as the first master of a new group); an
// admin triggers it with DesignateElect=true to force that id; the
// controller triggers it itself with BrokerID -1 (or absent) when a master
// goes inactive.
//
// clusterName, brokerName, brokerId and designateElect are @CFNotNull in
// 5.x: a request without one of them is refused, and clusterName is written
// even when empty, as Java writes its "" default.
type ElectMasterRequestHeader struct {
	ClusterName string `ext:"clusterName,required"`
	BrokerName  string `ext:"brokerName,required"`
	// BrokerID is Java's Long brokerId (default -1L); nil (only in a
	// request the controller builds itself) reads as -1.
	BrokerID       *int64 `ext:"brokerId,required"`
	DesignateElect bool   `ext:"designateElect,required"`
	InvokeTime     *int64 `ext:"invokeTime"`
}

// ElectMasterResponseHeader answers CONTROLLER_ELECT_MASTER; the body is an
// ElectMasterResponseBody.
type ElectMasterResponseHeader struct {
	MasterBrokerID    *int64 `ext:"masterBrokerId"`
	MasterAddress     string `ext:"masterAddress"`
	MasterEpoch       *int32 `ext:"masterEpoch"`
	SyncStateSetEpoch *int32 `ext:"syncStateSetEpoch"`
}

// RegisterBrokerToControllerRequestHeader is CONTROLLER_REGISTER_BROKER (1003),
// sent by a broker once it holds an id.
type RegisterBrokerToControllerRequestHeader struct {
	ClusterName   string `ext:"clusterName"`
	BrokerName    string `ext:"brokerName"`
	BrokerID      *int64 `ext:"brokerId"`
	BrokerAddress string `ext:"brokerAddress"`
	InvokeTime    int64  `ext:"invokeTime"`
}

// RegisterBrokerToControllerResponseHeader answers CONTROLLER_REGISTER_BROKER;
// the master fields are null when the group has no live master. The body is
// the group's SyncStateSet.
type RegisterBrokerToControllerResponseHeader struct {
	ClusterName       string `ext:"clusterName"`
	BrokerName        string `ext:"brokerName"`
	MasterBrokerID    *int64 `ext:"masterBrokerId"`
	MasterAddress     string `ext:"masterAddress"`
	MasterEpoch       *int32 `ext:"masterEpoch"`
	SyncStateSetEpoch *int32 `ext:"syncStateSetEpoch"`
}

// GetReplicaInfoRequestHeader is CONTROLLER_GET_REPLICA_INFO (1004).
type GetReplicaInfoRequestHeader struct {
	BrokerName string `ext:"brokerName"`
}

// GetReplicaInfoResponseHeader answers CONTROLLER_GET_REPLICA_INFO; the body
// is the group's SyncStateSet.
type GetReplicaInfoResponseHeader struct {
	MasterBrokerID *int64 `ext:"masterBrokerId"`
	MasterAddress  string `ext:"masterAddress"`
	MasterEpoch    *int32 `ext:"masterEpoch"`
}

// GetMetaDataResponseHeader answers CONTROLLER_GET_METADATA_INFO (1005),
// which carries no request header. Peers is "id:host:port;" per peer.
type GetMetaDataResponseHeader struct {
	Group                   string `ext:"group"`
	ControllerLeaderID      string `ext:"controllerLeaderId"`
	ControllerLeaderAddress string `ext:"controllerLeaderAddress"`
	IsLeader                bool   `ext:"isLeader"`
	Peers                   string `ext:"peers"`
}

// NotifyBrokerRoleChangedRequestHeader is NOTIFY_BROKER_ROLE_CHANGED (1008),
// sent oneway by the controller to each live broker of a group after an
// election; the body is the new SyncStateSet.
type NotifyBrokerRoleChangedRequestHeader struct {
	MasterAddress     string `ext:"masterAddress"`
	MasterEpoch       *int32 `ext:"masterEpoch"`
	SyncStateSetEpoch *int32 `ext:"syncStateSetEpoch"`
	MasterBrokerID    *int64 `ext:"masterBrokerId"`
}

// CleanControllerBrokerDataRequestHeader is CLEAN_BROKER_DATA (1011).
// BrokerControllerIdsToClean is "1;2;3" (empty = the whole group).
type CleanControllerBrokerDataRequestHeader struct {
	ClusterName                string `ext:"clusterName"`
	BrokerName                 string `ext:"brokerName,required"`
	BrokerControllerIdsToClean string `ext:"brokerControllerIdsToClean"`
	IsCleanLivingBroker        bool   `ext:"isCleanLivingBroker"`
	InvokeTime                 int64  `ext:"invokeTime"`
}

// GetNextBrokerIdRequestHeader is CONTROLLER_GET_NEXT_BROKER_ID (1012).
type GetNextBrokerIdRequestHeader struct {
	ClusterName string `ext:"clusterName"`
	BrokerName  string `ext:"brokerName"`
}

// GetNextBrokerIdResponseHeader answers CONTROLLER_GET_NEXT_BROKER_ID.
type GetNextBrokerIdResponseHeader struct {
	ClusterName  string `ext:"clusterName"`
	BrokerName   string `ext:"brokerName"`
	NextBrokerID *int64 `ext:"nextBrokerId"`
}

// ApplyBrokerIdRequestHeader is CONTROLLER_APPLY_BROKER_ID (1013).
// RegisterCheckCode is "<brokerAddress>;<timestamp>": the controller keeps it
// so the same broker may apply for its id again.
type ApplyBrokerIdRequestHeader struct {
	ClusterName       string `ext:"clusterName"`
	BrokerName        string `ext:"brokerName"`
	AppliedBrokerID   *int64 `ext:"appliedBrokerId"`
	RegisterCheckCode string `ext:"registerCheckCode"`
}

// ApplyBrokerIdResponseHeader answers CONTROLLER_APPLY_BROKER_ID.
type ApplyBrokerIdResponseHeader struct {
	ClusterName string `ext:"clusterName"`
	BrokerName  string `ext:"brokerName"`
}

func init() {
	for c, f := range map[int32]func() CommandCustomHeader{
		code.ControllerAlterSyncStateSet: func() CommandCustomHeader { return new(AlterSyncStateSetRequestHeader) },
		code.ControllerElectMaster:       func() CommandCustomHeader { return new(ElectMasterRequestHeader) },
		code.ControllerRegisterBroker:    func() CommandCustomHeader { return new(RegisterBrokerToControllerRequestHeader) },
		code.ControllerGetReplicaInfo:    func() CommandCustomHeader { return new(GetReplicaInfoRequestHeader) },
		code.NotifyBrokerRoleChanged:     func() CommandCustomHeader { return new(NotifyBrokerRoleChangedRequestHeader) },
		code.CleanBrokerData:             func() CommandCustomHeader { return new(CleanControllerBrokerDataRequestHeader) },
		code.ControllerGetNextBrokerId:   func() CommandCustomHeader { return new(GetNextBrokerIdRequestHeader) },
		code.ControllerApplyBrokerId:     func() CommandCustomHeader { return new(ApplyBrokerIdRequestHeader) },
	} {
		requestHeaders[c] = f
	}
}

// ToExtFields implements CommandCustomHeader.
func (h *AlterSyncStateSetRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *AlterSyncStateSetRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *AlterSyncStateSetResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *AlterSyncStateSetResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *ElectMasterRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ElectMasterRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *ElectMasterResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ElectMasterResponseHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *RegisterBrokerToControllerRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *RegisterBrokerToControllerRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *RegisterBrokerToControllerResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *RegisterBrokerToControllerResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetReplicaInfoRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetReplicaInfoRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetReplicaInfoResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetReplicaInfoResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetMetaDataResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetMetaDataResponseHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *NotifyBrokerRoleChangedRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *NotifyBrokerRoleChangedRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *CleanControllerBrokerDataRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *CleanControllerBrokerDataRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetNextBrokerIdRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetNextBrokerIdRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetNextBrokerIdResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetNextBrokerIdResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *ApplyBrokerIdRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ApplyBrokerIdRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *ApplyBrokerIdResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ApplyBrokerIdResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}
