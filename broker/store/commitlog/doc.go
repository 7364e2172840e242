// Package commitlog is the store's append-only message log (Java CommitLog
// with DefaultAppendMessageCallback, FlushRealTimeService and
// GroupCommitService). Recovery is not here: package store walks and checks
// the records (its recover.go, validator.go and record.go, the only record
// checker) and hands the end it found to SetRecoveredEnd.
//
// Record layout: see package internal/message. Files: see package mmap;
// one file per FileSize bytes, named by start offset. A record never spans
// files: when record+8 bytes do not fit, an 8-byte blank record
// {TOTALSIZE = bytes left, MAGIC = 0xCBD43194} closes the file and the
// record starts the next one.
//
// Append path (PutMessage / PutMessageAsync and the batch forms):
//
//	outside the lock: DELAY rewrite, limits, record size (message.RecordSize)
//	                  and BODYCRC
//	under putMu:      store time -> pick/roll file -> assign queue offset,
//	                  physical offset -> render each record straight into the
//	                  mapping (message.PutRecord) -> bump topicQueueTable ->
//	                  publish the write position
//	after:            msgId string -> SYNC_FLUSH: queue a group-commit
//	                  request; SYNC_MASTER: ask the ReplicaWaiter -> result
//
// The lock covers position bookkeeping and one copy of the record bytes;
// there is no intermediate encode buffer. File creation stays off the lock:
// the mmap allocator creates and maps the next file in the background
// (Start also prepares the first or next file); after each append the
// writer asks the queue's warmer to keep WarmAhead bytes (4 MiB) past the
// write position write-faulted, so appends seldom take first-touch page
// faults, and memory and disk grow with the written bytes plus one window,
// not a file at a time. A writer that outruns the warmer faults the pages
// itself. warmMapedFileEnable replaces the window with Java's warm-up of
// every whole file.
//
// Waiting: PutMessageAsync never blocks; done runs when the group commit
// covers the record, or FLUSH_DISK_TIMEOUT / FLUSH_SLAVE_TIMEOUT after
// syncFlushTimeout. PutMessage waits on a pooled waiter (no per-call
// channel, closure or timer) and returns at once under ASYNC_FLUSH without
// SYNC_MASTER; the only allocation per put is the msgId string.
//
// Group commit (groupcommit.go, Java GroupCommitService): requests are
// values in one slice; the service goroutine takes the whole slice, flushes
// once up to the highest offset (one ranged msync per file touched) and
// completes every request covered. One watchdog timer armed for the oldest
// pending deadline times requests out, even while a flush is stuck; a
// request completes exactly once.
//
// Queue offsets: topicQueueTable ("topic-queueId" -> next offset) is owned
// by the append lock. The store sets it after recovery (SetTopicQueueTable)
// from the consume queues, as Java's recoverTopicQueueTable does. Transaction
// PREPARED / ROLLBACK records get queue offset 0 and do not advance it.
//
// Reads hand out Buffers that hold the mapped file until Release, so a file
// deleted meanwhile stays mapped (see mmap). DispatchRequest is the record
// summary the store's dispatchers consume; the store builds it.
//
// Recovery: after Load every file counts as full; the store's recovery
// finds the end of the valid records and calls SetRecoveredEnd(end), which
// sets the flushed/committed position, zeroes the stale tail of the last
// file and deletes later files. Truncate is the running-log counterpart
// for a slave whose tail diverged from its master (HA).
//
// HA hook: SetReplicaWaiter(ReplicaWaiter) — IsSlaveOK(end) and
// WaitReplicated(end, timeout, done). Slaves use AppendData and Truncate.
//
// Usage:
//
//	cl, _ := commitlog.New(commitlog.DefaultConfig(dir), cp, lg)
//	_ = cl.Load()
//	_ = cl.SetRecoveredEnd(end) // end found by the store's recovery
//	cl.Start()
//	res := cl.PutMessage(m) // res.Status, res.Append.WroteOffset, MsgID ...
//	_ = cl.Shutdown(ctx)
package commitlog
