package store

// The parallel half of the abnormal recovery. Checking a record (its CRC
// above all) and turning it into a dispatch request cost more than
// writing its consume-queue unit and index entries, and only the writing
// must happen one record at a time in CommitLog order. So scanner
// goroutines (one per core, up to maxScanWorkers) each take every k-th
// file from the start: fault it in, check its records and parse the
// valid ones into dispatch requests, handed over in batches. The
// recovery goroutine takes the batches file by file, in order, and
// writes them as the serial pass did; a file's verdict (where its valid
// records end, whether the log goes on) follows its last batch.
//
//	scanner 0: file 0, file 2, ...  ─┐ out[0] (batches, then the verdict)
//	scanner 1: file 1, file 3, ...  ─┤ out[1]
//	                                 └─▶ recovery goroutine: file 0 from out[0],
//	                                     file 1 from out[1], ... (CQ + index)
//
// A scanner works on file j+k only once the batches of file j are all
// queued; each queue holds scanQueueBatches batches, so a scanner parses
// at most that many batches ahead of the writing (having faulted in the
// whole file it is on).

import (
	"runtime"
	"strings"
	"sync"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/mmap"
)

const (
	maxScanWorkers   = 4   // scanners beyond this would wait on the writing anyway
	scanBatchRecords = 256 // records per batch
	scanQueueBatches = 16  // batches a scanner may have queued
)

// scanOptions overrides the scanner count and batch size (0: defaults).
type scanOptions struct{ workers, batch int }

// withRecoveryScan sets the number of scanners and the records per batch
// (tests run odd shapes to exercise the hand-over).
func withRecoveryScan(workers, batch int) Option {
	return func(o *options) { o.scan = scanOptions{workers: workers, batch: batch} }
}

// scanBatch is a run of validated records of one file, parsed into
// dispatch requests (Properties nil). The last batch of a file carries
// its verdict.
type scanBatch struct {
	reqs []commitlog.DispatchRequest
	last bool
	fc   fileCheck // valid when last
	// keys holds the batch's KEYS and UNIQ_KEY values, which are
	// substrings of it: one allocation per batch rather than two per
	// record (strings.Builder never changes bytes it has handed out).
	keys strings.Builder
	str  func([]byte) string // b.keyString, made once
}

// scanKeyBytes is the room made for a batch's keys at once.
const scanKeyBytes = 24 * scanBatchRecords

// keyString appends v to the batch's keys and returns it as a string.
func (b *scanBatch) keyString(v []byte) string {
	start := b.keys.Len()
	b.keys.Write(v)
	return b.keys.String()[start:]
}

// recoveryScanner runs the scanner goroutines over files; the recovery
// goroutine reads their results with next and must call finish.
type recoveryScanner struct {
	s         *DefaultMessageStore
	files     []*mmap.MappedFile
	checkCRC  bool
	out       []chan *scanBatch // out[w]: scanner w's batches, in file order
	free      chan *scanBatch   // batches the recovery goroutine is done with
	stop      chan struct{}     // closed by finish: the scan is over
	wg        sync.WaitGroup    // the scanners
	file      int               // next file next reads
	batchSize int
}

// startRecoveryScanner starts the scanners over files (from the file the
// recovery begins at).
func (s *DefaultMessageStore) startRecoveryScanner(files []*mmap.MappedFile, checkCRC bool) *recoveryScanner {
	k := min(runtime.GOMAXPROCS(0), maxScanWorkers)
	if s.opts.scan.workers > 0 {
		k = s.opts.scan.workers
	}
	k = max(1, min(k, len(files)))
	sc := &recoveryScanner{s: s, files: files, checkCRC: checkCRC, out: make([]chan *scanBatch, k),
		batchSize: scanBatchRecords,
		free:      make(chan *scanBatch, k*(scanQueueBatches+2)), stop: make(chan struct{})}
	if s.opts.scan.batch > 0 {
		sc.batchSize = s.opts.scan.batch
	}
	for w := range sc.out {
		sc.out[w] = make(chan *scanBatch, scanQueueBatches)
	}
	sc.wg.Add(k)
	for w := range k {
		go sc.run(w, k)
	}
	return sc
}

