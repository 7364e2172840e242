// Package mmap holds the store's memory-mapped files: MappedFile (one
// fixed-size file mapped with syscall.Mmap) and MappedFileQueue (the ordered
// files of a CommitLog or ConsumeQueue), mirroring Java's MappedFile,
// MappedFileQueue and AllocateMappedFileService.
//
// Layout on disk:
//
//	<dir>/00000000000000000000   fileSize bytes
//	<dir>/00000000001073741824   next file: name = previous start + fileSize
//
// Each MappedFile tracks three positions relative to its start:
//
//	0 ........ flushed ........ committed ........ wrote ........ fileSize
//	            (on disk)     (== wrote, no pool)   (readable)
//
// Without transientStorePoolEnable (the only mode implemented; see TODO in
// mappedfile.go) writes go straight into the mapping, so committed == wrote.
//
// Append modes (QueueOptions), for AppendBytes/Append/WriteAt only; readers
// always use the mapping, which shares its page-cache pages with pwrite:
//   - default: store through the mapping; with WarmAhead (the CommitLog) a
//     background warmer keeps a window past the write position
//     write-faulted with MADV_POPULATE_WRITE (warm.go).
//   - PopulateAhead (the ConsumeQueue): fresh files get MADV_RANDOM, and the
//     writer write-faults the next 64 KiB with one MADV_POPULATE_WRITE when
//     it reaches them. Without it, each first store to a page of a fresh
//     sparse file is a major fault whose read-around zero-fills up to
//     read_ahead_kb (8 MiB here) around it, under the dispatcher; that was
//     the ConsumeQueue.Put hotspot of the embedded benchmark.
//   - AppendByWrite: pwrite(2) per append; no fault at all, but one system
//     call per 20-byte unit costs more than populate-ahead on a VM.
//   - SmallPages (the SYNC_FLUSH CommitLog): a fresh file is MADV_RANDOM
//     until FinishWriting (or an Append that fills it), so its page cache
//     stays in single pages and each sync writes back only the new ones,
//     not the large folios read-around would build around them.
//
// Invariants:
//   - flushed <= committed <= wrote <= fileSize for every file.
//   - Only the single writer (the CommitLog append lock holder, or the
//     ConsumeQueue dispatcher) moves wrote; readers see bytes below
//     WrotePosition() only, published with atomic stores after the copy.
//   - A reader that uses the mapping outside the writer must Hold() the file
//     and Release() it afterwards; Destroy unlinks the file at once but
//     unmaps only when the last holder releases, so a reader never faults.
//   - MappedFileQueue.files is sorted by start offset with no gaps.
//   - The allocator prepares the next file (create, size, map and, with
//     Warm, touch every page) before anyone else sees it. A prepared file
//     the queue skipped (a slave starting mid-log) or never used
//     (shutdown) is deleted.
//   - The warmer never stores into a published mapping: MADV_POPULATE_WRITE
//     faults pages in without touching bytes, so it cannot race the writer.
//     It holds the file (Hold) while it works, and stops before the queue
//     unmaps its files.
//   - A file holds no descriptor once mapped (except in AppendByWrite mode,
//     where pwrite needs one): the mapping keeps the file open, Flush is
//     msync on the mapping, LastModified and Destroy use the path.
//   - Flush syncs only [flushed, committed) with a ranged msync, so dirty,
//     warmed pages ahead of the writer are not written back early.
//   - Every file's blocks are reserved (Reserve: fallocate) before it is
//     mapped, so a store into the mapping cannot meet a full disk; a new
//     file that cannot be reserved is removed and its creation fails.
//     Stores into mappings run under Guard, which turns a fault that still
//     happens (no fallocate, file truncated underneath) into ErrFault.
//
// Usage:
//
//	q := mmap.NewMappedFileQueue(dir, 1<<30, mmap.QueueOptions{Preallocate: true}, lg)
//	if err := q.Load(); err != nil { ... }
//	mf, err := q.LastMappedFileOrCreate(0)
//	err = mf.Append(rec) // ErrNoSpace when rec does not fit
//	q.Flush(4)
package mmap
