package index

// Truncation: a slave that cuts its CommitLog back to the master's offset
// (HA) removes the index entries of the records it dropped. Java 4.9.8 has
// no counterpart: its truncateDirtyFiles leaves the index alone, so a key
// query can return offsets that no longer hold that record.

import (
	"encoding/binary"
	"errors"

	"go.uber.org/zap"
)

// Truncate removes every entry pointing at a CommitLog offset at or after
// offset, so queries by key or time never return them and the records
// written there next are indexed again.
//
// Entries are appended in CommitLog order (BuildIndex skips records below
// the last file's endPhyOffset), so the doomed entries are the newest ones:
// files holding only such entries are deleted (the oldest file is emptied
// instead), and in the file holding the cut the insertions are undone
// newest first. Undoing in reverse order finds each entry at the head of
// its slot's chain, so the slot goes back to the entry's predecessor and
// every surviving chain is exactly as it was before the entry was written.
func (s *Service) Truncate(offset int64) error {
	s.mu.Lock()
	var doomed []*File
	for n := len(s.files); n > 1 && s.files[n-1].wholeFileFrom(offset); n-- {
		doomed = append(doomed, s.files[n-1])
		s.files = s.files[:n-1]
	}
	if n := len(s.files); n > 0 {
		var prevEndPhy, prevEndTS int64
		if n > 1 {
			prevEndPhy, prevEndTS = s.files[n-2].hdr.EndPhyOffset, s.files[n-2].hdr.EndTimestamp
		}
		if removed := s.files[n-1].truncate(offset, prevEndPhy, prevEndTS); removed > 0 {
			s.lg.Info("index entries truncated", zap.String("file", s.files[n-1].path),
				zap.Int("entries", removed), zap.Int64("commitLogOffset", offset))
		}
	}
	s.mu.Unlock()

	// A background flush must not race a file we delete. Waiting after the
	// unlock covers a flush started by a roll just before the lock was
	// taken; none can start on a doomed file now that it left s.files.
	s.flushWG.Wait()
	var err error
	for _, f := range doomed { // no file I/O under the lock
		s.lg.Info("index file truncated away", zap.String("file", f.path), zap.Int64("commitLogOffset", offset))
		err = errors.Join(err, f.destroy())
	}
	return err
}

// wholeFileFrom reports whether every entry of the file points at or after
// offset (an empty file counts when it starts there).
func (x *File) wholeFileFrom(offset int64) bool {
	if x.hdr.IndexCount <= 1 {
		return x.hdr.BeginPhyOffset >= offset
	}
	return x.entryPhy(1) >= offset
}

func (x *File) entryPhy(n int32) int64 {
	return int64(binary.BigEndian.Uint64(x.data[x.entryPos(n)+4:]))
}

// truncate undoes the entries at and after offset, newest first, and
// rewrites the header from the newest survivor (or, when none is left, from
// the previous file's end, as a new file starts). It returns how many
// entries went.
func (x *File) truncate(offset, prevEndPhy, prevEndTS int64) int {
	be := binary.BigEndian
	count := min(x.hdr.IndexCount, int32(x.indexNum))
	n := count
	for n > 1 && x.entryPhy(n-1) >= offset {
		n--
		pos := x.entryPos(n)
		keyHash := int32(be.Uint32(x.data[pos:]))
		prev := int32(be.Uint32(x.data[pos+16:]))
		if keyHash < 0 {
			keyHash = 0 // never written by putKey; keep the slot index in range
		}
		slot := x.slotPos(keyHash)
		if int32(be.Uint32(x.data[slot:])) == n {
			if prev <= invalidIndex || prev >= n {
				prev = invalidIndex
				x.hdr.HashSlotCount--
			}
			be.PutUint32(x.data[slot:], uint32(prev))
		}
		clear(x.data[pos : pos+EntrySize])
	}
	x.hdr.IndexCount = n
	if n > 1 {
		last := x.entryPos(n - 1)
		x.hdr.EndPhyOffset = int64(be.Uint64(x.data[last+4:]))
		x.hdr.EndTimestamp = x.hdr.BeginTimestamp + int64(int32(be.Uint32(x.data[last+12:])))*1000
	} else {
		x.hdr = Header{IndexCount: 1}
		if prevEndPhy > 0 {
			x.hdr.BeginPhyOffset, x.hdr.EndPhyOffset = prevEndPhy, prevEndPhy
		}
		if prevEndTS > 0 {
			x.hdr.BeginTimestamp, x.hdr.EndTimestamp = prevEndTS, prevEndTS
		}
	}
	x.hdr.put(x.data)
	return int(count - n)
}
