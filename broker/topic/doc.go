// Package topic is the broker's topic table, mirroring Apache RocketMQ's
// TopicConfigManager (broker/topic/TopicConfigManager.java) and
// TopicValidator (common/topic/TopicValidator.java).
//
// At construction the manager holds the system topics a 4.9.8 broker
// creates at start (queue numbers and perms as Java):
//
//	SELF_TEST_TOPIC              1/1    RW
//	TBW102                       8/8    RW|INHERIT   only with autoCreateTopicEnable (defaultTopicQueueNums)
//	BenchmarkTest             1024/1024 RW
//	<brokerClusterName>         16/16   INHERIT (+RW with clusterTopicEnable)
//	<brokerName>                 1/1    INHERIT (+RW with brokerTopicEnable)
//	OFFSET_MOVED_EVENT           1/1    RW
//	SCHEDULE_TOPIC_XXXX         18/18   RW
//	<msgTraceTopicName>          1/1    RW          only with traceTopicEnable
//	<brokerClusterName>_REPLY_TOPIC 1/1 RW
//
// then Load merges config/topics.json over them. topics.json is the
// TopicConfigSerializeWrapper in fastjson PrettyFormat, entries in the order
// of Java's ConcurrentHashMap(1024) (bucket of String.hashCode in a
// 2048-slot table, insertion order within a bucket):
//
//	{
//		"dataVersion":{
//			"counter":8,
//			"timestamp":1795969607556
//		},
//		"topicConfigTable":{
//			"SCHEDULE_TOPIC_XXXX":{
//				"order":false,
//				...
//			}
//		}
//	}
//
// Every change bumps the DataVersion, is appended to topics.json.journal
// before the method returns (configtable.Journal: survives a crash of the
// process, as Java's unsynced rewrite; Load replays it) and asks for
// topics.json to be rewritten: by a configtable.Persister goroutine between StartPersister and
// StopPersister (coalesced),
// synchronously otherwise. The methods after which
// Java calls registerBrokerAll (auto-creation on send, retry-topic creation,
// unit flag changes) also report it, by their created result and by the
// change listener, so the broker re-registers with the name servers.
//
// Invariants: one mutex guards table, order and version; it is never held
// across disk I/O or the change listener. The manager's only goroutine is
// its persister's, started by StartPersister and ended by StopPersister.
package topic
