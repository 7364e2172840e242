package header

// Name-server request and response headers. They mirror the Java classes in
// org.apache.rocketmq.common.protocol.header.namesrv (4.9.8), plus the 5.x
// additions (BrokerHeartbeatRequestHeader, GetBrokerMemberGroupRequestHeader,
// RegisterTopicRequestHeader, and the optional RegisterBrokerRequestHeader
// fields heartbeatTimeoutMillis / enableActingMaster).

// RegisterBrokerRequestHeader is REGISTER_BROKER (103).
type RegisterBrokerRequestHeader struct {
	BrokerName   string `ext:"brokerName,required"`
	BrokerAddr   string `ext:"brokerAddr,required"`
	ClusterName  string `ext:"clusterName,required"`
	HAServerAddr string `ext:"haServerAddr,required"`
	BrokerID     int64  `ext:"brokerId,required"`
	// HeartbeatTimeoutMillis is 5.x only; nil when absent.
	HeartbeatTimeoutMillis *int64 `ext:"heartbeatTimeoutMillis"`
	// EnableActingMaster is 5.x only; nil when absent.
	EnableActingMaster *bool `ext:"enableActingMaster"`
	Compressed         bool  `ext:"compressed"`
	// BodyCrc32 is CRC32(body)&0x7FFFFFFF; Java defaults it to 0 (= do not check).
	BodyCrc32 int32 `ext:"bodyCrc32"`
}

// RegisterBrokerResponseHeader answers REGISTER_BROKER. Both fields are
// empty (omitted) for a master.
type RegisterBrokerResponseHeader struct {
	HAServerAddr string `ext:"haServerAddr"`
	MasterAddr   string `ext:"masterAddr"`
}

// UnRegisterBrokerRequestHeader is UNREGISTER_BROKER (104).
type UnRegisterBrokerRequestHeader struct {
	BrokerName  string `ext:"brokerName,required"`
	BrokerAddr  string `ext:"brokerAddr,required"`
	ClusterName string `ext:"clusterName,required"`
	BrokerID    int64  `ext:"brokerId,required"`
}

// GetRouteInfoRequestHeader is GET_ROUTEINFO_BY_TOPIC (105).
type GetRouteInfoRequestHeader struct {
	Topic string `ext:"topic,required"`
	// AcceptStandardJSONOnly asks for standard JSON instead of fastjson
	// output; nil when absent.
	AcceptStandardJSONOnly *bool `ext:"acceptStandardJsonOnly"`
}

// PutKVConfigRequestHeader is PUT_KV_CONFIG (100).
type PutKVConfigRequestHeader struct {
	Namespace string `ext:"namespace,required"`
	Key       string `ext:"key,required"`
	Value     string `ext:"value,required"`
}

// GetKVConfigRequestHeader is GET_KV_CONFIG (101).
type GetKVConfigRequestHeader struct {
	Namespace string `ext:"namespace,required"`
	Key       string `ext:"key,required"`
}

// GetKVConfigResponseHeader answers GET_KV_CONFIG. Value is a pointer
// because a stored empty string must still be sent.
type GetKVConfigResponseHeader struct {
	Value *string `ext:"value"`
}

// DeleteKVConfigRequestHeader is DELETE_KV_CONFIG (102).
type DeleteKVConfigRequestHeader struct {
	Namespace string `ext:"namespace,required"`
	Key       string `ext:"key,required"`
}

// GetKVListByNamespaceRequestHeader is GET_KVLIST_BY_NAMESPACE (219).
type GetKVListByNamespaceRequestHeader struct {
	Namespace string `ext:"namespace,required"`
}

// WipeWritePermOfBrokerRequestHeader is WIPE_WRITE_PERM_OF_BROKER (205).
type WipeWritePermOfBrokerRequestHeader struct {
	BrokerName string `ext:"brokerName,required"`
}

// WipeWritePermOfBrokerResponseHeader answers WIPE_WRITE_PERM_OF_BROKER.
type WipeWritePermOfBrokerResponseHeader struct {
	WipeTopicCount int32 `ext:"wipeTopicCount,required"`
}

// AddWritePermOfBrokerRequestHeader is ADD_WRITE_PERM_OF_BROKER (327).
type AddWritePermOfBrokerRequestHeader struct {
	BrokerName string `ext:"brokerName,required"`
}

