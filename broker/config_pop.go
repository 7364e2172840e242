package broker

// PopConfig holds the 5.3.3 BrokerConfig keys of POP consumption (field
// initialisers of rocketmq-all-5.3.3 BrokerConfig). A 4.9.8 broker ignores
// them; embedded in BrokerConfig so the properties file and
// UPDATE_BROKER_CONFIG reach them.
type PopConfig struct {
	PopPollingSize    int   `prop:"popPollingSize"`    // held pops per topic@group@queue before POLLING_FULL
	MaxPopPollingSize int64 `prop:"maxPopPollingSize"` // held pops in all before POLLING_FULL
	ReviveQueueNum    int   `prop:"reviveQueueNum"`    // queues of rmq_sys_REVIVE_LOG_<cluster>
	ReviveInterval    int64 `prop:"reviveInterval"`    // ms between revive passes
	ReviveMaxSlow     int64 `prop:"reviveMaxSlow"`     // read, not used: we revive by the wall clock (docs/pop.md)
	ReviveScanTime    int64 `prop:"reviveScanTime"`    // read, not used
	EnablePopLog      bool  `prop:"enablePopLog"`      // logs each pop/ack/revive at Info
	// PopCkStayBufferTime is read, not used: there is no merge buffer.
	PopCkStayBufferTime                int   `prop:"popCkStayBufferTime"`
	InitPopOffsetByCheckMsgInMem       bool  `prop:"initPopOffsetByCheckMsgInMem"`
	RetrieveMessageFromPopRetryTopicV1 bool  `prop:"retrieveMessageFromPopRetryTopicV1"`
	EnableRetryTopicV2                 bool  `prop:"enableRetryTopicV2"`
	PopFromRetryProbability            int   `prop:"popFromRetryProbability"` // percent of pops that read the retry topic first
	PopResponseReturnActualRetryTopic  bool  `prop:"popResponseReturnActualRetryTopic"`
	PopInflightMessageThreshold        int64 `prop:"popInflightMessageThreshold"`
	EnablePopMessageThreshold          bool  `prop:"enablePopMessageThreshold"` // not implemented: warned when true
	// DefaultMessageRequestMode is PULL or POP: the mode QUERY_ASSIGNMENT
	// reports for a group/topic without a SET_MESSAGE_REQUEST_MODE entry.
	DefaultMessageRequestMode string `prop:"defaultMessageRequestMode"`
	DefaultPopShareQueueNum   int    `prop:"defaultPopShareQueueNum"`
	// ServerLoadBalancerEnable: QUERY_ASSIGNMENT allocates (true) or
	// returns every queue.
	ServerLoadBalancerEnable bool `prop:"serverLoadBalancerEnable"`
	// SkipWhenCKRePutReachMaxTimes: a message whose re-put keeps failing
	// is dropped after pop.MaxRePutTimes checkpoint rewrites (false: it is
	// tried every 2 h for ever).
	SkipWhenCKRePutReachMaxTimes bool `prop:"skipWhenCKRePutReachMaxTimes"`
}

// newPopConfig returns the 5.3.3 defaults.
func newPopConfig() PopConfig {
	return PopConfig{
		PopPollingSize:                     1024,
		MaxPopPollingSize:                  100000,
		ReviveQueueNum:                     8,
		ReviveInterval:                     1000,
		ReviveMaxSlow:                      3,
		ReviveScanTime:                     10000,
		PopCkStayBufferTime:                10 * 1000,
		InitPopOffsetByCheckMsgInMem:       true,
		RetrieveMessageFromPopRetryTopicV1: true,
		PopFromRetryProbability:            20,
		PopInflightMessageThreshold:        10000,
		DefaultMessageRequestMode:          "PULL",
		DefaultPopShareQueueNum:            -1,
		ServerLoadBalancerEnable:           true,
	}
}
