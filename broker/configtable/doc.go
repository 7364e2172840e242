// Package configtable is the in-memory half shared by the broker's two
// versioned JSON tables, TopicConfigManager (topics.json) and
// SubscriptionGroupManager (subscriptionGroup.json): a name → config map
// with its DataVersion, plus what decides fastjson's write order of the
// Java ConcurrentHashMap behind it — the insertion order (bucket
// tie-breaks) and the most entries the map ever held (Java tables grow and
// never shrink).
//
// Invariants: Order lists exactly the keys of Entries, each once, in
// insertion order; Peak >= len(Entries). A Table is not safe for
// concurrent use: its owner guards it with its own mutex.
//
// Journal makes each change durable before it is answered: one unsynced
// appended line per change (Java's page-cache guarantee at O(1) cost),
// rotated by every full rewrite (WriteRotating) and replayed over the file
// on load (Replay, Apply). Invariant: after a full write of a snapshot
// taken after Rotate, the file plus the records of both journals whose
// counter exceeds the file's give back the table.
//
// Persister is the write half: one goroutine per file that coalesces the
// writes asked for by Request (at most one per PersistInterval) and lets
// WaitPersisted callers share one write (group commit). Invariant: when
// WaitPersisted returns nil, a write that began after every earlier
// Request has completed.
//
//	var t configtable.Table[body.TopicConfig]
//	t.Put("TopicTest", tc)
//	t.NextVersion(time.Now().UnixMilli())
//	order := t.JavaOrder() // the order GET_ALL_TOPIC_CONFIG writes
package configtable
