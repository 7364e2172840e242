package header

// Admin headers served by AdminBrokerProcessor (Java 4.9.8), plus the 5.x
// topic/consumer look-ups mqadmin 5.x sends.

// CreateTopicRequestHeader is UPDATE_AND_CREATE_TOPIC (17).
type CreateTopicRequestHeader struct {
	Topic           string `ext:"topic,required"`
	DefaultTopic    string `ext:"defaultTopic,required"`
	ReadQueueNums   int32  `ext:"readQueueNums,required"`
	WriteQueueNums  int32  `ext:"writeQueueNums,required"`
	Perm            int32  `ext:"perm,required"`
	TopicFilterType string `ext:"topicFilterType,required"`
	TopicSysFlag    *int32 `ext:"topicSysFlag"`
	Order           bool   `ext:"order,required"`
}

// DeleteTopicRequestHeader is DELETE_TOPIC_IN_BROKER (215).
type DeleteTopicRequestHeader struct {
	Topic string `ext:"topic,required"`
}

// GetTopicStatsInfoRequestHeader is GET_TOPIC_STATS_INFO (202).
type GetTopicStatsInfoRequestHeader struct {
	Topic string `ext:"topic,required"`
}

// GetTopicConfigRequestHeader is the 5.x GET_TOPIC_CONFIG (351).
type GetTopicConfigRequestHeader struct {
	Topic string `ext:"topic,required"`
}

// GetSubscriptionGroupConfigRequestHeader is the 5.x
// GET_SUBSCRIPTIONGROUP_CONFIG (352).
type GetSubscriptionGroupConfigRequestHeader struct {
	Group string `ext:"group,required"`
	Bname string `ext:"bname"`
}

// GetAllTopicConfigRequestHeader is the header a 5.x slave may put on
// GET_ALL_TOPIC_CONFIG to page through topics. 4.9.8 sends no header on
// that code, so it is not in the NewRequestHeader registry.
type GetAllTopicConfigRequestHeader struct {
	TopicSeq    int32  `ext:"topicSeq,required"`
	DataVersion string `ext:"dataVersion"`
	MaxTopicNum *int32 `ext:"maxTopicNum"`
}

// GetAllTopicConfigResponseHeader answers GET_ALL_TOPIC_CONFIG (no fields).
type GetAllTopicConfigResponseHeader struct{}

// GetBrokerConfigResponseHeader answers GET_BROKER_CONFIG; Version is the
// config DataVersion as JSON.
type GetBrokerConfigResponseHeader struct {
	Version string `ext:"version,required"`
}

// DeleteSubscriptionGroupRequestHeader is DELETE_SUBSCRIPTIONGROUP (207).
type DeleteSubscriptionGroupRequestHeader struct {
	GroupName    string `ext:"groupName,required"`
	RemoveOffset bool   `ext:"removeOffset"`
}

// GetConsumeStatsRequestHeader is GET_CONSUME_STATS (208).
type GetConsumeStatsRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
	Topic         string `ext:"topic"`
}

// GetConsumerConnectionListRequestHeader is GET_CONSUMER_CONNECTION_LIST (203).
type GetConsumerConnectionListRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup,required"`
}

// GetProducerConnectionListRequestHeader is GET_PRODUCER_CONNECTION_LIST (204).
type GetProducerConnectionListRequestHeader struct {
	ProducerGroup string `ext:"producerGroup,required"`
}

// GetAllProducerInfoRequestHeader is GET_ALL_PRODUCER_INFO (328) (no fields).
type GetAllProducerInfoRequestHeader struct{}

// QueryTopicConsumeByWhoRequestHeader is QUERY_TOPIC_CONSUME_BY_WHO (300).
type QueryTopicConsumeByWhoRequestHeader struct {
	Topic string `ext:"topic,required"`
}

// QueryTopicsByConsumerRequestHeader is the 5.x QUERY_TOPICS_BY_CONSUMER (343).
type QueryTopicsByConsumerRequestHeader struct {
	Group string `ext:"group,required"`
}

// QuerySubscriptionByConsumerRequestHeader is the 5.x
// QUERY_SUBSCRIPTION_BY_CONSUMER (345).
type QuerySubscriptionByConsumerRequestHeader struct {
	Group string `ext:"group,required"`
	Topic string `ext:"topic"`
}

// QueryConsumeTimeSpanRequestHeader is QUERY_CONSUME_TIME_SPAN (303).
type QueryConsumeTimeSpanRequestHeader struct {
	Topic string `ext:"topic,required"`
	Group string `ext:"group,required"`
}

