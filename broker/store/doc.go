// Package store is the broker's message store: the MessageStore contract
// the broker codes against and DefaultMessageStore, which mirrors Java
// org.apache.rocketmq.store.DefaultMessageStore (4.9.8) on top of the
// subpackages commitlog (append-only log), consumequeue (per-queue units),
// index (key index), checkpoint and mmap. config.go holds
// MessageStoreConfig.
//
// Directory layout (storePathRootDir):
//
//	commitlog/<20-digit offset>               records (see internal/message)
//	consumequeue/<topic>/<queueId>/<offset>   20-byte units (see consumequeue)
//	index/<yyyyMMddHHmmssSSS>                 key index files (see index)
//	checkpoint                                physic/logics/index timestamps
//	abort                                     exists while the store runs
//	lock                                      flock'ed while the store is open
//
// Data flow:
//
//	PutMessage -> CommitLog append (caller's goroutine, under the append lock)
//	           -> wake reput; flush / replica wait completes asynchronously
//	reput goroutine: CommitLog.GetData(reputFromOffset) -> parseRecord (in place,
//	           record.go) -> ConsumeQueue.Put + index.BuildIndex -> MessageArrivingListener
//	GetMessage -> ConsumeQueue.Units(offset) -> filter -> CommitLog.GetMessage
//	           -> records copied into GetMessageResult.Body
//
// Goroutines (each an internal/service owned by the store, stopped in
// reverse order at Shutdown): reputMessageService (woken by appends, 10 ms
// fallback), flushConsumeQueueService (flushIntervalConsumeQueue),
// storeStatsService (1 s samples), diskCheckService (10 s),
// cleanFilesService (cleanResourceInterval after a 60 s delay); plus the
// CommitLog's flush service and the index's background flush of full files.
//
// Recovery (Open, recover.go; the only CommitLog recovery in the tree:
// package commitlog just takes the end found, SetRecoveredEnd): abort file
// present => abnormal. Consume queues recover first (last valid unit),
// then the CommitLog is walked record by record with parseRecord
// (record.go), which checks magic, sizes, the physical offset field
// against the record's position (stricter than Java: stale records left
// behind a truncation are refused) and, with checkCRCOnRecover, the body
// CRC; a file leads on into the next only when it ends with a blank record
// or at its last byte. Normal (Java recoverNormally): validate from the
// 3rd-last file. Abnormal (Java CommitLog.recoverAbnormally): one pass from
// the newest file whose first record is not newer than the checkpoint's
// min timestamp validates every record and dispatches it, skipping records
// its queue and the index already hold: scanner goroutines
// (recover_scan.go, one per core up to 4, file j on scanner j mod k)
// fault each file in, check its records and parse them into dispatch
// requests, handed in batches to the recovery goroutine, which writes the
// consume-queue units and index entries one record at a time in CommitLog
// order, as the dispatcher does. Index files newer than the checkpoint's
// index timestamp are dropped before (unmapped at once, deleted on the
// index's goroutine during the scan; recovery waits for it). Each step is
// logged with its time ("store recovery phase"). The CommitLog is cut after the last valid record
// (stale tail zeroed, later files deleted) and queue units beyond it are
// truncated. Start dispatches from max(consume queues' max physical
// offset, CommitLog min offset) until the dispatcher has caught up, and
// rebuilds the CommitLog's topic queue table from the queues.
//
// Invariants:
//   - Only the reput goroutine (or Open/Start before it runs) writes consume
//     queues and the index; each queue serialises its writers with a mutex.
//   - cqMu guards the table of queues only, never I/O.
//   - Readers hold mapped files while reading (mmap refcounts); results
//     handed to callers are copies and need no release, except
//     GetCommitLogData's Buffer.
//   - Every write is refused with SERVICE_NOT_AVAILABLE on a slave (the live
//     role, role.go: brokerRole until SetBrokerRole switches it), while
//     fenced, before Start, after Shutdown, and while the disk-full (or
//     queue/index error) flag is set; OS_PAGECACHE_BUSY when an append
//     holds the lock longer than osPageCacheBusyTimeOutMills.
//   - A dispatch pass and a CommitLog truncation never overlap
//     (reputService.mu): no unit or reput offset survives beyond a cut.
//   - The dispatcher never skips a record whose consume-queue unit cannot
//     be written: it retries it (dispatch_stall.go); after 30 failures the
//     queue error flag refuses writes until a retry succeeds.
//
// Known differences from Java: the consume-queue extension
// (enableConsumeQueueExt), LMQ/multi-dispatch, DLedger and the transient
// store pool are not implemented. Like Java 4.9.8, a lookup of an unknown queue creates an
// empty one, so GetMessage never reports NO_MATCHED_LOGIC_QUEUE.
//
// Usage:
//
//	cfg := store.NewMessageStoreConfig()
//	cfg.StorePathRootDir = dir
//	s, err := store.Open(cfg, lg, store.WithMessageArrivingListener(holdService))
//	if err != nil { ... }
//	if err := s.Start(); err != nil { ... }
//	res := s.PutMessage(msg)
//	got := s.GetMessage(group, topic, queueID, offset, 32, filter)
//	_ = s.Shutdown(ctx)
package store
