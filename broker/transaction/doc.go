// Package transaction is the broker side of RocketMQ transactional messages
// (Apache 4.9.8 broker/transaction and broker/transaction/queue):
// TransactionalMessageBridge (Bridge), TransactionalMessageServiceImpl
// (Service), DefaultTransactionalMessageCheckListener (CheckListener) and
// TransactionalMessageCheckService (NewCheckService).
//
// Topics and records (all queue 0 unless the half topic gets more read
// queues):
//
//	RMQ_SYS_TRANS_HALF_TOPIC      prepared ("half") messages; REAL_TOPIC/REAL_QID
//	                              name their destination (written by the send path)
//	RMQ_SYS_TRANS_OP_HALF_TOPIC   one op record per resolved half message:
//	                              tags "d", body = the half's queue offset in decimal,
//	                              properties "WAIT=true<sep>TAGS=d", born/store host =
//	                              the broker (brokerIP1:listenPort)
//	TRANS_CHECK_MAX_TIME_TOPIC    half messages checked transactionCheckMax times
//	CID_RMQ_SYS_TRANS             the consumer group whose offsets (consumerOffset.json)
//	                              say how far the check service has scanned both topics
//
// Check pass (every transactionCheckInterval, on a master only), per half
// queue: read the op records from the op offset into removeMap (half offset →
// op offset); walk the half queue from its offset: a half with an op record is
// done; one checked transactionCheckMax times (TRANSACTION_CHECK_TIMES) or
// older than fileReservedTime is discarded; one younger than
// transactionTimeOut (or its CHECK_IMMUNITY_TIME_IN_SECONDS) stops the walk;
// otherwise it is re-put at the end of the half queue with
// TRANSACTION_CHECK_TIMES incremented and CHECK_TRANSACTION_STATE goes to a
// producer of its group, naming the re-put copy. Both offsets then advance
// past what is settled.
//
// Invariants: the check pass runs on one goroutine (the service) and
// honours its context between half messages; records are written with the
// store's blocking PutMessage; properties strings are rendered in
// java.util.HashMap order (props.go) so records are byte-equal to Java's
// (tested against the golden store).
//
// Known difference: Java writes the bridge's records (op, re-put, immunity
// copy, discard) with waitStoreMsgOK=false set after their properties string
// was rendered (the string keeps WAIT=true), so they count as stored once
// appended. Here the puts wait for the flush / slave the store's mode
// requires and only PUT_OK counts (bridge.go put). A re-put answered
// FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT or SLAVE_NOT_AVAILABLE is written
// but unconfirmed: the walk stops at its half without asking the producer
// or moving the scan offset, and the next pass waits for that same copy
// (Service.pending, in memory) instead of writing another; once confirmed,
// the producer is asked and the walk ends at the copy. An unconfirmed op
// record makes DeletePrepareMessage report false.
//
// Usage:
//
//	br := transaction.NewBridge(transaction.Options{Store: st, Offsets: offs, Topics: topics, StoreHost: host})
//	svc := transaction.NewService(br)
//	l := transaction.NewCheckListener(br, sendCheck)
//	s := transaction.NewCheckService(svc, l, time.Minute, cfgFn, lg)
//	s.Start()
//	defer s.Stop(ctx)
package transaction
