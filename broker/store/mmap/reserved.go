package mmap

// ReservedAhead is how many bytes of this queue's files are reserved on
// disk (Reserve) but not written yet: the tail of the last file past its
// write position and every file the allocator has prepared ahead. The
// store subtracts it from the partition's used space, so that the
// disk-usage ratios (diskMaxUsedSpaceRatio, the disk-full mark) count what
// is stored, as with Java's sparse files, not what is reserved. 0 for a
// Sparse queue.
func (q *MappedFileQueue) ReservedAhead() int64 {
	if q.opts.Sparse {
		return 0
	}
	var n int64
	if last := q.LastMappedFile(); last != nil && last.ReserveErr() == nil {
		n += int64(q.fileSize) - int64(min(int(last.WrotePosition()), q.fileSize))
	}
	if q.alloc != nil {
		n += int64(q.alloc.preparedCount()) * int64(q.fileSize)
	}
	return n
}

// preparedCount is the number of files allocated ahead and not handed out.
func (a *allocator) preparedCount() int {
	if !a.reserve {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.pending)
}
