package broker_test

// 5.x controller-mode MessageStoreConfig keys (broker/store/config.go,
// w-ha5): a 4.9.8 broker does not print them, so the golden comparison of
// getBrokerConfig's keys skips them.
func init() {
	for _, k := range []string{"storePathEpochFile", "allAckInSyncStateSet", "minInSyncReplicas", "inSyncReplicas",
		"totalReplicas", "haMaxTimeSlaveNotCatchup", "syncFromLastFile", "asyncLearner"} {
		knownConfigKeyDiffs[k] = true
	}
}

// 5.x POP keys (config_pop.go).
func init() {
	for _, k := range []string{"popPollingSize", "maxPopPollingSize", "reviveQueueNum", "reviveInterval",
		"reviveMaxSlow", "reviveScanTime", "enablePopLog", "popCkStayBufferTime", "initPopOffsetByCheckMsgInMem",
		"retrieveMessageFromPopRetryTopicV1", "enableRetryTopicV2", "popFromRetryProbability",
		"popResponseReturnActualRetryTopic", "popInflightMessageThreshold", "enablePopMessageThreshold",
		"defaultMessageRequestMode", "defaultPopShareQueueNum", "serverLoadBalancerEnable",
		"skipWhenCKRePutReachMaxTimes"} {
		knownConfigKeyDiffs[k] = true
	}
}
