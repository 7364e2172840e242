// Code generated from Apache RocketMQ RequestCode/ResponseCode (4.9.8 + develop) by a one-off script; DO NOT EDIT.

package code

// Request codes (Java RequestCode). Codes marked 5.x are not defined by 4.9.8.
const (
	SendMessage                          = 10
	PullMessage                          = 11
	QueryMessage                         = 12
	QueryBrokerOffset                    = 13
	QueryConsumerOffset                  = 14
	UpdateConsumerOffset                 = 15
	UpdateAndCreateTopic                 = 17
	GetAllTopicConfig                    = 21
	GetTopicConfigList                   = 22
	GetTopicNameList                     = 23
	UpdateBrokerConfig                   = 25
	GetBrokerConfig                      = 26
	TriggerDeleteFiles                   = 27
	GetBrokerRuntimeInfo                 = 28
	SearchOffsetByTimestamp              = 29
	GetMaxOffset                         = 30
	GetMinOffset                         = 31
	GetEarliestMsgStoretime              = 32
	ViewMessageById                      = 33
	HeartBeat                            = 34
	UnregisterClient                     = 35
	ConsumerSendMsgBack                  = 36
	EndTransaction                       = 37
	GetConsumerListByGroup               = 38
	CheckTransactionState                = 39
	NotifyConsumerIdsChanged             = 40
	LockBatchMq                          = 41
	UnlockBatchMq                        = 42
	GetAllConsumerOffset                 = 43
	GetAllDelayOffset                    = 45
	CheckClientConfig                    = 46
	UpdateAndCreateAclConfig             = 50
	DeleteAclConfig                      = 51
	GetBrokerClusterAclInfo              = 52
	UpdateGlobalWhiteAddrsConfig         = 53
	PutKvConfig                          = 100
	GetKvConfig                          = 101
	DeleteKvConfig                       = 102
	RegisterBroker                       = 103
	UnregisterBroker                     = 104
	GetRouteinfoByTopic                  = 105
	GetBrokerClusterInfo                 = 106
	UpdateAndCreateSubscriptiongroup     = 200
	GetAllSubscriptiongroupConfig        = 201
	GetTopicStatsInfo                    = 202
	GetConsumerConnectionList            = 203
	GetProducerConnectionList            = 204
	WipeWritePermOfBroker                = 205
	GetAllTopicListFromNameserver        = 206
	DeleteSubscriptiongroup              = 207
	GetConsumeStats                      = 208
	SuspendConsumer                      = 209
	ResumeConsumer                       = 210
	ResetConsumerOffsetInConsumer        = 211
	ResetConsumerOffsetInBroker          = 212
	AdjustConsumerThreadPool             = 213
	WhoConsumeTheMessage                 = 214
	DeleteTopicInBroker                  = 215
	DeleteTopicInNamesrv                 = 216
	GetKvlistByNamespace                 = 219
	ResetConsumerClientOffset            = 220
	GetConsumerStatusFromClient          = 221
	InvokeBrokerToResetOffset            = 222
	InvokeBrokerToGetConsumerStatus      = 223
	QueryTopicConsumeByWho               = 300
	GetTopicsByCluster                   = 224
	RegisterFilterServer                 = 301
	RegisterMessageFilterClass           = 302
	QueryConsumeTimeSpan                 = 303
	GetSystemTopicListFromNs             = 304
	GetSystemTopicListFromBroker         = 305
	CleanExpiredConsumequeue             = 306
	GetConsumerRunningInfo               = 307
	QueryCorrectionOffset                = 308
	ConsumeMessageDirectly               = 309
	SendMessageV2                        = 310
	GetUnitTopicList                     = 311
	GetHasUnitSubTopicList               = 312
	GetHasUnitSubUnunitTopicList         = 313
	CloneGroupOffset                     = 314
	ViewBrokerStatsData                  = 315
	CleanUnusedTopic                     = 316
	GetBrokerConsumeStats                = 317
	UpdateNamesrvConfig                  = 318
	GetNamesrvConfig                     = 319
	SendBatchMessage                     = 320
	QueryConsumeQueue                    = 321
	QueryDataVersion                     = 322
	ResumeCheckHalfMessage               = 323
	SendReplyMessage                     = 324
	SendReplyMessageV2                   = 325
	PushReplyMessageToClient             = 326
	AddWritePermOfBroker                 = 327
	GetAllProducerInfo                   = 328
	DeleteExpiredCommitlog               = 329
	UpdateAndCreateTopicList             = 18     // 5.x
	GetClientConfig                      = 47     // 5.x
	GetTimerCheckPoint                   = 60     // 5.x
	GetTimerMetrics                      = 61     // 5.x
	PopMessage                           = 200050 // 5.x
	AckMessage                           = 200051 // 5.x
	BatchAckMessage                      = 200151 // 5.x
	PeekMessage                          = 200052 // 5.x
	ChangeMessageInvisibletime           = 200053 // 5.x
	Notification                         = 200054 // 5.x
	PollingInfo                          = 200055 // 5.x
	PopRollback                          = 200056 // 5.x
	RegisterTopicInNamesrv               = 217    // 5.x
	UpdateAndCreateSubscriptiongroupList = 225    // 5.x
	QueryTopicsByConsumer                = 343    // 5.x
	QuerySubscriptionByConsumer          = 345    // 5.x
	GetTopicConfig                       = 351    // 5.x
	GetSubscriptiongroupConfig           = 352    // 5.x
	UpdateAndGetGroupForbidden           = 353    // 5.x
	CheckRocksdbCqWriteProgress          = 354    // 5.x
	ExportRocksdbConfigToJson            = 355    // 5.x
	LitePullMessage                      = 361    // 5.x
	RecallMessage                        = 370    // 5.x
	QueryAssignment                      = 400    // 5.x
	SetMessageRequestMode                = 401    // 5.x
	GetAllMessageRequestMode             = 402    // 5.x
	UpdateAndCreateStaticTopic           = 513    // 5.x
	GetBrokerMemberGroup                 = 901    // 5.x
	AddBroker                            = 902    // 5.x
	RemoveBroker                         = 903    // 5.x
	BrokerHeartbeat                      = 904    // 5.x
	NotifyMinBrokerIdChange              = 905    // 5.x
	ExchangeBrokerHaInfo                 = 906    // 5.x
	GetBrokerHaStatus                    = 907    // 5.x
	ResetMasterFlushOffset               = 908    // 5.x
	ControllerAlterSyncStateSet          = 1001   // 5.x
	ControllerElectMaster                = 1002   // 5.x
	ControllerRegisterBroker             = 1003   // 5.x
	ControllerGetReplicaInfo             = 1004   // 5.x
	ControllerGetMetadataInfo            = 1005   // 5.x
	ControllerGetSyncStateData           = 1006   // 5.x
	GetBrokerEpochCache                  = 1007   // 5.x
	NotifyBrokerRoleChanged              = 1008   // 5.x
	UpdateControllerConfig               = 1009   // 5.x
	GetControllerConfig                  = 1010   // 5.x
	CleanBrokerData                      = 1011   // 5.x
	ControllerGetNextBrokerId            = 1012   // 5.x
	ControllerApplyBrokerId              = 1013   // 5.x
	UpdateColdDataFlowCtrConfig          = 2001   // 5.x
	RemoveColdDataFlowCtrConfig          = 2002   // 5.x
	GetColdDataFlowCtrInfo               = 2003   // 5.x
	SetCommitlogReadMode                 = 2004   // 5.x
	AuthCreateUser                       = 3001   // 5.x
	AuthUpdateUser                       = 3002   // 5.x
	AuthDeleteUser                       = 3003   // 5.x
	AuthGetUser                          = 3004   // 5.x
	AuthListUser                         = 3005   // 5.x
	AuthCreateAcl                        = 3006   // 5.x
	AuthUpdateAcl                        = 3007   // 5.x
	AuthDeleteAcl                        = 3008   // 5.x
	AuthGetAcl                           = 3009   // 5.x
	AuthListAcl                          = 3010   // 5.x
)

