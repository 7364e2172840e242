package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/broker/store/commitlog"
	"github.com/rocketmq-go/rmq/broker/store/mmap"
	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/wait"
)

// diskFullConfig is a store under root whose consume queue and index file
// hold every message these tests send, so that only the CommitLog needs new
// files while the disk is full.
func diskFullConfig(root string) *MessageStoreConfig {
	cfg := goldenConfig(root)
	cfg.MappedFileSizeCommitLog = 128 << 10
	cfg.MappedFileSizeConsumeQueue = 20 * 2000
	cfg.MaxHashSlotNum = 64
	cfg.MaxIndexNum = 2000
	return cfg
}

// acked is a message the store acknowledged.
type acked struct {
	key  string
	body []byte
	res  commitlog.PutMessageResult
}

var diskFullBody = bytes.Repeat([]byte("d"), 1000)

func diskFullMsg(i int) *message.MessageExt {
	body := append([]byte(fmt.Sprintf("%06d", i)), diskFullBody...)
	return newMsg("DiskFull", 0, "TagA", fmt.Sprintf("key-%d", i), body)
}

// putUntilRefused sends messages until the store refuses one (at most
// limit), appending the acknowledged ones to acks; it returns the refusal.
func putUntilRefused(t *testing.T, s *DefaultMessageStore, acks *[]acked, limit int) commitlog.PutMessageStatus {
	t.Helper()
	for n := 0; n < limit; n++ {
		i := len(*acks)
		m := diskFullMsg(i)
		r := s.PutMessage(m)
		if r.Status != commitlog.PutOK {
			return r.Status
		}
		*acks = append(*acks, acked{key: fmt.Sprintf("key-%d", i), body: m.Body, res: r})
	}
	t.Fatalf("%d more messages stored with the disk full", limit)
	return commitlog.PutOK
}

// checkAcked reads every acknowledged message back through the consume
// queue and the index.
func checkAcked(t *testing.T, s *DefaultMessageStore, acks []acked) {
	t.Helper()
	waitDispatched(t, s)
	for from := int64(0); from < int64(len(acks)); {
		r := s.GetMessage("g", "DiskFull", 0, from, 32, nil)
		if r == nil || r.Status != Found {
			t.Fatalf("read at queue offset %d with the disk full: %+v", from, r)
		}
		for _, rec := range r.Messages {
			m, err := message.DecodeRecord(rec, true)
			if err != nil || !bytes.Equal(m.Body, acks[from].body) || m.CommitLogOffset != acks[from].res.Append.WroteOffset {
				t.Fatalf("message %d read back wrong: %v", from, err)
			}
			from++
		}
	}
	last := acks[len(acks)-1]
	q := s.QueryMessage("DiskFull", last.key, 4, 0, time.Now().UnixMilli()+1000)
	if len(q.Messages) != 1 {
		t.Fatalf("query by key %s found %d messages", last.key, len(q.Messages))
	}
}

// checkStored reads every acknowledged message back from the CommitLog by
// its offset.
func checkStored(t *testing.T, s *DefaultMessageStore, acks []acked) {
	t.Helper()
	for i, a := range acks {
		m, err := s.LookMessageByOffset(a.res.Append.WroteOffset)
		if err != nil || m == nil || !bytes.Equal(m.Body, a.body) {
			t.Fatalf("acknowledged message %d at %d not intact in the CommitLog: %v", i, a.res.Append.WroteOffset, err)
		}
	}
}

// refusedUntilFlagged checks the puts after the first refusal: each is
// refused with one of the two disk-full answers, and SERVICE_NOT_AVAILABLE
// (the disk-full flag) comes within three.
func refusedUntilFlagged(t *testing.T, s *DefaultMessageStore, acks *[]acked) {
	t.Helper()
	for range 3 {
		switch st := putUntilRefused(t, s, acks, 1); st {
		case commitlog.ServiceNotAvailable:
			return
		case commitlog.CreateMappedFileFailed:
		default:
			t.Fatalf("put with the disk full: %v", st)
		}
	}
	t.Fatal("the disk-full flag was never set: puts keep retrying the reservation")
}

// TestStoreDiskFullSeam fails every CommitLog file reservation, as a full
// disk does, and checks what a client sees: the first put that needs a new
// file gets CREATE_MAPEDFILE_FAILED, the next ones SERVICE_NOT_AVAILABLE
// (disk-full flag), reads go on, and once space is back the disk check
// clears the flag and puts succeed again, without a restart.
func TestStoreDiskFullSeam(t *testing.T) {
	cfg := diskFullConfig(filepath.Join(t.TempDir(), "store"))
	var usage atomic.Value // the probe: under the warning ratio, as with a big file and a little space left
	usage.Store(0.5)
	s := startStore(t, cfg, WithDiskCheckInterval(50*time.Millisecond),
		WithDiskUsage(func(string) float64 { return usage.Load().(float64) }))
	var acks []acked
	for range 10 {
		if st := putUntilRefusedOrOne(t, s, &acks); st != commitlog.PutOK {
			t.Fatalf("put before the disk filled: %v", st)
		}
	}
	waitDispatched(t, s) // the queue's first ConsumeQueue file exists
	s.cl.MappedFileQueue().AwaitPreallocated()
	undo := mmap.InjectReserveError(cfg.StorePathRootDir, syscall.ENOSPC)
	if st := putUntilRefused(t, s, &acks, 1000); st != commitlog.CreateMappedFileFailed {
		t.Fatalf("first put needing a new CommitLog file: %v, want CREATE_MAPEDFILE_FAILED", st)
	}
	refusedUntilFlagged(t, s, &acks)
	checkAcked(t, s, acks)
	undo()
	waitPutOK(t, s, &acks)
	checkAcked(t, s, acks)
}

