// Package epoch is the epoch file of controller mode, compatible with
// Apache RocketMQ 5.x's EpochFileCache (store/ha/autoswitch) and its
// CheckpointFile format: a 5.x store directory's epochFileCheckpoint opens
// here and ours opens there.
//
// Each entry says "from StartOffset on, the CommitLog was written by the
// master elected in Epoch". An entry ends where the next one starts; the
// last one is open (EndOffset = math.MaxInt64 in memory, never stored).
//
// Disk format (<storePathRootDir>/epochFileCheckpoint, UTF-8 text, one
// item per line, "\n" as Java's line separator on Linux):
//
//	2                 number of entries
//	1234567890        CRC32 (IEEE) of the entry lines, each with its "\n",
//	                  & 0x7fffffff as Java's UtilAll.crc32; 0 = not checked
//	1-0               epoch "-" startOffset
//	2-4096
//
// Java writes a copy of the previous content to <file>.bak before
// rewriting the file in place and reads the .bak when the file is missing,
// empty or unreadable. File keeps that .bak and reads it the same way, but
// writes each file as temp file + fsync + rename + directory fsync, so a
// crash leaves either the old or the new content.
//
// Invariants: entries are sorted by strictly increasing epoch and start
// offset (Append refuses anything else); a file is rewritten whole on
// every change; a reader never panics on any input (FuzzEpochFileParse).
//
// Usage:
//
//	f, err := epoch.Open(cfg.EpochFilePath())
//	err = f.Append(epoch.Entry{Epoch: 3, StartOffset: st.MaxPhyOffset()})
//	point := epoch.ConsistentPoint(f.Entries(), localMax, masterEntries, masterMax)
package epoch
