// Code generated from Apache RocketMQ RequestCode/ResponseCode (4.9.8 + develop) by a one-off script; DO NOT EDIT.

package code

// Response codes (Java RemotingSysResponseCode and ResponseCode). Codes marked 5.x are
// not defined by 4.9.8. 209, 210 and 211 mean different things in 4.9 and 5.x: the
// unsuffixed 4.9 names are what ResponseName returns.
const (
	Success                              = 0
	SystemError                          = 1
	SystemBusy                           = 2
	RequestCodeNotSupported              = 3
	TransactionFailed                    = 4
	FlushDiskTimeout                     = 10
	SlaveNotAvailable                    = 11
	FlushSlaveTimeout                    = 12
	MessageIllegal                       = 13
	ServiceNotAvailable                  = 14
	VersionNotSupported                  = 15
	NoPermission                         = 16
	TopicNotExist                        = 17
	TopicExistAlready                    = 18
	PullNotFound                         = 19
	PullRetryImmediately                 = 20
	PullOffsetMoved                      = 21
	QueryNotFound                        = 22
	SubscriptionParseFailed              = 23
	SubscriptionNotExist                 = 24
	SubscriptionNotLatest                = 25
	SubscriptionGroupNotExist            = 26
	FilterDataNotExist                   = 27
	FilterDataNotLatest                  = 28
	TransactionShouldCommit              = 200
	TransactionShouldRollback            = 201
	TransactionStateUnknow               = 202
	TransactionStateGroupWrong           = 203
	NoBuyerId                            = 204
	NotInCurrentUnit                     = 205
	ConsumerNotOnline                    = 206
	ConsumeMsgTimeout                    = 207
	NoMessage                            = 208
	UpdateAndCreateAclConfigFailed       = 209
	DeleteAclConfigFailed                = 210
	UpdateGlobalWhiteAddrsConfigFailed   = 211
	FlowControl                          = 215
	InvalidParameter                     = 29    // 5.x
	PollingFull                          = 209   // 5.x meaning of 209; 4.9 uses the same number for a different code
	PollingTimeout                       = 210   // 5.x meaning of 210; 4.9 uses the same number for a different code
	BrokerNotExist                       = 211   // 5.x meaning of 211; 4.9 uses the same number for a different code
	BrokerDispatchNotComplete            = 212   // 5.x
	BroadcastConsumption                 = 213   // 5.x
	NotLeaderForQueue                    = 501   // 5.x
	IllegalOperation                     = 604   // 5.x
	RpcUnknown                           = -1000 // 5.x
	RpcAddrIsNull                        = -1002 // 5.x
	RpcSendToChannelFailed               = -1004 // 5.x
	RpcTimeOut                           = -1006 // 5.x
	GoAway                               = 1500  // 5.x
	ControllerFencedMasterEpoch          = 2000  // 5.x
	ControllerFencedSyncStateSetEpoch    = 2001  // 5.x
	ControllerInvalidMaster              = 2002  // 5.x
	ControllerInvalidReplicas            = 2003  // 5.x
	ControllerMasterNotAvailable         = 2004  // 5.x
	ControllerInvalidRequest             = 2005  // 5.x
	ControllerBrokerNotAlive             = 2006  // 5.x
	ControllerNotLeader                  = 2007  // 5.x
	ControllerBrokerMetadataNotExist     = 2008  // 5.x
	ControllerInvalidCleanBrokerMetadata = 2009  // 5.x
	ControllerBrokerNeedToBeRegistered   = 2010  // 5.x
	ControllerMasterStillExist           = 2011  // 5.x
	ControllerElectMasterFailed          = 2012  // 5.x
	ControllerAlterSyncStateSetFailed    = 2013  // 5.x
	ControllerBrokerIdInvalid            = 2014  // 5.x
	ControllerJraftInternalError         = 2015  // 5.x
	ControllerBrokerLiveInfoNotExists    = 2016  // 5.x
	UserNotExist                         = 3001  // 5.x
	PolicyNotExist                       = 3002  // 5.x
)