// ViewBrokerStatsDataRequestHeader is VIEW_BROKER_STATS_DATA (315).
type ViewBrokerStatsDataRequestHeader struct {
	StatsName string `ext:"statsName,required"`
	StatsKey  string `ext:"statsKey,required"`
}

// GetConsumeStatsInBrokerHeader is GET_BROKER_CONSUME_STATS (317). The key
// is "isOrder", as Java names the primitive field.
type GetConsumeStatsInBrokerHeader struct {
	IsOrder bool `ext:"isOrder,required"`
}

// CreateAccessConfigRequestHeader is UPDATE_AND_CREATE_ACL_CONFIG (50).
type CreateAccessConfigRequestHeader struct {
	AccessKey          string `ext:"accessKey,required"`
	SecretKey          string `ext:"secretKey"`
	WhiteRemoteAddress string `ext:"whiteRemoteAddress"`
	Admin              bool   `ext:"admin"`
	DefaultTopicPerm   string `ext:"defaultTopicPerm"`
	DefaultGroupPerm   string `ext:"defaultGroupPerm"`
	TopicPerms         string `ext:"topicPerms"`
	GroupPerms         string `ext:"groupPerms"`
}

// DeleteAccessConfigRequestHeader is DELETE_ACL_CONFIG (51).
type DeleteAccessConfigRequestHeader struct {
	AccessKey string `ext:"accessKey,required"`
}

// UpdateGlobalWhiteAddrsConfigRequestHeader is UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53).
// Java marks aclFileFullPath @CFNotNull, but 4.9.8's mqadmin leaves it out
// unless -f is given and the broker, whose decoder only logs a missing
// field, then updates the default ACL file: so it is optional here.
type UpdateGlobalWhiteAddrsConfigRequestHeader struct {
	GlobalWhiteAddrs string `ext:"globalWhiteAddrs,required"`
	AclFileFullPath  string `ext:"aclFileFullPath"`
}

// GetBrokerAclConfigResponseHeader answers GET_BROKER_CLUSTER_ACL_INFO (52).
type GetBrokerAclConfigResponseHeader struct {
	Version           string `ext:"version,required"`
	AllAclFileVersion string `ext:"allAclFileVersion"`
	BrokerName        string `ext:"brokerName,required"`
	BrokerAddr        string `ext:"brokerAddr,required"`
	ClusterName       string `ext:"clusterName,required"`
}

// ToExtFields implements CommandCustomHeader.
func (h *CreateTopicRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *CreateTopicRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *DeleteTopicRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *DeleteTopicRequestHeader) FromExtFields(ext map[string]string) error { return decode(ext, h) }

// ToExtFields implements CommandCustomHeader.
func (h *GetTopicStatsInfoRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetTopicStatsInfoRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetTopicConfigRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetTopicConfigRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetAllTopicConfigResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetAllTopicConfigResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetBrokerConfigResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetBrokerConfigResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *DeleteSubscriptionGroupRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *DeleteSubscriptionGroupRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetConsumeStatsRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetConsumeStatsRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetConsumerConnectionListRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetConsumerConnectionListRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetProducerConnectionListRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetProducerConnectionListRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetAllProducerInfoRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetAllProducerInfoRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *QueryTopicConsumeByWhoRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QueryTopicConsumeByWhoRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *QueryTopicsByConsumerRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QueryTopicsByConsumerRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *QuerySubscriptionByConsumerRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QuerySubscriptionByConsumerRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *QueryConsumeTimeSpanRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *QueryConsumeTimeSpanRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *ViewBrokerStatsDataRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *ViewBrokerStatsDataRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetConsumeStatsInBrokerHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetConsumeStatsInBrokerHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *CreateAccessConfigRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *CreateAccessConfigRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *DeleteAccessConfigRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *DeleteAccessConfigRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *UpdateGlobalWhiteAddrsConfigRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *UpdateGlobalWhiteAddrsConfigRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetBrokerAclConfigResponseHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetBrokerAclConfigResponseHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetSubscriptionGroupConfigRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetSubscriptionGroupConfigRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}

// ToExtFields implements CommandCustomHeader.
func (h *GetAllTopicConfigRequestHeader) ToExtFields() map[string]string { return encode(h) }

// FromExtFields implements CommandCustomHeader.
func (h *GetAllTopicConfigRequestHeader) FromExtFields(ext map[string]string) error {
	return decode(ext, h)
}
