//go:build linux

package commitlog

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// Page flags of /proc/kpageflags (Documentation/admin-guide/mm/pagemap.rst).
const (
	kpfDirty     = 1 << 4
	kpfWriteback = 1 << 8
)

// pageFlagsReader reads the kernel's flags of the page behind a virtual
// address of this process: /proc/self/pagemap gives the frame,
// /proc/kpageflags its flags. Both need CAP_SYS_ADMIN (frames read as 0
// without it); the test is skipped where they cannot be read.
type pageFlagsReader struct{ pagemap, kflags *os.File }

func openPageFlags(t *testing.T) *pageFlagsReader {
	t.Helper()
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("no pagemap: %v", err)
	}
	kf, err := os.Open("/proc/kpageflags")
	if err != nil {
		_ = pm.Close()
		t.Skipf("no kpageflags: %v", err)
	}
	t.Cleanup(func() { _ = pm.Close(); _ = kf.Close() })
	return &pageFlagsReader{pagemap: pm, kflags: kf}
}

var errNoFrame = errors.New("page not present or frame hidden")

// flags returns the kernel page flags of the page holding *p.
func (r *pageFlagsReader) flags(p *byte) (uint64, error) {
	var b [8]byte
	page := uint64(uintptr(unsafe.Pointer(p))) / uint64(mmap.OSPageSize)
	if _, err := r.pagemap.ReadAt(b[:], int64(page*8)); err != nil {
		return 0, err
	}
	e := binary.LittleEndian.Uint64(b[:])
	pfn := e & (1<<55 - 1)
	if e&(1<<63) == 0 || pfn == 0 {
		return 0, errNoFrame
	}
	if _, err := r.kflags.ReadAt(b[:], int64(pfn*8)); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// TestCommitLogSyncFlushAnswersAfterPagesAreClean: a SYNC_FLUSH put is
// answered only once a sync has written its bytes to the device. Checked
// on the kernel's own state, not on the log's bookkeeping: when the answer
// comes (callback and blocking puts), every page lying wholly inside the
// message is neither dirty nor under writeback any more. Answering before
// the sync (or from an asynchronous write-back) leaves them dirty.
func TestCommitLogSyncFlushAnswersAfterPagesAreClean(t *testing.T) {
	pf := openPageFlags(t)
	cfg := testConfig(t.TempDir(), 1<<20)
	cfg.SyncFlush = true
	cfg.WarmAhead = 0 // no populate of pages behind the writer after their sync
	c := openLog(t, cfg, nil)
	body := strings.Repeat("d", 5*mmap.OSPageSize)
	mustPut(t, c, newMsg("D", 0, "first", "")) // the file exists
	// innerPagesState describes the pages wholly inside the put's record
	// that are dirty or under writeback ("" when all are clean).
	innerPagesState := func(r PutMessageResult) string {
		mf := c.q.FindMappedFileByOffset(r.Append.WroteOffset, false)
		if mf == nil {
			return "no mapped file"
		}
		ps := mmap.OSPageSize
		from := int(r.Append.WroteOffset - mf.FileFromOffset())
		to := from + int(r.Append.WroteBytes)
		var bad []string
		for p := (from + ps - 1) / ps * ps; p+ps <= to; p += ps {
			fl, err := pf.flags(&mf.Data()[p])
			switch {
			case errors.Is(err, errNoFrame):
				t.Skip("page frames are hidden (no CAP_SYS_ADMIN)")
			case err != nil:
				return err.Error()
			case fl&kpfDirty != 0:
				bad = append(bad, "dirty")
			case fl&kpfWriteback != 0:
				bad = append(bad, "under writeback")
			}
		}
		return strings.Join(bad, ",")
	}
	for i := range 3 {
		got := make(chan string, 1)
		c.PutMessageAsync(newMsg("D", 0, body, ""), func(r PutMessageResult) {
			if r.Status != PutOK {
				got <- r.Status.String()
				return
			}
			got <- innerPagesState(r)
		})
		select {
		case s := <-got:
			if s != "" {
				t.Fatalf("callback put %d answered with its pages %s", i, s)
			}
		case <-time.After(wait.Scale(5 * time.Second)):
			t.Fatal("callback put not answered")
		}
		r := c.PutMessage(newMsg("D", 0, body, ""))
		if r.Status != PutOK {
			t.Fatalf("blocking put %d: %v", i, r.Status)
		}
		if s := innerPagesState(r); s != "" {
			t.Fatalf("blocking put %d answered with its pages %s", i, s)
		}
	}
}
