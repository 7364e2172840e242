package store

import (
	"github.com/rocketmq-go/rmq/broker/store/mmap"
)

// prefetchChunk is how much of a mapping one populate call covers, so that
// a stop request is noticed quickly.
const prefetchChunk = 8 << 20

// fileCheck is the validator's verdict on one CommitLog file: end is the
// offset after its last valid record; cont is true when the file ended
// properly (blank record or its end), so the log goes on in the next file.
type fileCheck struct {
	end  int64
	cont bool
}

// validator is the first half of the abnormal-recovery pass, run on its
// own goroutine so that the two halves share two cores: it faults each
// file in (MADV_POPULATE_READ) and validates its records (magic, sizes,
// body CRC when asked), at most ahead files in front of the dispatching
// half, which then only walks the validated range.
type validator struct {
	results chan fileCheck // one per file, in order; closed after the last
	stop    chan struct{}  // closed by finish: the scan is over
	done    chan struct{}  // closed by the goroutine when it returns
}

// startValidator validates files in order on a new goroutine.
func startValidator(files []*mmap.MappedFile, checkCRC bool, ahead int) *validator {
	v := &validator{results: make(chan fileCheck, ahead), stop: make(chan struct{}), done: make(chan struct{})}
	go v.run(files, checkCRC)
	return v
}

func (v *validator) run(files []*mmap.MappedFile, checkCRC bool) {
	defer close(v.done)
	defer close(v.results)
	for _, mf := range files {
		if !v.prefault(mf.Data()) {
			return
		}
		fc := validateFile(mf, checkCRC)
		select {
		case v.results <- fc:
		case <-v.stop:
			return
		}
		if !fc.cont {
			return
		}
	}
}

// prefault populates data's page tables; false when asked to stop.
// Populating is advisory: on error the reads fault as usual.
func (v *validator) prefault(data []byte) bool {
	for off := 0; off < len(data); off += prefetchChunk {
		select {
		case <-v.stop:
			return false
		default:
		}
		if populateRead(data[off:min(off+prefetchChunk, len(data))]) != nil {
			return true
		}
	}
	return true
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

// next is the verdict on the next file; ok is false when the validator
// has stopped (after a file that did not continue).
func (v *validator) next() (fileCheck, bool) {
	fc, ok := <-v.results
	return fc, ok
}

// finish stops the goroutine and waits for it; the mappings may be
// truncated or unmapped only after that.
func (v *validator) finish() {
	close(v.stop)
	<-v.done
}
