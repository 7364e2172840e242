package broker

// popBrokerConfigKeys are the 5.3.3 BrokerConfig POP keys (config_pop.go),
// in declaration order.
var popBrokerConfigKeys = []string{
	"popPollingSize", "maxPopPollingSize", "reviveQueueNum", "reviveInterval", "reviveMaxSlow", "reviveScanTime",
	"enablePopLog", "popCkStayBufferTime", "initPopOffsetByCheckMsgInMem", "retrieveMessageFromPopRetryTopicV1",
	"enableRetryTopicV2", "popFromRetryProbability", "popResponseReturnActualRetryTopic",
	"popInflightMessageThreshold", "enablePopMessageThreshold", "defaultMessageRequestMode",
	"defaultPopShareQueueNum", "serverLoadBalancerEnable", "skipWhenCKRePutReachMaxTimes",
}
