// Package subscription is the broker's subscription group table, mirroring
// Apache RocketMQ's SubscriptionGroupManager
// (broker/subscription/SubscriptionGroupManager.java).
//
// The table maps a consumer group name to its SubscriptionGroupConfig
// (consumeEnable, consumeFromMinEnable, consumeBroadcastEnable,
// retryQueueNums, retryMaxTimes, brokerId, whichBrokerWhenConsumeSlowly,
// notifyConsumerIdsChangedEnable). It starts with the groups Java creates in
// init() (TOOLS_CONSUMER, FILTERSRV_CONSUMER, SELF_TEST_C_GROUP,
// CID_ONS-HTTP-PROXY, CID_ONSAPI_PULL, CID_ONSAPI_PERMISSION,
// CID_ONSAPI_OWNER), then config/subscriptionGroup.json is merged over them.
// Unknown groups are created on first use when autoCreateSubscriptionGroup
// is on, or always for system groups (prefix CID_RMQ_SYS_).
//
// subscriptionGroup.json (fastjson PrettyFormat, ConcurrentHashMap order):
//
//	{
//		"dataVersion":{
//			"counter":1,
//			"timestamp":1795969596884
//		},
//		"subscriptionGroupTable":{
//			"SELF_TEST_C_GROUP":{
//				"brokerId":0,
//				...
//			}
//		}
//	}
//
// Every change bumps the DataVersion (counter+1, timestamp=now) and persists,
// except DisableConsume, which like Java only bumps the version. A change
// is appended to subscriptionGroup.json.journal before the method returns
// (configtable.Journal: survives a crash of the process, as Java's
// unsynced rewrite; Load replays it). The full write is coalesced by a configtable.Persister goroutine between StartPersister
// and StopPersister and
// synchronous otherwise.
//
// Invariants: one mutex guards table and version and is never held across
// disk I/O; Persist serializes writers so the newest snapshot lands last.
package subscription