var responseNames = map[int32]string{
	Success:                              "SUCCESS",
	SystemError:                          "SYSTEM_ERROR",
	SystemBusy:                           "SYSTEM_BUSY",
	RequestCodeNotSupported:              "REQUEST_CODE_NOT_SUPPORTED",
	TransactionFailed:                    "TRANSACTION_FAILED",
	FlushDiskTimeout:                     "FLUSH_DISK_TIMEOUT",
	SlaveNotAvailable:                    "SLAVE_NOT_AVAILABLE",
	FlushSlaveTimeout:                    "FLUSH_SLAVE_TIMEOUT",
	MessageIllegal:                       "MESSAGE_ILLEGAL",
	ServiceNotAvailable:                  "SERVICE_NOT_AVAILABLE",
	VersionNotSupported:                  "VERSION_NOT_SUPPORTED",
	NoPermission:                         "NO_PERMISSION",
	TopicNotExist:                        "TOPIC_NOT_EXIST",
	TopicExistAlready:                    "TOPIC_EXIST_ALREADY",
	PullNotFound:                         "PULL_NOT_FOUND",
	PullRetryImmediately:                 "PULL_RETRY_IMMEDIATELY",
	PullOffsetMoved:                      "PULL_OFFSET_MOVED",
	QueryNotFound:                        "QUERY_NOT_FOUND",
	SubscriptionParseFailed:              "SUBSCRIPTION_PARSE_FAILED",
	SubscriptionNotExist:                 "SUBSCRIPTION_NOT_EXIST",
	SubscriptionNotLatest:                "SUBSCRIPTION_NOT_LATEST",
	SubscriptionGroupNotExist:            "SUBSCRIPTION_GROUP_NOT_EXIST",
	FilterDataNotExist:                   "FILTER_DATA_NOT_EXIST",
	FilterDataNotLatest:                  "FILTER_DATA_NOT_LATEST",
	TransactionShouldCommit:              "TRANSACTION_SHOULD_COMMIT",
	TransactionShouldRollback:            "TRANSACTION_SHOULD_ROLLBACK",
	TransactionStateUnknow:               "TRANSACTION_STATE_UNKNOW",
	TransactionStateGroupWrong:           "TRANSACTION_STATE_GROUP_WRONG",
	NoBuyerId:                            "NO_BUYER_ID",
	NotInCurrentUnit:                     "NOT_IN_CURRENT_UNIT",
	ConsumerNotOnline:                    "CONSUMER_NOT_ONLINE",
	ConsumeMsgTimeout:                    "CONSUME_MSG_TIMEOUT",
	NoMessage:                            "NO_MESSAGE",
	UpdateAndCreateAclConfigFailed:       "UPDATE_AND_CREATE_ACL_CONFIG_FAILED",
	DeleteAclConfigFailed:                "DELETE_ACL_CONFIG_FAILED",
	UpdateGlobalWhiteAddrsConfigFailed:   "UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED",
	FlowControl:                          "FLOW_CONTROL",
	InvalidParameter:                     "INVALID_PARAMETER",
	BrokerDispatchNotComplete:            "BROKER_DISPATCH_NOT_COMPLETE",
	BroadcastConsumption:                 "BROADCAST_CONSUMPTION",
	NotLeaderForQueue:                    "NOT_LEADER_FOR_QUEUE",
	IllegalOperation:                     "ILLEGAL_OPERATION",
	RpcUnknown:                           "RPC_UNKNOWN",
	RpcAddrIsNull:                        "RPC_ADDR_IS_NULL",
	RpcSendToChannelFailed:               "RPC_SEND_TO_CHANNEL_FAILED",
	RpcTimeOut:                           "RPC_TIME_OUT",
	GoAway:                               "GO_AWAY",
	ControllerFencedMasterEpoch:          "CONTROLLER_FENCED_MASTER_EPOCH",
	ControllerFencedSyncStateSetEpoch:    "CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH",
	ControllerInvalidMaster:              "CONTROLLER_INVALID_MASTER",
	ControllerInvalidReplicas:            "CONTROLLER_INVALID_REPLICAS",
	ControllerMasterNotAvailable:         "CONTROLLER_MASTER_NOT_AVAILABLE",
	ControllerInvalidRequest:             "CONTROLLER_INVALID_REQUEST",
	ControllerBrokerNotAlive:             "CONTROLLER_BROKER_NOT_ALIVE",
	ControllerNotLeader:                  "CONTROLLER_NOT_LEADER",
	ControllerBrokerMetadataNotExist:     "CONTROLLER_BROKER_METADATA_NOT_EXIST",
	ControllerInvalidCleanBrokerMetadata: "CONTROLLER_INVALID_CLEAN_BROKER_METADATA",
	ControllerBrokerNeedToBeRegistered:   "CONTROLLER_BROKER_NEED_TO_BE_REGISTERED",
	ControllerMasterStillExist:           "CONTROLLER_MASTER_STILL_EXIST",
	ControllerElectMasterFailed:          "CONTROLLER_ELECT_MASTER_FAILED",
	ControllerAlterSyncStateSetFailed:    "CONTROLLER_ALTER_SYNC_STATE_SET_FAILED",
	ControllerBrokerIdInvalid:            "CONTROLLER_BROKER_ID_INVALID",
	ControllerJraftInternalError:         "CONTROLLER_JRAFT_INTERNAL_ERROR",
	ControllerBrokerLiveInfoNotExists:    "CONTROLLER_BROKER_LIVE_INFO_NOT_EXISTS",
	UserNotExist:                         "USER_NOT_EXIST",
	PolicyNotExist:                       "POLICY_NOT_EXIST",
}