// waitPutOK polls until a put succeeds again (the disk check runs every
// diskCheckInterval).
func waitPutOK(t *testing.T, s *DefaultMessageStore, acks *[]acked) {
	t.Helper()
	deadline := time.Now().Add(wait.Scale(10 * time.Second))
	for {
		n := len(*acks)
		st := putUntilRefusedOrOne(t, s, acks)
		if len(*acks) > n {
			return
		}
		if st != commitlog.ServiceNotAvailable && st != commitlog.CreateMappedFileFailed {
			t.Fatalf("put after space returned: %v", st)
		}
		if time.Now().After(deadline) {
			t.Fatalf("puts still refused (%v) after space returned", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// putUntilRefusedOrOne makes one put, recording it when acknowledged.
func putUntilRefusedOrOne(t *testing.T, s *DefaultMessageStore, acks *[]acked) commitlog.PutMessageStatus {
	t.Helper()
	i := len(*acks)
	m := diskFullMsg(i)
	r := s.PutMessage(m)
	if r.Status == commitlog.PutOK {
		*acks = append(*acks, acked{key: fmt.Sprintf("key-%d", i), body: m.Body, res: r})
	}
	return r.Status
}

// mountTmpfs mounts a tmpfs of the given size (mount(8) syntax) on a fresh
// directory, or skips when this process may not mount.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): needs root or CAP_SYS_ADMIN; TestStoreDiskFullSeam covers the logic", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fillDisk writes path until the filesystem is full.
func fillDisk(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// TestStoreDiskFullTmpfs fills a real (tmpfs) filesystem under a running
// store, the way another process would, and keeps sending: the store must
// not die (a store into an unallocated page of a mapping is SIGBUS),
// refuses puts with the disk-full answers, serves reads, keeps every
// acknowledged message and its index entries, and takes puts again once
// space is freed.
func TestStoreDiskFullTmpfs(t *testing.T) {
	mnt := mountTmpfs(t, "2m")
	cfg := diskFullConfig(filepath.Join(mnt, "store"))
	// The 1 s disk check lets the puts right after the fill run before it
	// sees the full disk, as with Java's 10 s check.
	s := startStore(t, cfg, WithDiskCheckInterval(wait.Scale(time.Second)))
	var acks []acked
	for range 20 {
		putUntilRefusedOrOne(t, s, &acks)
	}
	if len(acks) != 20 {
		t.Fatalf("only %d of 20 puts stored before the disk filled", len(acks))
	}
	waitDispatched(t, s)
	s.cl.MappedFileQueue().AwaitPreallocated()
	filler := filepath.Join(mnt, "filler")
	fillDisk(t, filler)

	if st := putUntilRefused(t, s, &acks, 1000); st != commitlog.CreateMappedFileFailed && st != commitlog.ServiceNotAvailable {
		t.Fatalf("put with the disk full: %v, want CREATE_MAPEDFILE_FAILED or SERVICE_NOT_AVAILABLE", st)
	}
	refusedUntilFlagged(t, s, &acks)
	// ConsumeQueue files are sparse (not reserved): the units of the last
	// acknowledged puts may need a page the full disk cannot give, so they
	// are dispatched once space returns. Until then every acknowledged
	// message is intact in the CommitLog.
	checkStored(t, s, acks)

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitPutOK(t, s, &acks)
	for range 5 {
		putUntilRefusedOrOne(t, s, &acks)
	}
	checkAcked(t, s, acks)
}

// TestStoreDiskUsageExcludesReservation: whole CommitLog files are reserved
// when created (and the next one ahead), but the usage ratios that drive
// diskMaxUsedSpaceRatio and the disk-full mark count only what is stored,
// as with Java's sparse files; otherwise a small disk would refuse sends
// with up to two files' worth of space still unwritten.
func TestStoreDiskUsageExcludesReservation(t *testing.T) {
	mnt := mountTmpfs(t, "8m")
	cfg := diskFullConfig(filepath.Join(mnt, "store"))
	cfg.MappedFileSizeCommitLog = 2 << 20
	s := startStore(t, cfg)
	var acks []acked
	putUntilRefusedOrOne(t, s, &acks)
	if len(acks) != 1 {
		t.Fatal("first put refused")
	}
	s.cl.MappedFileQueue().AwaitPreallocated()
	// The consume queue and index files of the put share the partition and
	// are written by the dispatcher after the put is answered: let it
	// finish, so that the two samples below see the same partition.
	wait.Eventually(t, 5*time.Second, func() error {
		if n := s.DispatchBehindBytes(); n > 0 {
			return fmt.Errorf("dispatch %d bytes behind", n)
		}
		return nil
	})
	raw := diskUsedFraction(cfg.CommitLogDir())
	stored := s.opts.diskUsage(cfg.CommitLogDir())
	if raw < 0.5 {
		t.Fatalf("partition %.2f used with two 2 MiB CommitLog files reserved on 8 MiB, want >= 0.50", raw)
	}
	if stored > raw-0.4 || stored < 0 {
		t.Fatalf("stored fraction %.2f (partition %.2f): the reserved, unwritten CommitLog space is counted as used", stored, raw)
	}
	cl, _, _ := s.DiskUsageRatios()
	if cl != stored {
		t.Fatalf("DiskUsageRatios CL %.2f, want the stored fraction %.2f", cl, stored)
	}
}
