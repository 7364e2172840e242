package store

import "strings"

// DiskUsageRatios reports the used fraction (0..1, -1 when unknown) of the
// partitions holding the CommitLog, the consume queues and the index, as
// SendMessageProcessor.diskUtil prints them in a disk-full refusal. The
// CommitLog figure is the lowest over its ';'-separated paths, starting
// from 100 as Java does. The probe is the one retention uses (WithDiskUsage).
func (s *DefaultMessageStore) DiskUsageRatios() (commitLog, consumeQueue, index float64) {
	commitLog = 100
	for _, p := range commitLogPaths(s.cfg.CommitLogDir()) {
		commitLog = min(commitLog, s.opts.diskUsage(p))
	}
	return commitLog, s.opts.diskUsage(s.cfg.ConsumeQueueDir()), s.opts.diskUsage(s.cfg.IndexDir())
}

// commitLogPaths splits storePathCommitLog as Java's
// storePath.trim().split(";") does: trailing empty parts are dropped, the
// others (even empty ones) kept.
func commitLogPaths(path string) []string {
	parts := strings.Split(strings.TrimSpace(path), ";")
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
