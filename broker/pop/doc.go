// Package pop holds the broker-independent parts of 5.x POP consumption
// (Apache RocketMQ 5.3.x broker/processor Pop*, ExtraInfoUtil, KeyBuilder,
// store/pop, ConsumerOrderInfoManager, QueryAssignmentProcessor's
// strategies): the receipt-handle strings, the revive-log records and their
// pairing, the FIFO table, the long-polling table and the assignment
// arithmetic. It has no goroutines and does no I/O; the broker package
// drives it (broker/pop*.go, docs/pop.md).
//
// Receipt handle (POP_CK property, the ack's extraInfo), space separated:
//
//	ckStartOffset popTime invisibleTime reviveQid retry brokerName queueId queueOffset
//	retry: 0 topic, 1 %RETRY%<group>_<topic>, 2 %RETRY%<group>+<topic>; reviveQid 999: FIFO
//
// Revive log (topic rmq_sys_REVIVE_LOG_<cluster>, queue = reviveQid):
//
//	tag ck   {"bm":0,"bn":"broker-a","c":"group","d":[0,1,2],"it":60000,"n":3,"pt":…,"q":0,"reviveTime":…,"ro":0,"so":10,"t":"T"}
//	tag ack  {"ao":11,"bn":"broker-a","c":"group","pt":…,"q":0,"so":10,"t":"T"}
//	tag bAck {"ao":-1,"aol":[10,12],…}
//
// An ack matches the checkpoint with the same topic, group, broker, queue,
// start offset and pop time. ReviveQueue invariants: records are fed in
// queue order; a checkpoint leaves the table once every offset is acked or
// once Settle is called after its unacked messages were re-put; Commit never
// passes an unsettled checkpoint, so re-reading from it after a restart
// loses nothing.
//
// Usage (the broker's revive service, per revive queue and pass):
//
//	q := pop.NewReviveQueue(qid, committed)
//	for _, r := range recordsFrom(q.Next()) { q.Feed(r.offset, r.tag, r.body) }
//	for _, d := range q.Due(now) { if reputAll(d.Checkpoint, d.Offsets) { q.Settle(&d.Checkpoint) } }
//	commit(q.Commit())
package pop
