// Package commitlog is the store's append-only message log (Java CommitLog
// with DefaultAppendMessageCallback, FlushRealTimeService, GroupCommitService
// and the recovery walks).
//
// Record layout: see package internal/message. Files: see package mmap;
// one file per FileSize bytes, named by start offset. A record never spans
// files: when record+8 bytes do not fit, an 8-byte blank record
// {TOTALSIZE = bytes left, MAGIC = 0xCBD43194} closes the file and the
// record starts the next one.
//
// Append path (PutMessageAsync / PutMessagesAsync):
//
//	encode (outside the lock) -> lock -> pick/roll file -> copy bytes ->
//	patch queueOffset, physicalOffset, storeTimestamp -> bump topicQueueTable
//	-> unlock -> SYNC_FLUSH: queue a group-commit request; SYNC_MASTER: ask
//	the ReplicaWaiter -> done(result)
//
// Only the memory copy happens under the lock (file creation too when the
// background allocator has not prepared the next file yet). Waiting for the
// flush or the slave never blocks the appending goroutine: done is called
// when the group commit covers the record, or FLUSH_DISK_TIMEOUT /
// FLUSH_SLAVE_TIMEOUT after syncFlushTimeout. PutMessage is the blocking
// wrapper.
//
// Queue offsets: topicQueueTable ("topic-queueId" -> next offset) is owned
// by the append lock. The store sets it after recovery (SetTopicQueueTable)
// from the consume queues, as Java's recoverTopicQueueTable does. Transaction
// PREPARED / ROLLBACK records get queue offset 0 and do not advance it.
//
// Reads hand out Buffers that hold the mapped file until Release, so a file
// deleted meanwhile stays mapped (see mmap). Scan walks records for the
// dispatcher; CheckMessageAndReturnSize validates one record.
//
// Recovery: RecoverNormally (no abort file) validates from the 3rd-last
// file; RecoverAbnormally starts at the newest file whose first record is
// older than the checkpoint's safe time. Both stop at the first invalid
// record (bad magic, size, CRC, or physical offset field not equal to its
// position), zero the stale tail and delete later files. Stricter than Java:
// the physical-offset check refuses stale records left behind a truncation.
//
// HA hook: SetReplicaWaiter(ReplicaWaiter) — IsSlaveOK(end) and
// WaitReplicated(end, timeout, done). Slaves use AppendData and Truncate.
//
// Usage:
//
//	cl, _ := commitlog.New(commitlog.DefaultConfig(dir), cp, lg)
//	_ = cl.Load()
//	_, _ = cl.RecoverNormally()
//	cl.Start()
//	res := cl.PutMessage(m) // res.Status, res.Append.WroteOffset, MsgID ...
//	_ = cl.Shutdown(ctx)
package commitlog
