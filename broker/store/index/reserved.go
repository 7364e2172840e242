package index

// ReservedAhead is how many bytes of the index files are reserved on disk
// but hold no entry yet: the unused entry area of the last file (the hash
// slots are spread over the whole slot area by the first keys, so they are
// counted as written).
func (s *Service) ReservedAhead() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.files) == 0 {
		return 0
	}
	last := s.files[len(s.files)-1]
	if last.reserveErr != nil {
		return 0
	}
	return int64(max(last.indexNum-int(last.hdr.IndexCount), 0)) * EntrySize
}
