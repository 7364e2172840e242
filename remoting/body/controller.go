package body

import (
	"slices"
	"strconv"
)

// Controller-mode bodies (5.x): SyncStateSet, BrokerMemberGroup,
// ElectMasterResponseBody, BrokerReplicasInfo, EpochEntry/EpochEntryCache,
// as of rocketmq-all-5.3.3 (org.apache.rocketmq.remoting.protocol.body and
// ...protocol.EpochEntry). Encoders write fastjson's bytes: bean fields in
// alphabetical order, null fields omitted, Set<Long>/Map<Long,…> in the
// iteration order of the small Java HashSet/HashMap that held them (ascending
// for small ids), integer map keys bare.

// SyncStateSet is the set of broker ids in sync with the master and the
// epoch of that set.
type SyncStateSet struct {
	SyncStateSet      []int64 `json:"syncStateSet"`
	SyncStateSetEpoch int32   `json:"syncStateSetEpoch"`
}

// Encode writes fastjson's bytes, e.g. {"syncStateSet":[1,2],"syncStateSetEpoch":3}.
func (s *SyncStateSet) Encode() []byte {
	dst := append(make([]byte, 0, 64), `{"syncStateSet":`...)
	dst = appendLongSet(dst, s.SyncStateSet)
	dst = append(dst, `,"syncStateSetEpoch":`...)
	dst = strconv.AppendInt(dst, int64(s.SyncStateSetEpoch), 10)
	return append(dst, '}')
}

// DecodeSyncStateSet reads a SyncStateSet.
func DecodeSyncStateSet(data []byte) (*SyncStateSet, error) {
	var s SyncStateSet
	if err := decodeFastjson(data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// appendLongSet writes a HashSet<Long> in Java iteration order (deduplicated).
func appendLongSet(dst []byte, set []int64) []byte {
	ids := slices.Clone(set)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	SortJavaLongKeys(ids, JavaHashMapCapacity(len(ids), 16))
	dst = append(dst, '[')
	for i, id := range ids {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, id, 10)
	}
	return append(dst, ']')
}

// BrokerMemberGroup is the 5.x BrokerMemberGroup: one broker group's members
// by broker id. Its JSON is BrokerData's.
type BrokerMemberGroup = BrokerData

// ElectMasterResponseBody is the body of a CONTROLLER_ELECT_MASTER answer.
// BrokerMemberGroup is nil when Java leaves it null (master still exists).
type ElectMasterResponseBody struct {
	BrokerMemberGroup *BrokerMemberGroup `json:"brokerMemberGroup"`
	SyncStateSet      []int64            `json:"syncStateSet"`
}

// Encode writes fastjson's bytes.
func (b *ElectMasterResponseBody) Encode() []byte {
	dst := append(make([]byte, 0, 160), '{')
	if b.BrokerMemberGroup != nil {
		dst = append(dst, `"brokerMemberGroup":`...)
		dst = b.BrokerMemberGroup.appendJSON(dst, false)
		dst = append(dst, ',')
	}
	dst = append(dst, `"syncStateSet":`...)
	dst = appendLongSet(dst, b.SyncStateSet)
	return append(dst, '}')
}

// DecodeElectMasterResponseBody reads an ElectMasterResponseBody.
func DecodeElectMasterResponseBody(data []byte) (*ElectMasterResponseBody, error) {
	var b ElectMasterResponseBody
	if err := decodeFastjson(data, &b); err != nil {
		return nil, err
	}
	return &b, nil
}

// ReplicaIdentity is BrokerReplicasInfo.ReplicaIdentity.
type ReplicaIdentity struct {
	BrokerName    string `json:"brokerName"`
	BrokerID      int64  `json:"brokerId"`
	BrokerAddress string `json:"brokerAddress"`
	Alive         bool   `json:"alive"`
}

// ReplicasInfo is BrokerReplicasInfo.ReplicasInfo: one group's master and
// its replicas split by SyncStateSet membership.
type ReplicasInfo struct {
	MasterBrokerID    *int64            `json:"masterBrokerId"`
	MasterAddress     string            `json:"masterAddress"`
	MasterEpoch       int32             `json:"masterEpoch"`
	SyncStateSetEpoch int32             `json:"syncStateSetEpoch"`
	InSyncReplicas    []ReplicaIdentity `json:"inSyncReplicas"`
	NotInSyncReplicas []ReplicaIdentity `json:"notInSyncReplicas"`
}

// BrokerReplicasInfo answers CONTROLLER_GET_SYNC_STATE_DATA, keyed by
// brokerName.
type BrokerReplicasInfo struct {
	ReplicasInfoTable map[string]*ReplicasInfo `json:"replicasInfoTable"`
}

// Encode writes fastjson's bytes (table in HashMap order).
func (b *BrokerReplicasInfo) Encode() []byte {
	names := make([]string, 0, len(b.ReplicasInfoTable))
	for n := range b.ReplicasInfoTable {
		names = append(names, n)
	}
	SortJavaHashOrder(names, JavaHashMapCapacity(len(names), 16))
	dst := append(make([]byte, 0, 256), `{"replicasInfoTable":{`...)
	for i, n := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendKey(dst, n, false)
		dst = b.ReplicasInfoTable[n].appendJSON(dst)
	}
	return append(dst, "}}"...)
}

