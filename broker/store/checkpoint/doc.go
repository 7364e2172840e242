// Package checkpoint holds the store's small control files (Java
// StoreCheckpoint, the abort marker and the lock file).
//
// checkpoint (4096 bytes, big-endian; 4.9.8 layout, rest of the page zero):
//
//	0  physicMsgTimestamp  i64  store time of the last flushed CommitLog record
//	8  logicsMsgTimestamp  i64  store time of the last flushed ConsumeQueue unit
//	16 indexMsgTimestamp   i64  store time covered by the last flushed IndexFile
//
// Java maps the file and forces it; here Flush writes a whole 4 KiB image to
// checkpoint.tmp, fsyncs it and renames it over checkpoint, so a crash leaves
// either the old or the new values, never a torn page.
//
// abort is an empty file created at store start and removed on orderly
// shutdown; lock is held with flock(LOCK_EX|LOCK_NB) and contains "lock".
//
// Usage:
//
//	cp, err := checkpoint.Open(cfg.CheckpointPath())
//	cp.SetPhysicMsgTimestamp(ts)
//	err = cp.Flush()
package checkpoint
