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
	w := newFileWalk(mf, checkCRC)
	for {
		if _, ok := w.next(); !ok {
			return w.fc
		}
	}
}

// fileWalk reads one mapped file's valid records in order, from its start
// (validateFile, and the recovery scanners, which also parse them).
type fileWalk struct {
	data     []byte
	from     int64
	pos      int
	checkCRC bool
	fc       fileCheck // the file's verdict, once next returned false
}

func newFileWalk(mf *mmap.MappedFile, checkCRC bool) fileWalk {
	return fileWalk{data: mf.Data(), from: mf.FileFromOffset(), checkCRC: checkCRC}
}

// next returns the next valid record; false at the end of the valid
// records, with w.fc set.
func (w *fileWalk) next() (recordView, bool) {
	if w.pos >= len(w.data) {
		w.fc = fileCheck{end: w.from + int64(w.pos), cont: true}
		return recordView{}, false
	}
	at := w.from + int64(w.pos)
	v, st := parseRecord(w.data[w.pos:], w.checkCRC)
	switch {
	case st == recordBlank:
		w.fc = fileCheck{end: at, cont: true}
		return recordView{}, false
	case st != recordValid || v.commitLogOffset != at:
		w.fc = fileCheck{end: at}
		return recordView{}, false
	}
	w.pos += int(v.size)
	return v, true
}
