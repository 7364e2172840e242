// Package index is the message key index of the store (Java
// org.apache.rocketmq.store.index: IndexService, IndexFile, IndexHeader).
//
// Files live in <storePathRootDir>/index, named by their creation time
// (yyyyMMddHHmmssSSS, local time). Each file is a fixed-size hash table with
// chained entries, big-endian:
//
//	+----------------------------------------------------------+
//	| header 40 B: beginTimestamp i64 | endTimestamp i64 |      |
//	|   beginPhyOffset i64 | endPhyOffset i64 |                 |
//	|   hashSlotCount i32 | indexCount i32 (starts at 1)        |
//	+----------------------------------------------------------+
//	| hashSlotNum x i32: number of the newest entry of the slot |
//	+----------------------------------------------------------+
//	| indexNum x 20 B entries (entry n at 40+slots*4+n*20):     |
//	|   keyHash i32 | phyOffset i64 | timeDiff i32 (seconds     |
//	|   since beginTimestamp) | prevIndex i32 (0 = end)          |
//	+----------------------------------------------------------+
//
// keyHash = |String.hashCode("topic#key")| (MIN_VALUE -> 0), slot =
// keyHash % hashSlotNum. Each record is indexed under its UNIQ_KEY and every
// space-separated KEYS token; rollback records are not indexed. A full file
// (indexCount >= indexNum) rolls to a new one, which is flushed in the
// background and its end timestamp recorded as the checkpoint's
// indexMsgTimestamp. After an abnormal exit, files whose end timestamp is
// after that checkpoint value are destroyed (their content may be torn) and
// rebuilt by re-dispatching the CommitLog.
//
// Truncate(offset) (HA truncation) undoes the entries at and after a
// CommitLog offset, newest first, so the files end up byte for byte as if
// those records had never been indexed.
//
// Invariants: the Service lock guards the file list and every file's
// content; there is one writer (the store's dispatcher); queries only read.
// Records whose CommitLog offset is below the last file's endPhyOffset are
// skipped, so re-dispatching is idempotent.
//
// Usage:
//
//	s := index.NewService(index.Config{Dir: dir, HashSlotNum: 5000000, IndexNum: 20000000}, ckpt, lg)
//	_ = s.Load(true, ckpt.IndexMsgTimestamp())
//	_ = s.BuildIndex(&index.Request{Topic: "T", Keys: "k1 k2", CommitLogOffset: off, StoreTimestamp: ts})
//	res := s.QueryOffset("T", "k1", 32, 0, math.MaxInt64)
package index
