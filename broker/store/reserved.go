package store

// storedFraction is the store's default disk-usage probe: the partition's
// used fraction less the blocks the store reserved ahead of its writes
// (fallocate of whole CommitLog and index files, see mmap.Reserve). Java's
// files are sparse, so its diskMaxUsedSpaceRatio and disk-full mark see
// only the bytes stored; this keeps the same thresholds meaning the same
// number of messages, rather than refusing up to two CommitLog files early.
func (s *DefaultMessageStore) storedFraction(path string) float64 {
	return diskUsedFractionLess(path, s.reservedAheadOn)
}

// reservedAheadOn is the bytes reserved but unwritten by this store's
// CommitLog and index files on device dev.
func (s *DefaultMessageStore) reservedAheadOn(dev uint64) int64 {
	var n int64
	if s.cl != nil {
		if d, ok := deviceOf(s.cfg.CommitLogDir()); ok && d == dev {
			n += s.cl.MappedFileQueue().ReservedAhead()
		}
	}
	if s.idx != nil {
		if d, ok := deviceOf(s.cfg.IndexDir()); ok && d == dev {
			n += s.idx.ReservedAhead()
		}
	}
	return n
}
