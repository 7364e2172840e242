package store

import (
	"github.com/rocketmq-go/rmq/broker/store/mmap"
)

// prefetchChunk is how much of a mapping one populate call covers, so that
// a stop request is noticed quickly.
const prefetchChunk = 8 << 20

// prefetcher faults in the mappings of the CommitLog files a sequential
// scan is about to read, on its own goroutine and at most ahead files in
// front of the scan, so that the scan (the recovery goroutine) does not
// take the page faults itself and the two cores share the work. Populating
// is advisory: an error only means the scan faults as usual.
type prefetcher struct {
	scanned chan struct{} // one token per file the scan has finished
	stop    chan struct{} // closed by finish: the scan is over
	done    chan struct{} // closed by the goroutine when it returns
}

// startPrefetch starts populating files (in order), staying at most ahead
// files in front of the scan.
func startPrefetch(files []*mmap.MappedFile, ahead int) *prefetcher {
	p := &prefetcher{scanned: make(chan struct{}, len(files)), stop: make(chan struct{}), done: make(chan struct{})}
	go p.run(files, ahead)
	return p
}

func (p *prefetcher) run(files []*mmap.MappedFile, ahead int) {
	defer close(p.done)
	for i, mf := range files {
		if i >= ahead {
			select {
			case <-p.scanned:
			case <-p.stop:
				return
			}
		}
		data := mf.Data()
		for off := 0; off < len(data); off += prefetchChunk {
			select {
			case <-p.stop:
				return
			default:
			}
			if populateRead(data[off:min(off+prefetchChunk, len(data))]) != nil {
				return
			}
		}
	}
}

// fileScanned tells the prefetcher the scan has finished one file.
func (p *prefetcher) fileScanned() {
	select {
	case p.scanned <- struct{}{}:
	default:
	}
}

// finish stops the goroutine and waits for it; the mappings may be
// truncated or unmapped only after that.
func (p *prefetcher) finish() {
	close(p.stop)
	<-p.done
}
