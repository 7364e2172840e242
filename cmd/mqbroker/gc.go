package main

import "os"

// gcBallastSize is the heap floor mqbroker keeps (see gcBallast).
const gcBallastSize = 32 << 20

// gcBallast raises the garbage collector's heap goal by its size without
// costing memory or collection work: it is never written, so its pages stay
// unbacked, and it holds no pointers, so marking never looks inside it.
//
// Why (issue #11): the broker's live heap is a few MB, and with GOGC=100 the
// collector then runs every few MB allocated, about 80 times a second under
// 16 × 16 sends, each cycle paying its fixed cost (stacks, roots, assists,
// write barriers while marking). The floor brings that back to a few cycles
// a second; GOGC=400 in the in-process send benchmark saved 12 % of CPU per
// message (p = 0.009). The garbage that accumulates between cycles is what
// the heap holds at the goal, about the ballast's size, which keeps RssAnon
// where it was while the pools' 20 MB queue buffers still set the pace.
//
// An explicit GOGC or GOMEMLIMIT leaves the pacing to the user: no ballast.
var gcBallast []byte

func init() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	gcBallast = make([]byte, gcBallastSize)
}