var requestNames = map[int32]string{
	SendMessage:                          "SEND_MESSAGE",
	PullMessage:                          "PULL_MESSAGE",
	QueryMessage:                         "QUERY_MESSAGE",
	QueryBrokerOffset:                    "QUERY_BROKER_OFFSET",
	QueryConsumerOffset:                  "QUERY_CONSUMER_OFFSET",
	UpdateConsumerOffset:                 "UPDATE_CONSUMER_OFFSET",
	UpdateAndCreateTopic:                 "UPDATE_AND_CREATE_TOPIC",
	GetAllTopicConfig:                    "GET_ALL_TOPIC_CONFIG",
	GetTopicConfigList:                   "GET_TOPIC_CONFIG_LIST",
	GetTopicNameList:                     "GET_TOPIC_NAME_LIST",
	UpdateBrokerConfig:                   "UPDATE_BROKER_CONFIG",
	GetBrokerConfig:                      "GET_BROKER_CONFIG",
	TriggerDeleteFiles:                   "TRIGGER_DELETE_FILES",
	GetBrokerRuntimeInfo:                 "GET_BROKER_RUNTIME_INFO",
	SearchOffsetByTimestamp:              "SEARCH_OFFSET_BY_TIMESTAMP",
	GetMaxOffset:                         "GET_MAX_OFFSET",
	GetMinOffset:                         "GET_MIN_OFFSET",
	GetEarliestMsgStoretime:              "GET_EARLIEST_MSG_STORETIME",
	ViewMessageById:                      "VIEW_MESSAGE_BY_ID",
	HeartBeat:                            "HEART_BEAT",
	UnregisterClient:                     "UNREGISTER_CLIENT",
	ConsumerSendMsgBack:                  "CONSUMER_SEND_MSG_BACK",
	EndTransaction:                       "END_TRANSACTION",
	GetConsumerListByGroup:               "GET_CONSUMER_LIST_BY_GROUP",
	CheckTransactionState:                "CHECK_TRANSACTION_STATE",
	NotifyConsumerIdsChanged:             "NOTIFY_CONSUMER_IDS_CHANGED",
	LockBatchMq:                          "LOCK_BATCH_MQ",
	UnlockBatchMq:                        "UNLOCK_BATCH_MQ",
	GetAllConsumerOffset:                 "GET_ALL_CONSUMER_OFFSET",
	GetAllDelayOffset:                    "GET_ALL_DELAY_OFFSET",
	CheckClientConfig:                    "CHECK_CLIENT_CONFIG",
	UpdateAndCreateAclConfig:             "UPDATE_AND_CREATE_ACL_CONFIG",
	DeleteAclConfig:                      "DELETE_ACL_CONFIG",
	GetBrokerClusterAclInfo:              "GET_BROKER_CLUSTER_ACL_INFO",
	UpdateGlobalWhiteAddrsConfig:         "UPDATE_GLOBAL_WHITE_ADDRS_CONFIG",
	PutKvConfig:                          "PUT_KV_CONFIG",
	GetKvConfig:                          "GET_KV_CONFIG",
	DeleteKvConfig:                       "DELETE_KV_CONFIG",
	RegisterBroker:                       "REGISTER_BROKER",
	UnregisterBroker:                     "UNREGISTER_BROKER",
	GetRouteinfoByTopic:                  "GET_ROUTEINFO_BY_TOPIC",
	GetBrokerClusterInfo:                 "GET_BROKER_CLUSTER_INFO",
	UpdateAndCreateSubscriptiongroup:     "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP",
	GetAllSubscriptiongroupConfig:        "GET_ALL_SUBSCRIPTIONGROUP_CONFIG",
	GetTopicStatsInfo:                    "GET_TOPIC_STATS_INFO",
	GetConsumerConnectionList:            "GET_CONSUMER_CONNECTION_LIST",
	GetProducerConnectionList:            "GET_PRODUCER_CONNECTION_LIST",
	WipeWritePermOfBroker:                "WIPE_WRITE_PERM_OF_BROKER",
	GetAllTopicListFromNameserver:        "GET_ALL_TOPIC_LIST_FROM_NAMESERVER",
	DeleteSubscriptiongroup:              "DELETE_SUBSCRIPTIONGROUP",
	GetConsumeStats:                      "GET_CONSUME_STATS",
	SuspendConsumer:                      "SUSPEND_CONSUMER",
	ResumeConsumer:                       "RESUME_CONSUMER",
	ResetConsumerOffsetInConsumer:        "RESET_CONSUMER_OFFSET_IN_CONSUMER",
	ResetConsumerOffsetInBroker:          "RESET_CONSUMER_OFFSET_IN_BROKER",
	AdjustConsumerThreadPool:             "ADJUST_CONSUMER_THREAD_POOL",
	WhoConsumeTheMessage:                 "WHO_CONSUME_THE_MESSAGE",
	DeleteTopicInBroker:                  "DELETE_TOPIC_IN_BROKER",
	DeleteTopicInNamesrv:                 "DELETE_TOPIC_IN_NAMESRV",
	GetKvlistByNamespace:                 "GET_KVLIST_BY_NAMESPACE",
	ResetConsumerClientOffset:            "RESET_CONSUMER_CLIENT_OFFSET",
	GetConsumerStatusFromClient:          "GET_CONSUMER_STATUS_FROM_CLIENT",
	InvokeBrokerToResetOffset:            "INVOKE_BROKER_TO_RESET_OFFSET",
	InvokeBrokerToGetConsumerStatus:      "INVOKE_BROKER_TO_GET_CONSUMER_STATUS",
	QueryTopicConsumeByWho:               "QUERY_TOPIC_CONSUME_BY_WHO",
	GetTopicsByCluster:                   "GET_TOPICS_BY_CLUSTER",
	RegisterFilterServer:                 "REGISTER_FILTER_SERVER",
	RegisterMessageFilterClass:           "REGISTER_MESSAGE_FILTER_CLASS",
	QueryConsumeTimeSpan:                 "QUERY_CONSUME_TIME_SPAN",
	GetSystemTopicListFromNs:             "GET_SYSTEM_TOPIC_LIST_FROM_NS",
	GetSystemTopicListFromBroker:         "GET_SYSTEM_TOPIC_LIST_FROM_BROKER",
	CleanExpiredConsumequeue:             "CLEAN_EXPIRED_CONSUMEQUEUE",
	GetConsumerRunningInfo:               "GET_CONSUMER_RUNNING_INFO",
	QueryCorrectionOffset:                "QUERY_CORRECTION_OFFSET",
	ConsumeMessageDirectly:               "CONSUME_MESSAGE_DIRECTLY",
	SendMessageV2:                        "SEND_MESSAGE_V2",
	GetUnitTopicList:                     "GET_UNIT_TOPIC_LIST",
	GetHasUnitSubTopicList:               "GET_HAS_UNIT_SUB_TOPIC_LIST",
	GetHasUnitSubUnunitTopicList:         "GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST",
	CloneGroupOffset:                     "CLONE_GROUP_OFFSET",
	ViewBrokerStatsData:                  "VIEW_BROKER_STATS_DATA",
	CleanUnusedTopic:                     "CLEAN_UNUSED_TOPIC",
	GetBrokerConsumeStats:                "GET_BROKER_CONSUME_STATS",
	UpdateNamesrvConfig:                  "UPDATE_NAMESRV_CONFIG",
	GetNamesrvConfig:                     "GET_NAMESRV_CONFIG",
	SendBatchMessage:                     "SEND_BATCH_MESSAGE",
	QueryConsumeQueue:                    "QUERY_CONSUME_QUEUE",
	QueryDataVersion:                     "QUERY_DATA_VERSION",
	ResumeCheckHalfMessage:               "RESUME_CHECK_HALF_MESSAGE",
	SendReplyMessage:                     "SEND_REPLY_MESSAGE",
	SendReplyMessageV2:                   "SEND_REPLY_MESSAGE_V2",
	PushReplyMessageToClient:             "PUSH_REPLY_MESSAGE_TO_CLIENT",
	AddWritePermOfBroker:                 "ADD_WRITE_PERM_OF_BROKER",
	GetAllProducerInfo:                   "GET_ALL_PRODUCER_INFO",
	DeleteExpiredCommitlog:               "DELETE_EXPIRED_COMMITLOG",
	UpdateAndCreateTopicList:             "UPDATE_AND_CREATE_TOPIC_LIST",
	GetClientConfig:                      "GET_CLIENT_CONFIG",
	GetTimerCheckPoint:                   "GET_TIMER_CHECK_POINT",
	GetTimerMetrics:                      "GET_TIMER_METRICS",
	PopMessage:                           "POP_MESSAGE",
	AckMessage:                           "ACK_MESSAGE",
	BatchAckMessage:                      "BATCH_ACK_MESSAGE",
	PeekMessage:                          "PEEK_MESSAGE",
	ChangeMessageInvisibletime:           "CHANGE_MESSAGE_INVISIBLETIME",
	Notification:                         "NOTIFICATION",
	PollingInfo:                          "POLLING_INFO",
	PopRollback:                          "POP_ROLLBACK",
	RegisterTopicInNamesrv:               "REGISTER_TOPIC_IN_NAMESRV",
	UpdateAndCreateSubscriptiongroupList: "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST",
	QueryTopicsByConsumer:                "QUERY_TOPICS_BY_CONSUMER",
	QuerySubscriptionByConsumer:          "QUERY_SUBSCRIPTION_BY_CONSUMER",
	GetTopicConfig:                       "GET_TOPIC_CONFIG",
	GetSubscriptiongroupConfig:           "GET_SUBSCRIPTIONGROUP_CONFIG",
	UpdateAndGetGroupForbidden:           "UPDATE_AND_GET_GROUP_FORBIDDEN",
	CheckRocksdbCqWriteProgress:          "CHECK_ROCKSDB_CQ_WRITE_PROGRESS",
	ExportRocksdbConfigToJson:            "EXPORT_ROCKSDB_CONFIG_TO_JSON",
	LitePullMessage:                      "LITE_PULL_MESSAGE",
	RecallMessage:                        "RECALL_MESSAGE",
	QueryAssignment:                      "QUERY_ASSIGNMENT",
	SetMessageRequestMode:                "SET_MESSAGE_REQUEST_MODE",
	GetAllMessageRequestMode:             "GET_ALL_MESSAGE_REQUEST_MODE",
	UpdateAndCreateStaticTopic:           "UPDATE_AND_CREATE_STATIC_TOPIC",
	GetBrokerMemberGroup:                 "GET_BROKER_MEMBER_GROUP",
	AddBroker:                            "ADD_BROKER",
	RemoveBroker:                         "REMOVE_BROKER",
	BrokerHeartbeat:                      "BROKER_HEARTBEAT",
	NotifyMinBrokerIdChange:              "NOTIFY_MIN_BROKER_ID_CHANGE",
	ExchangeBrokerHaInfo:                 "EXCHANGE_BROKER_HA_INFO",
	GetBrokerHaStatus:                    "GET_BROKER_HA_STATUS",
	ResetMasterFlushOffset:               "RESET_MASTER_FLUSH_OFFSET",
	ControllerAlterSyncStateSet:          "CONTROLLER_ALTER_SYNC_STATE_SET",
	ControllerElectMaster:                "CONTROLLER_ELECT_MASTER",
	ControllerRegisterBroker:             "CONTROLLER_REGISTER_BROKER",
	ControllerGetReplicaInfo:             "CONTROLLER_GET_REPLICA_INFO",
	ControllerGetMetadataInfo:            "CONTROLLER_GET_METADATA_INFO",
	ControllerGetSyncStateData:           "CONTROLLER_GET_SYNC_STATE_DATA",
	GetBrokerEpochCache:                  "GET_BROKER_EPOCH_CACHE",
	NotifyBrokerRoleChanged:              "NOTIFY_BROKER_ROLE_CHANGED",
	UpdateControllerConfig:               "UPDATE_CONTROLLER_CONFIG",
	GetControllerConfig:                  "GET_CONTROLLER_CONFIG",
	CleanBrokerData:                      "CLEAN_BROKER_DATA",
	ControllerGetNextBrokerId:            "CONTROLLER_GET_NEXT_BROKER_ID",
	ControllerApplyBrokerId:              "CONTROLLER_APPLY_BROKER_ID",
	UpdateColdDataFlowCtrConfig:          "UPDATE_COLD_DATA_FLOW_CTR_CONFIG",
	RemoveColdDataFlowCtrConfig:          "REMOVE_COLD_DATA_FLOW_CTR_CONFIG",
	GetColdDataFlowCtrInfo:               "GET_COLD_DATA_FLOW_CTR_INFO",
	SetCommitlogReadMode:                 "SET_COMMITLOG_READ_MODE",
	AuthCreateUser:                       "AUTH_CREATE_USER",
	AuthUpdateUser:                       "AUTH_UPDATE_USER",
	AuthDeleteUser:                       "AUTH_DELETE_USER",
	AuthGetUser:                          "AUTH_GET_USER",
	AuthListUser:                         "AUTH_LIST_USER",
	AuthCreateAcl:                        "AUTH_CREATE_ACL",
	AuthUpdateAcl:                        "AUTH_UPDATE_ACL",
	AuthDeleteAcl:                        "AUTH_DELETE_ACL",
	AuthGetAcl:                           "AUTH_GET_ACL",
	AuthListAcl:                          "AUTH_LIST_ACL",
}