// run scans files w, w+k, ... until one does not lead on or the scan is
// stopped.
func (sc *recoveryScanner) run(w, k int) {
	defer sc.wg.Done()
	defer close(sc.out[w])
	topics := map[string]string{} // one string per topic name
	for j := w; j < len(sc.files); j += k {
		mf := sc.files[j]
		if !sc.prefault(mf.Data()) {
			return
		}
		fc, ok := sc.scanFile(mf, sc.out[w], topics)
		if !ok || !fc.cont {
			return
		}
	}
}

// prefault populates data's page tables; false when asked to stop.
// Populating is advisory: on error the reads fault as usual.
func (sc *recoveryScanner) prefault(data []byte) bool {
	for off := 0; off < len(data); off += prefetchChunk {
		select {
		case <-sc.stop:
			return false
		default:
		}
		if populateRead(data[off:min(off+prefetchChunk, len(data))]) != nil {
			return true
		}
	}
	return true
}

// scanFile checks one mapped file's records from its start, as
// validateFile does, and queues the valid ones on out; false when asked
// to stop.
func (sc *recoveryScanner) scanFile(mf *mmap.MappedFile, out chan<- *scanBatch, topics map[string]string) (fileCheck, bool) {
	w := newFileWalk(mf, sc.checkCRC)
	b := sc.batch()
	for {
		v, ok := w.next()
		if !ok {
			break
		}
		b.reqs = append(b.reqs, sc.s.dispatchRequestNamed(&v, internTopic(topics, v.topic), false, b.str))
		if len(b.reqs) >= sc.batchSize {
			if !sc.send(out, b) {
				return w.fc, false
			}
			b = sc.batch()
		}
	}
	b.last, b.fc = true, w.fc
	return w.fc, sc.send(out, b)
}

// internTopic returns the one string held for a topic name.
func internTopic(topics map[string]string, name []byte) string {
	if t, ok := topics[string(name)]; ok {
		return t
	}
	t := string(name)
	topics[t] = t
	return t
}

// batch returns an empty batch, reusing one the recovery goroutine is done
// with when there is one.
func (sc *recoveryScanner) batch() *scanBatch {
	select {
	case b := <-sc.free:
		b.reqs, b.last, b.fc = b.reqs[:0], false, fileCheck{}
		b.keys.Reset() // the strings handed out keep the old buffer
		b.keys.Grow(scanKeyBytes)
		return b
	default:
		b := &scanBatch{reqs: make([]commitlog.DispatchRequest, 0, sc.batchSize)}
		b.str = b.keyString
		b.keys.Grow(scanKeyBytes)
		return b
	}
}

func (sc *recoveryScanner) send(out chan<- *scanBatch, b *scanBatch) bool {
	select {
	case out <- b:
		return true
	case <-sc.stop:
		return false
	}
}

// next hands each record of the next file to apply, in order, and returns
// the file's verdict; ok is false when no scanner reached the file (the
// scan stopped after an earlier file that did not lead on).
func (sc *recoveryScanner) next(apply func(*commitlog.DispatchRequest)) (fileCheck, bool) {
	out := sc.out[sc.file%len(sc.out)]
	sc.file++
	for {
		b, ok := <-out
		if !ok {
			return fileCheck{}, false
		}
		for i := range b.reqs {
			apply(&b.reqs[i])
		}
		last, fc := b.last, b.fc
		clear(b.reqs) // drop the strings before the batch waits for reuse
		select {
		case sc.free <- b:
		default:
		}
		if last {
			return fc, true
		}
	}
}

// finish stops the scanners and waits for them; the mappings may be
// truncated or unmapped only after that.
func (sc *recoveryScanner) finish() {
	close(sc.stop)
	sc.wg.Wait()
}
