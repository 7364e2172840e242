package store

import (
	"github.com/rocketmq-go/rmq/broker/store/mmap"
)

// prefetchChunk is how much of a mapping one populate call covers, so that
// a stop request is noticed quickly.
const prefetchChunk = 8 << 20

// fileCheck is the verdict of a check on one CommitLog file: end is the
// offset after its last valid record; cont is true when the file ended
// properly (blank record or its end), so the log goes on in the next file.
type fileCheck struct {
	end  int64
	cont bool
}

// validateFile walks one mapped file's records from its start.
func validateFile(mf *mmap.MappedFile, checkCRC bool) fileCheck {
	data := mf.Data()
	from := mf.FileFromOffset()
	pos := 0
	for pos < len(data) {
		at := from + int64(pos)
		v, st := parseRecord(data[pos:], checkCRC)
		switch {
		case st == recordBlank:
			return fileCheck{end: at, cont: true}
		case st != recordValid || v.commitLogOffset != at:
			return fileCheck{end: at}
		}
		pos += int(v.size)
	}
	return fileCheck{end: from + int64(pos), cont: true}
}
