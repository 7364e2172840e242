// Package filter is the broker side of message filtering (Apache RocketMQ
// 4.9.8 broker/filter): the store's MessageFilter for TAG and SQL92
// subscriptions, and the ConsumerFilterManager that compiles and keeps one
// SQL92 expression per topic and consumer group.
//
//	pull / long-poll wake-up
//	   │
//	   ├─ IsMatchedByConsumeQueue(tagsCode)    TAG: "*" or tagsCode ∈ codeSet
//	   │                                       SQL92: true (no bloom bitmaps)
//	   └─ IsMatchedByCommitLog(record, props)  TAG: true
//	                                           SQL92: evaluate the compiled
//	                                           expression over the properties
//
// ConsumerFilterManager: topic -> group -> ConsumerFilterData{expression,
// compiled, bornTime, deadTime, clientVersion}. Heartbeats register SQL92
// subscriptions (REGISTER event); the last channel of a group leaving marks
// its data dead (UNREGISTER); a newer clientVersion (the subscription's
// subVersion) with a changed expression recompiles. Pulls look the data up
// by (topic, group) and compare clientVersion with the request's subVersion.
//
// Invariants: the class-filter mode is ignored (always matches); a message
// whose expression cannot be evaluated (conversion error, missing
// properties) does not match; with the retry variant
// (filterSupportRetry) messages of a %RETRY% subscription are evaluated
// with the filter of their original topic (property RETRY_TOPIC). Whether
// SQL92 is allowed at all (enablePropertyFilter) is the caller's check.
// The bloom-filter bitmaps of the consume-queue extension are not built, so
// SQL92 is always decided on the commit log.
package filter
