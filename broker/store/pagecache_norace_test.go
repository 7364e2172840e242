//go:build !race

package store

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
)

// TestNoRaceStoreOSPageCacheBusy: with the store clock 5 s ahead of the
// CommitLog's lock timestamps, a put that arrives while another append holds
// the lock sees the lock held "too long" and gets OS_PAGECACHE_BUSY, as Java
// does when an append stalls longer than osPageCacheBusyTimeOutMills.
func TestNoRaceStoreOSPageCacheBusy(t *testing.T) {
	cfg := smallConfig(t)
	cfg.MappedFileSizeCommitLog = 8 << 20
	s := startStore(t, cfg, WithClock(func() time.Time { return time.Now().Add(5 * time.Second) }))
	if s.IsOSPageCacheBusy() {
		t.Fatal("busy with no append running")
	}
	body := make([]byte, 1<<20)
	var busy atomic.Int32
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200 && busy.Load() == 0; i++ {
				switch r := s.PutMessage(newMsg("Busy", 0, "", "", body)); r.Status {
				case commitlog.OSPageCacheBusy:
					busy.Add(1)
				case commitlog.PutOK:
				default:
					t.Errorf("put: %v", r.Status)
					return
				}
			}
		}()
	}
	wg.Wait()
	if busy.Load() == 0 {
		t.Fatal("no put saw OS_PAGECACHE_BUSY")
	}
	waitDispatched(t, s)
}
