//go:build linux

package commitlog

import (
	"strings"
	"sync"
	"testing"
)

// TestCommitLogSyncFlushWritesOnlyNewPages: under SYNC_FLUSH every put is
// made durable before it is answered, so each sync should write back the
// few pages the put touched. Pre-faulted pages of the kernel's large page
// cache folios are written back a whole folio at a time (up to a MiB and
// more for one 1 KiB message); the log keeps the pages of a file it
// writes small so that the disk writes stay near the data written.
//
// Not parallel: write_bytes in /proc/self/io counts the whole process.
func TestCommitLogSyncFlushWritesOnlyNewPages(t *testing.T) {
	cfg := testConfig(t.TempDir(), 64<<20)
	cfg.SyncFlush = true
	c := openLog(t, cfg, nil)
	body := strings.Repeat("s", 1000)
	mustPut(t, c, newMsg("W", 0, body, "")) // the first file is warm
	// Rounds of 100 puts, each round synced once, as 16 x 16 pipelined
	// senders make them (about 116 puts per sync at 16 x 16).
	const rounds, batch = 250, 100
	const puts = rounds * batch
	w0 := procField(t, "/proc/self/io", "write_bytes:")
	from := c.q.MaxWrotePosition()
	for range rounds {
		var wg sync.WaitGroup
		for range batch {
			wg.Add(1)
			c.PutMessageAsync(newMsg("W", 0, body, ""), func(r PutMessageResult) {
				if r.Status != PutOK {
					t.Errorf("put: %v", r.Status)
				}
				wg.Done()
			})
		}
		wg.Wait()
	}
	data := c.q.MaxWrotePosition() - from
	written := procField(t, "/proc/self/io", "write_bytes:") - w0
	// A sync writes the pages its batch wrote into: about the data, plus
	// the page at the write position written again by the next sync
	// (1.1-1.4x here; whole large folios made it 1.8x, 3.4-4.7x under
	// -race, 7x at 16 x 16).
	limit := data*8/5 + 1<<20
	t.Logf("%d puts, %d bytes of messages, %d bytes written back (%.1f per byte)", puts, data, written, float64(written)/float64(data))
	if written > limit {
		t.Fatalf("%d puts of %d bytes wrote %d bytes to disk, over %d: syncs write back more than the new pages", puts, data, written, limit)
	}
}
