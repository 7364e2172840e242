// Package offset is the broker's consumer offset table, mirroring Apache
// RocketMQ's ConsumerOffsetManager (broker/offset/ConsumerOffsetManager.java).
//
// The table maps "topic@group" to queueId -> next offset to consume. It is
// persisted as config/consumerOffset.json (fastjson PrettyFormat, unquoted
// integer keys, entries in ConcurrentHashMap order) and served whole to
// slaves as the GET_ALL_CONSUMER_OFFSET body:
//
//	{
//		"offsetTable":{
//			"TopicTest@cg1":{0:42,1:17
//			}
//		}
//	}
//
// QueryOffset returns -1 for an unknown queue, as Java does.
//
// # Reset marks for HA reconciliation
//
// A master and a slave can each hold offsets for the same queue (a slave
// serves reads while the master is down, or offsets are synced master ->
// slave every 10 s). Naively "the larger offset wins" when merging, which
// silently undoes an operator's reset to an earlier offset (RESET_OFFSET,
// or a consumer committing a smaller offset after a client-side reset).
//
// So every entry carries, in memory only, ResetAt: the wall-clock time in
// milliseconds of the last time its offset moved backwards (ResetOffset, or a
// CommitOffset smaller than the stored value). Merge applies the rule:
//
//	incoming.ResetAt >  local.ResetAt  -> take incoming (a newer reset)
//	incoming.ResetAt <  local.ResetAt  -> keep local    (local reset is newer)
//	equal                              -> the larger offset wins
//
// Snapshot exports entries with their marks; Merge folds another node's in;
// EntriesFromWrapper adapts a plain GET_ALL_CONSUMER_OFFSET body (no marks,
// so every local reset beats it).
//
// ResetAt is not written to consumerOffset.json (the file stays byte-equal
// to Java's); after a restart every entry has ResetAt 0. PutAll keeps Java's
// slave semantics (overwrite) and is what SlaveSynchronize uses.
//
// Invariants: one RWMutex guards the table and is never held across disk
// I/O; Persist serializes writers so the newest snapshot is written last.
package offset