func (r *ReplicasInfo) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"inSyncReplicas":`...)
	dst = appendReplicaList(dst, r.InSyncReplicas)
	if r.MasterAddress != "" {
		dst = append(dst, `,"masterAddress":`...)
		dst = AppendString(dst, r.MasterAddress, false)
	}
	if r.MasterBrokerID != nil {
		dst = append(dst, `,"masterBrokerId":`...)
		dst = strconv.AppendInt(dst, *r.MasterBrokerID, 10)
	}
	dst = append(dst, `,"masterEpoch":`...)
	dst = strconv.AppendInt(dst, int64(r.MasterEpoch), 10)
	dst = append(dst, `,"notInSyncReplicas":`...)
	dst = appendReplicaList(dst, r.NotInSyncReplicas)
	dst = append(dst, `,"syncStateSetEpoch":`...)
	dst = strconv.AppendInt(dst, int64(r.SyncStateSetEpoch), 10)
	return append(dst, '}')
}

func appendReplicaList(dst []byte, list []ReplicaIdentity) []byte {
	dst = append(dst, '[')
	for i, r := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"alive":`...)
		dst = strconv.AppendBool(dst, r.Alive)
		dst = append(dst, `,"brokerAddress":`...)
		dst = AppendString(dst, r.BrokerAddress, false)
		dst = append(dst, `,"brokerId":`...)
		dst = strconv.AppendInt(dst, r.BrokerID, 10)
		dst = append(dst, `,"brokerName":`...)
		dst = AppendString(dst, r.BrokerName, false)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// DecodeBrokerReplicasInfo reads a BrokerReplicasInfo.
func DecodeBrokerReplicasInfo(data []byte) (*BrokerReplicasInfo, error) {
	var b BrokerReplicasInfo
	if err := decodeFastjson(data, &b); err != nil {
		return nil, err
	}
	return &b, nil
}

// EncodeBrokerNameList writes the CONTROLLER_GET_SYNC_STATE_DATA request
// body: a JSON array of broker names.
func EncodeBrokerNameList(names []string) []byte {
	return AppendStringList(make([]byte, 0, 32), names, false)
}

// DecodeBrokerNameList reads a CONTROLLER_GET_SYNC_STATE_DATA request body.
func DecodeBrokerNameList(data []byte) ([]string, error) {
	var names []string
	if err := decodeFastjson(data, &names); err != nil {
		return nil, err
	}
	return names, nil
}

// EpochEntry is one entry of a broker's epoch file: the master epoch and the
// CommitLog range [StartOffset, EndOffset) written under it. Java's default
// EndOffset is Long.MAX_VALUE (the open, current epoch).
type EpochEntry struct {
	Epoch       int32 `json:"epoch"`
	StartOffset int64 `json:"startOffset"`
	EndOffset   int64 `json:"endOffset"`
}

// EpochEntryCache answers GET_BROKER_EPOCH_CACHE (1007, served by brokers).
type EpochEntryCache struct {
	ClusterName string       `json:"clusterName"`
	BrokerName  string       `json:"brokerName"`
	BrokerID    int64        `json:"brokerId"`
	EpochList   []EpochEntry `json:"epochList"`
	MaxOffset   int64        `json:"maxOffset"`
}

// Encode writes fastjson's bytes.
func (c *EpochEntryCache) Encode() []byte {
	dst := append(make([]byte, 0, 128), `{"brokerId":`...)
	dst = strconv.AppendInt(dst, c.BrokerID, 10)
	dst = append(dst, `,"brokerName":`...)
	dst = AppendString(dst, c.BrokerName, false)
	dst = append(dst, `,"clusterName":`...)
	dst = AppendString(dst, c.ClusterName, false)
	dst = append(dst, `,"epochList":[`...)
	for i, e := range c.EpochList {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"endOffset":`...)
		dst = strconv.AppendInt(dst, e.EndOffset, 10)
		dst = append(dst, `,"epoch":`...)
		dst = strconv.AppendInt(dst, int64(e.Epoch), 10)
		dst = append(dst, `,"startOffset":`...)
		dst = strconv.AppendInt(dst, e.StartOffset, 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"maxOffset":`...)
	dst = strconv.AppendInt(dst, c.MaxOffset, 10)
	return append(dst, '}')
}

// DecodeEpochEntryCache reads an EpochEntryCache.
func DecodeEpochEntryCache(data []byte) (*EpochEntryCache, error) {
	var c EpochEntryCache
	if err := decodeFastjson(data, &c); err != nil {
		return nil, err
	}
	return &c, nil
}