// AddWritePermOfBrokerResponseHeader answers ADD_WRITE_PERM_OF_BROKER.
type AddWritePermOfBrokerResponseHeader struct {
	AddTopicCount int32 `ext:"addTopicCount,required"`
}

// DeleteTopicFromNamesrvRequestHeader is DELETE_TOPIC_IN_NAMESRV (216).
type DeleteTopicFromNamesrvRequestHeader struct {
	Topic       string `ext:"topic,required"`
	ClusterName string `ext:"clusterName"`
}

// GetTopicsByClusterRequestHeader is GET_TOPICS_BY_CLUSTER (224).
type GetTopicsByClusterRequestHeader struct {
	Cluster string `ext:"cluster,required"`
}

// QueryDataVersionRequestHeader is QUERY_DATA_VERSION (322).
type QueryDataVersionRequestHeader struct {
	BrokerName  string `ext:"brokerName,required"`
	BrokerAddr  string `ext:"brokerAddr,required"`
	ClusterName string `ext:"clusterName,required"`
	BrokerID    int64  `ext:"brokerId,required"`
}

// QueryDataVersionResponseHeader answers QUERY_DATA_VERSION.
type QueryDataVersionResponseHeader struct {
	Changed bool `ext:"changed,required"`
}

// RegisterOrderTopicRequestHeader is the 4.9.8 RegisterOrderTopicRequestHeader.
type RegisterOrderTopicRequestHeader struct {
	Topic            string `ext:"topic,required"`
	OrderTopicString string `ext:"orderTopicString,required"`
}

// BrokerHeartbeatRequestHeader is the 5.x BROKER_HEARTBEAT (904), oneway.
type BrokerHeartbeatRequestHeader struct {
	ClusterName           string `ext:"clusterName,required"`
	BrokerAddr            string `ext:"brokerAddr,required"`
	BrokerName            string `ext:"brokerName,required"`
	BrokerID              *int64 `ext:"brokerId"`
	Epoch                 *int32 `ext:"epoch"`
	MaxOffset             *int64 `ext:"maxOffset"`
	ConfirmOffset         *int64 `ext:"confirmOffset"`
	HeartbeatTimeoutMills *int64 `ext:"heartbeatTimeoutMills"`
	ElectionPriority      *int32 `ext:"electionPriority"`
}

// GetBrokerMemberGroupRequestHeader is the 5.x GET_BROKER_MEMBER_GROUP (901).
type GetBrokerMemberGroupRequestHeader struct {
	ClusterName string `ext:"clusterName,required"`
	BrokerName  string `ext:"brokerName,required"`
}

// RegisterTopicRequestHeader is the 5.x REGISTER_TOPIC_IN_NAMESRV (217).
type RegisterTopicRequestHeader struct {
	Topic string `ext:"topic,required"`
}

// ToExtFields implements CommandCustomHeader.
func (h *RegisterBrokerRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *RegisterBrokerRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *RegisterBrokerResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *RegisterBrokerResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *UnRegisterBrokerRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *UnRegisterBrokerRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetRouteInfoRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetRouteInfoRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *PutKVConfigRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *PutKVConfigRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *GetKVConfigRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetKVConfigRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *GetKVConfigResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetKVConfigResponseHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *DeleteKVConfigRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *DeleteKVConfigRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetKVListByNamespaceRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetKVListByNamespaceRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *WipeWritePermOfBrokerRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *WipeWritePermOfBrokerRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *WipeWritePermOfBrokerResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *WipeWritePermOfBrokerResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *AddWritePermOfBrokerRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *AddWritePermOfBrokerRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *AddWritePermOfBrokerResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *AddWritePermOfBrokerResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *DeleteTopicFromNamesrvRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *DeleteTopicFromNamesrvRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetTopicsByClusterRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetTopicsByClusterRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *QueryDataVersionRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QueryDataVersionRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *QueryDataVersionResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QueryDataVersionResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *RegisterOrderTopicRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *RegisterOrderTopicRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *BrokerHeartbeatRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *BrokerHeartbeatRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetBrokerMemberGroupRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetBrokerMemberGroupRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *RegisterTopicRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *RegisterTopicRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}
