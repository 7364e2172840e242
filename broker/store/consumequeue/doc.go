// Package consumequeue is the per-queue logical index of the CommitLog
// (Java org.apache.rocketmq.store.ConsumeQueue): one MappedFileQueue per
// topic and queue id, under
//
//	<storePathRootDir>/consumequeue/<topic>/<queueId>/<20-digit byte offset>
//
// Each file holds mappedFileSizeConsumeQueue bytes (300,000 units by
// default) of fixed 20-byte units, big-endian:
//
//	+-----------------------+---------------+------------------------+
//	| commitLogOffset  i64  | size     i32  | tagsCode          i64  |
//	+-----------------------+---------------+------------------------+
//	  0                       8               12                     20
//
// The logical (queue) offset of a unit is its byte position / 20. The unit
// {0, Integer.MAX_VALUE, 0} is a blank that fills the positions before the
// first unit written into a brand-new queue whose first offset is > 0.
//
// Units are appended through the mapping with mmap.QueueOptions.
// PopulateAhead (no fault read-around on fresh files, pages pre-faulted 64
// KiB at a time), so the dispatcher does not trap on every new page; the
// bytes on disk are the same as Java's.
//
// Invariants:
//   - Only one goroutine writes a queue at a time (the store's dispatcher, or
//     recovery/cleanup, serialised by the queue's write mutex); readers take
//     a Hold on the mapped file through Units and never see bytes beyond the
//     file's wrote position.
//   - A unit is valid when commitLogOffset >= 0 and size > 0; recovery stops
//     at the first invalid unit and truncates everything after it.
//   - Put ignores units already present (their CommitLog end is not beyond
//     MaxPhysicOffset, or their queue offset is below the write position), so
//     the CommitLog can be re-dispatched after a crash.
//   - MinOffsetInQueue <= MaxOffsetInQueue; MaxOffsetInQueue is the next
//     queue offset to be assigned.
//
// Usage:
//
//	cq := consumequeue.New(filepath.Join(root, "consumequeue"), "TopicTest", 0, 6_000_000, lg)
//	_ = cq.Load()
//	cq.Recover()
//	ok, err := cq.Put(phyOffset, size, tagsCode, queueOffset)
//	if u := cq.Units(offset); u != nil {
//		defer u.Release()
//		phy, size, tags := u.At(0)
//	}
package consumequeue
